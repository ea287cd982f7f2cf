//! The render machinery of stillreel: media fetching, ffmpeg commands as data and their runs,
//! storage, the job's steps and the branded render. Knows nothing of HTTP routes or databases;
//! the server's worker drives it through [`Renderer`]. The camera (clip plans, depth maps,
//! pixels) is the `stillreel-camera` crate and the model providers are `stillreel-providers`.
//!
//! Layers, inward to outward (imports only point left):
//!
//! - pure: [`plan`] (a whole video, keyframes, blended seams), [`brand::plan`] (the branded
//!   render), [`ffmpeg::command`] (ffmpeg argument lists), [`effect`] (the effect stage of a
//!   clip's graph), and the pure halves of [`media`];
//! - processes and files: [`ffmpeg`] (runs ffmpeg; [`RenderError`]), [`media`] (fetching with
//!   [`FetchError`], HEIC, probing, keyframes, thumbnails) and [`store`] (local files, object
//!   stores, generated inputs kept);
//! - steps: [`renderer`], [`steps`] (prepare, clip, stitch), [`video`] (a whole video in one
//!   process, combine) and [`brand`]'s run, reporting to an [`observer`] and failing with
//!   [`JobFailure`] ([`failure`], whose `blame` finds the input at fault); [`config`] and
//!   [`job`] are what they are asked to do.
//!
//! See `docs/RENDER.md`.

pub mod brand;
pub mod config;
pub mod effect;
pub mod failure;
pub mod ffmpeg;
pub mod job;
pub mod media;
pub mod observer;
pub mod plan;
pub mod renderer;
pub mod steps;
pub mod store;
pub mod video;

pub use brand::{AheadSound, BrandJob, BrandMusic, BrandPlan, BrandSlot, BrandedVideo};
pub use config::{DEFAULT_FFMPEG_MEMORY_LIMIT, FrameTap, RenderConfig};
pub use effect::vfx::stage as vfx_stage;
pub use effect::{ClipContext, EffectFilter, EffectInput, EffectStage};
pub use failure::{InputFault, JobFailure};
pub use ffmpeg::clip_keys::ClipUse;
pub use ffmpeg::runner::{RenderError, Step};
pub use job::{ClipRequest, CombineJob, MadeDepth, StoredClip, StoredVideo, VideoJob};
pub use media::fetch::{
    AllowList, FetchConfig, FetchError, FetchRequest, Fetcher, MediaErrorKind, MinRate, OwnFiles,
};
pub use observer::{NoObserver, RenderObserver};
pub use plan::video_plan::{StitchPlan, VideoPlan};
pub use renderer::Renderer;
pub use steps::{ClipJob, ClipLook, PrepareJob, Prepared, StitchJob, StoredInput, StoredMusic};
pub use store::objects::{ObjectStorage, S3Settings};
pub use store::storage::{LocalStorage, Storage};
