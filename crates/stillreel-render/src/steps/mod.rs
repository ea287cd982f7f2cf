//! The steps of a video, one function per job of the job graph, each taking one job's inputs
//! from storage and leaving its outputs there, so each can run on any machine:
//!
//! ```text
//! prepare ──► clip 0 ─┐
//!         ├─► clip 1 ─┼─► stitch ──► (branding, the `brand` module)
//!         └─► clip n ─┘
//! ```
//!
//! - [`Renderer::prepare`] (`prepare.rs`) fetches every input once, under one deadline,
//!   checks it, and stores the checked copy under the video's key prefix with the facts a
//!   clip needs.
//! - [`Renderer::render_clip`] (`clip.rs`) renders one clip, silent, from its stored input
//!   (the clip made by the camera's one call, `stillreel_camera::clip::Clip`; `framing.rs`
//!   makes the canvas by ffmpeg for the stills the camera does not decode, `tap.rs` hands the
//!   frames to a `FrameTap` when the renderer has one; a model's clip comes from `generate.rs`),
//!   checks the result with ffprobe ([`crate::media::probe`]) and stores it under a key that carries
//!   the job's lease token, so a late upload of a worker that lost its lease never replaces
//!   a clip.
//!   An effect that reads masks of the still (`day-to-twilight`) gets them from `masks.rs`,
//!   made from the clip's canvas and moved with the camera.
//! - [`Renderer::stitch_clips`] (`stitch.rs`) joins stored clips in the order it is given
//!   (the database's) by stream copy and mixes the music, or silence, once.
//!
//! Each step reports its own progress, 0 to 100, to its observer. What each step computes
//! (motions, frames, sound) comes from the pure [`crate::plan::video_plan`].

mod clip;
mod encode;
mod framing;
mod generate;
pub mod masks;
mod prepare;
mod stitch;
mod tap;

use std::sync::Arc;

use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution, Transition};

use crate::effect::EffectStage;
use crate::ffmpeg::clip_keys::ClipUse;
use crate::ffmpeg::command::clip_caption::ClipCaption;
use crate::media::fetch::FetchRequest;
use crate::plan::sound::AheadSound;
use crate::plan::video_plan::{PictureFacts, VideoShape};
#[cfg(doc)]
use crate::renderer::Renderer;
use stillreel_camera::depth::DepthInput;
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::{MediaClass, MediaFormat};

/// What [`Renderer::prepare`] fetches.
#[derive(Debug, Clone)]
pub struct PrepareJob {
    /// Storage key prefix of the video's files (`videos/<uuid>`).
    pub key_prefix: String,
    /// `(index in image_inputs, image_url)` of every clip still to render.
    pub images: Vec<(usize, String)>,
    pub audio_url: Option<String>,
}

/// A checked input in storage, with what its clip needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredInput {
    pub index: usize,
    pub key: String,
    pub format: MediaFormat,
    /// Pixel size as displayed (after the EXIF orientation), when known.
    pub upright: Option<(u32, u32)>,
    pub orientation: ExifOrientation,
    /// FNV-1a of the bytes: the `auto` motion rule's fingerprint.
    pub digest: u64,
}

pub use crate::job::StoredMusic;

/// What [`Renderer::prepare`] stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub inputs: Vec<StoredInput>,
    pub music: Option<StoredMusic>,
}

/// One clip to render from its stored input.
#[derive(Debug, Clone)]
pub struct ClipJob {
    pub key_prefix: String,
    pub index: usize,
    /// The lease token of the job: part of the stored clip's key, so two attempts at one clip
    /// never write the same object. `None`: `clip-<index>.mp4` (one process, no leases).
    pub token: Option<String>,
    pub input: StoredInput,
    pub camera_motion: CameraMotion,
    pub effect: Option<Arc<dyn EffectStage>>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
    /// The picture's depth map, if one was made: on v25 the motions become depth-aware
    /// (`stillreel_camera::geometry::parallax`); v24 ignores it.
    pub depth: Option<DepthInput>,
    /// Why the depth role's map of the picture could not be had (its answer was refused,
    /// [`crate::job::MadeDepth::Refused`]): the clip is drawn with the flat camera and its
    /// [`crate::StoredClip::depth_fallback`] says so.
    pub depth_note: Option<String>,
    /// How the camera's speed varies over the clip: [`Pace::Through`] for a video that asks
    /// for the speed ramp (the camera keeps moving through the ends the ramp accelerates).
    pub pace: Pace,
    /// What the video will do with the clip (its transition, a branded intro): where the
    /// clip gets keyframes beyond its GOP ([`crate::ffmpeg::clip_keys`]).
    pub usage: ClipUse,
    /// How the photo fills the frame and the words over it.
    pub look: ClipLook,
}

/// How a clip looks beyond its camera and effect: the request's `fit` and `caption`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipLook {
    pub fit: Fit,
    pub caption: Option<ClipCaption>,
}

/// The clips to join, in order, and the music.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StitchJob {
    pub key_prefix: String,
    /// The lease token of the job, part of the video's key like a clip's (see [`ClipJob`]).
    pub token: Option<String>,
    /// Storage keys of the clips in video order (as recorded in the database).
    pub clip_keys: Vec<String>,
    pub music: Option<StoredMusic>,
    /// How the clips meet (the request's `transition`).
    pub transition: Transition,
    /// The sound of the branded render that follows, when the video will be branded
    /// (`BrandJob::sound`): with music, made beside the main video's own and stored
    /// at its key, so the branded render only copies it.
    pub branded_sound: Option<AheadSound>,
}

/// The storage key of a clip.
pub fn clip_key(prefix: &str, index: usize, token: Option<&str>) -> String {
    match token {
        Some(token) => format!("{prefix}/clip-{index:03}-{token}.mp4"),
        None => format!("{prefix}/clip-{index:03}.mp4"),
    }
}

/// The storage key of the checked copy of input `index`.
pub fn input_key(prefix: &str, index: usize, format: MediaFormat) -> String {
    format!("{prefix}/input-{index:03}.{}", format.extension())
}

/// The request for the music of a job.
pub(crate) fn music_request(url: &str) -> FetchRequest {
    FetchRequest {
        url: url.to_owned(),
        class: MediaClass::Audio,
        stem: "music".to_owned(),
        field: "audio_url".to_owned(),
    }
}

impl ClipJob {
    /// The frame and look of this clip's video.
    pub fn shape(&self) -> VideoShape {
        VideoShape {
            orientation: self.orientation,
            resolution: self.resolution,
            engine: self.engine,
        }
    }

    /// What the plan needs to know about this clip's picture.
    pub fn picture(&self) -> PictureFacts {
        PictureFacts {
            camera_motion: self.camera_motion,
            upright: self.input.upright,
            digest: self.input.digest,
            fit: self.look.fit,
        }
    }
}
