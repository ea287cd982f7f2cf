//! Records the API answers with.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CameraMotion, Engine, Orientation, Resolution, Status, TemplateSlot, Vfx};

/// One clip of a video (reference: "Video clip").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoClip {
    pub uuid: Uuid,
    pub image_url: String,
    pub clip_url: String,
    pub camera_motion: CameraMotion,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub ai_engine: Engine,
    /// `null` when the clip has no effect.
    pub vfx: Option<Vfx>,
}

/// Echo of the intro/outro of the request.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BrandingTemplates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
}

/// The branded render, tracked on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branding {
    pub status: Status,
    /// Empty until `status` is `complete`.
    pub video_url: String,
    pub templates: BrandingTemplates,
    /// True only when the ramp really took effect: requested and two or more clips.
    pub speed_ramp: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
}

/// Why a video or branded render ended in `error` (CONTRACT §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    pub code: String,
    pub message: String,
    /// The request field at fault, when there is one (e.g. `image_inputs[2].image_url`).
    pub field: Option<String>,
}

/// A video job, as both POSTs and `GET /get_video` answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Video {
    pub uuid: Uuid,
    pub project: Uuid,
    pub status: Status,
    /// Empty until `status` is `complete`.
    pub video_url: String,
    pub video_clips: Vec<VideoClip>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub ai_engine: Engine,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branding: Option<Branding>,
    /// 0–100, never decreasing.
    pub progress: u8,
    pub created_at: String,
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
}

/// A project record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    pub uuid: Uuid,
    pub name: String,
    pub is_default: bool,
    pub created_at: String,
}

/// `GET /get_projects`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectList {
    pub projects: Vec<Project>,
}

/// One engine as `GET /get_engines` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub id: Engine,
    /// Whether requests that name no engine get this one.
    pub default: bool,
    pub camera_motions: Vec<CameraMotion>,
    /// Whether the engine eases its moves in and out (v25) or moves linearly (v24).
    pub eased: bool,
    /// The vfx types this deployment can render.
    pub vfx_types: Vec<super::VfxType>,
}

/// `GET /get_engines`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineList {
    pub engines: Vec<EngineInfo>,
}
