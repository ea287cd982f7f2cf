//! The render machinery of stillreel: safe media fetching, clip plans, ffmpeg commands as
//! data, the ffmpeg runner, stitching, audio and combine. Knows nothing of HTTP routes or
//! databases; the server's worker drives it through [`pipeline::Renderer`].
//!
//! Layers, inward to outward: [`plan`] (pure motion math) → [`command`] (pure argument lists)
//! → [`runner`] (runs ffmpeg) → [`pipeline`] (a whole job, with [`fetch`] and [`storage`]).
//! See `docs/RENDER.md`.

pub mod brand;
pub mod command;
pub mod effect;
pub mod failure;
pub mod fetch;
pub mod objects;
pub mod pipeline;
pub mod plan;
pub mod probe;
pub mod progress;
pub mod provider;
pub mod runner;
pub mod steps;
pub mod storage;
pub mod vfx;

pub use brand::{BrandJob, BrandSlot, BrandedVideo};
pub use effect::{ClipContext, EffectFilter, EffectInput, EffectStage};
pub use failure::JobFailure;
pub use fetch::{
    AllowList, FetchConfig, FetchError, FetchRequest, Fetcher, MediaErrorKind, MinRate, OwnFiles,
};
pub use objects::{ObjectStorage, S3Settings};
pub use pipeline::{
    ClipRequest, CombineJob, RenderConfig, RenderObserver, Renderer, StoredClip, StoredVideo,
    VideoJob,
};
pub use provider::{Provider, ProviderConfig, ProviderError, ProviderSetupError, available_vfx};
pub use runner::{RenderError, Step};
pub use steps::{ClipJob, PrepareJob, Prepared, StitchJob, StoredInput, StoredMusic};
pub use storage::{LocalStorage, Storage};
pub use vfx::stage as vfx_stage;
