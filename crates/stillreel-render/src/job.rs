//! The jobs a whole render is asked for ([`VideoJob`], [`CombineJob`]) and what it stores
//! ([`StoredClip`], [`StoredVideo`]). The job graph's own step inputs are in `steps`.

use std::sync::Arc;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};

use crate::effect::EffectStage;
use stillreel_camera::depth::DepthInput;
use stillreel_camera::geometry::clip_plan::{Motion, Pace};

/// One image of a video job.
#[derive(Debug, Clone)]
pub struct ClipRequest {
    pub image_url: String,
    pub camera_motion: CameraMotion,
    /// The vfx of this image, from `stillreel-effects`.
    pub effect: Option<Arc<dyn EffectStage>>,
    /// A depth map of the image already in storage (engine v25 then moves with parallax).
    pub depth: Option<DepthInput>,
}

/// `create_video`, as the renderer needs it.
#[derive(Debug, Clone)]
pub struct VideoJob {
    /// Storage key prefix of this video's files (e.g. `videos/<uuid>`).
    pub key_prefix: String,
    pub clips: Vec<ClipRequest>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
    pub audio_url: Option<String>,
    /// How the clips meet.
    pub transition: Transition,
    /// How the camera's speed varies over each clip ([`Pace::Through`] when the video will be
    /// branded with the speed ramp).
    pub pace: Pace,
    /// The video will be branded with an intro: its first clip is keyed where the intro ends
    /// ([`crate::ffmpeg::clip_keys`]), so the branded copy encodes only the intro. (Clips paced
    /// [`Pace::Through`], for the speed ramp, are also keyed where the ramp begins and ends.)
    pub branded_intro: bool,
    /// The sound of the branded render that follows (`BrandJob::sound`), made by the
    /// stitch beside the main video's when the video has music (`None`: not branded, or the
    /// branded render makes it).
    pub branded_sound: Option<crate::plan::sound::AheadSound>,
}

/// `combine_video_clips`, as the renderer needs it.
#[derive(Debug, Clone)]
pub struct CombineJob {
    pub key_prefix: String,
    /// Storage keys of the clips, in order (a key may repeat). Every clip is a standard clip
    /// of the request's orientation, resolution and one engine (checked by the caller).
    pub clip_keys: Vec<String>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub audio_url: Option<String>,
    /// How the clips meet.
    pub transition: Transition,
}

/// The depth role's map of a clip's photo (`Renderer::generate_depth`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MadeDepth {
    /// No depth role is configured.
    NoRole,
    /// The map, stored.
    Map(DepthInput),
    /// The model answered with a map the role cannot use; why, for the clip's record.
    Refused(String),
}

/// A stored clip.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredClip {
    pub index: usize,
    pub key: String,
    pub url_path: String,
    /// The motion really used (`auto` decided); `None` when the clip was already stored.
    pub motion: Option<Motion>,
    pub seconds: f64,
    /// Why the clip's depth map was not used, when it had one that could not be (another
    /// aspect ratio, flat, garbled, inverted, refused as the depth model's answer): the flat
    /// camera drew the clip. The clip record's note.
    pub depth_fallback: Option<String>,
}

/// A stored video.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVideo {
    pub key: String,
    pub url_path: String,
    pub seconds: f64,
    pub clips: Vec<StoredClip>,
}

/// The checked music in storage (what the prepare step stored, and what the branded render's
/// plan takes as a video's music).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMusic {
    pub key: String,
    pub format: stillreel_core::media::MediaFormat,
}
