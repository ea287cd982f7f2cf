//! The render machinery of stillreel: safe media fetching, clip plans, ffmpeg commands as
//! data, the ffmpeg runner, stitching, audio and combine. Knows nothing of HTTP routes or
//! databases; the server's worker drives it through [`Renderer`].
//!
//! Layers, inward to outward (imports only point left):
//!
//! The camera (clip plans, depth, pixels) is the `stillreel-camera` crate and the model
//! providers the `stillreel-providers` crate; this crate runs ffmpeg around them.
//!
//! - pure: [`clip_keys`] (where a clip needs keyframes), [`video_plan`] (a whole video: clips, frames,
//!   stitch, sound), [`transition`] (the seams of blended joins), [`brand::plan`] (the branded render), [`command`] (ffmpeg argument lists),
//!   the pure halves of [`probe`], [`keyframes`], [`fetch`] and [`heif`];
//! - processes and files: [`runner`] (runs ffmpeg; [`RenderError`]), [`probe`], [`keyframes`], [`fetch`]
//!   ([`FetchError`]; HEIC pictures decoded to JPEG by [`heif`]), [`storage`] and [`objects`];
//! - steps: [`renderer`], [`steps`] (prepare, clip, stitch), [`video`] (a whole video in one
//!   process, combine) and [`brand`]'s run, failing with [`JobFailure`] ([`failure`]), whose
//!   input at fault [`blame`] finds.
//!
//! See `docs/RENDER.md`.

pub mod blame;
mod blocking;
pub mod brand;
pub mod brand_sound;
pub mod clip_keys;
pub mod command;
pub mod concat;
pub mod config;
pub mod effect;
pub mod failure;
pub mod fetch;
mod files;
pub mod generated;
pub mod heif;
pub mod job;
pub mod keyframes;
pub mod objects;
pub mod observer;
pub mod probe;
pub mod progress;
pub mod reference;
pub mod renderer;
pub mod runner;
pub mod steps;
pub mod storage;
pub mod thumbnail;
pub mod transition;
pub mod vfx;
pub mod video;
pub mod video_plan;

pub use brand::{AheadSound, BrandJob, BrandMusic, BrandPlan, BrandSlot, BrandedVideo};
pub use clip_keys::ClipUse;
pub use config::{DEFAULT_FFMPEG_MEMORY_LIMIT, RenderConfig};
pub use effect::{ClipContext, EffectFilter, EffectInput, EffectStage};
pub use failure::{InputFault, JobFailure};
pub use fetch::{
    AllowList, FetchConfig, FetchError, FetchRequest, Fetcher, MediaErrorKind, MinRate, OwnFiles,
};
pub use job::{ClipRequest, CombineJob, StoredClip, StoredVideo, VideoJob};
pub use objects::{ObjectStorage, S3Settings};
pub use observer::{NoObserver, RenderObserver};
pub use renderer::Renderer;
pub use runner::{RenderError, Step};
pub use steps::{ClipJob, PrepareJob, Prepared, StitchJob, StoredInput, StoredMusic};
pub use storage::{LocalStorage, Storage};
pub use vfx::stage as vfx_stage;
pub use video_plan::{StitchPlan, VideoPlan};
