//! Records the API answers with.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CameraMotion, Engine, Orientation, Resolution, Status, TemplateSlot, Vfx};

use super::BrandKitBody;

/// One clip of a video (reference: "Video clip").
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
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
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub vfx: Option<Vfx>,
    /// A JPEG of the clip's middle frame, made with the clip; `null` for a clip rendered
    /// before thumbnails existed.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub thumbnail_url: Option<String>,
    /// What of the clip a model made, by role (docs/PROVIDERS.md): the staged or peopled
    /// picture, the fan clip, the depth map its camera moved over, the whole clip on the
    /// generative engine. Absent when nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(required = false))]
    pub generated: Option<Vec<GeneratedContent>>,
    /// What the renderer could not do as asked and did instead, in sentences for people:
    /// e.g. a depth map that could not be used, so the flat camera drew the clip. Absent when
    /// there is nothing to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(required = false))]
    pub notes: Option<Vec<String>>,
}

/// One part of a clip a model made: the role that made it and the model it called.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedContent {
    /// `staging`, `lifestyle`, `fan`, `depth` or `clip` (the generative engine's model).
    pub role: String,
    /// The model as configured (`owner/name[:version]`, a model name, or the protocol's name
    /// for a self-hosted service without one).
    pub model: String,
}

/// Echo of the intro/outro of the request.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BrandingTemplates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
}

/// The branded render, tracked on its own.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branding {
    pub status: Status,
    /// Empty until `status` is `complete`.
    pub video_url: String,
    pub templates: BrandingTemplates,
    /// True only when the ramp really took effect: requested, two or more clips, and clips
    /// that keep moving through their ends (docs/API-DESIGN.md#branding).
    pub speed_ramp: bool,
    /// 0–100 for the branded render itself (the video's own `progress` is the main render's),
    /// never decreasing.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(minimum = 0, maximum = 100))]
    pub progress: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
}

/// Why a video or branded render ended in `error` (docs/API-DESIGN.md#render-failures).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    pub code: String,
    pub message: String,
    /// The request field at fault, when there is one (e.g. `image_inputs[2].image_url`).
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub field: Option<String>,
}

/// A video job, as both POSTs and `GET /get_video` answer it.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Video {
    pub uuid: Uuid,
    pub project: Uuid,
    pub status: Status,
    /// Empty until `status` is `complete`.
    pub video_url: String,
    pub video_clips: Vec<VideoClip>,
    /// A JPEG of a representative frame of the video (one second in), made with it; `null`
    /// until `status` is `complete`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub poster_url: Option<String>,
    /// The soundtrack the video was made with (the request's, or its brand kit's); `null`
    /// without one.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub audio_url: Option<String>,
    /// The request's `title` as cleaned; `null` without one.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub title: Option<String>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub ai_engine: Engine,
    /// Present only when branding was requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branding: Option<Branding>,
    /// 0–100, never decreasing.
    #[cfg_attr(feature = "schema", schema(minimum = 0, maximum = 100))]
    pub progress: u8,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub created_at: String,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub updated_at: String,
    /// Present only when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
    /// Present when the request named a `webhook_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Webhook>,
}

/// Where a delivery of completion events stands.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebhookStatus {
    /// Not yet sent, or sent and to be retried.
    Pending,
    /// A 2xx answer was received.
    Delivered,
    /// Gave up: `410 Gone`, the retry schedule ran out, or the URL may not be called.
    Failed,
}

impl WebhookStatus {
    pub const NAMES: &'static [&'static str] = &["pending", "delivered", "failed"];

    pub const fn as_str(self) -> &'static str {
        match self {
            WebhookStatus::Pending => "pending",
            WebhookStatus::Delivered => "delivered",
            WebhookStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pending" => Some(WebhookStatus::Pending),
            "delivered" => Some(WebhookStatus::Delivered),
            "failed" => Some(WebhookStatus::Failed),
            _ => None,
        }
    }
}

/// The record's echo of `webhook_url`, with the state of the latest event's delivery (the
/// branded render's event once there is one, the video's before). Before the video settles
/// nothing is sent yet: `pending`, no attempts.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    pub url: String,
    pub status: WebhookStatus,
    /// HTTP requests made so far for that event.
    pub attempts: u32,
    /// HTTP status of the last answer; `null` before the first one or when none came.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub last_status: Option<u16>,
}

/// A project record.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    pub uuid: Uuid,
    pub name: String,
    pub is_default: bool,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub created_at: String,
}

/// `GET /get_projects`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectList {
    pub projects: Vec<Project>,
}

/// One engine as `GET /get_engines` describes it.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub id: Engine,
    /// Whether requests that name no engine get this one.
    pub default: bool,
    pub camera_motions: Vec<CameraMotion>,
    /// Whether the engine eases its moves in and out (v25) or moves linearly (v24); `false`
    /// for `generative`, whose model makes the move.
    pub eased: bool,
    /// The vfx types this deployment can render with this engine (on `generative`, the
    /// procedural ones only).
    pub vfx_types: Vec<super::VfxType>,
}

/// `GET /get_engines`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineList {
    pub engines: Vec<EngineInfo>,
    /// Each configured model role and its host's health as this process last saw it (empty
    /// without model providers).
    #[serde(default)]
    pub providers: Vec<ProviderHealth>,
}

/// One configured model role (docs/PROVIDERS.md) and its health as last seen: `unchecked`
/// (a hosted protocol, which has no health check), `unreachable`, or a Cog container's state
/// (`unknown`, `starting`, `ready`, `busy`, `setup_failed`, `defunct`, `unhealthy`).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderHealth {
    /// `staging`, `lifestyle`, `fan`, `depth` or `clip`.
    pub role: String,
    /// `replicate`, `cog`, `openai` or `stillreel`.
    pub protocol: String,
    pub health: String,
}

/// `GET /get_videos`: one page of the account's videos, newest first.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoList {
    /// Each as `GET /get_video` answers it.
    pub videos: Vec<Video>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// A saved brand kit.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrandKit {
    pub uuid: Uuid,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
    pub speed_ramp: bool,
    /// The default soundtrack; `null` without one.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub audio_url: Option<String>,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub created_at: String,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub updated_at: String,
}

/// `GET /get_brand_kits`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrandKitList {
    /// Oldest first.
    pub brand_kits: Vec<BrandKit>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub next_cursor: Option<String>,
}

/// `POST /upload_media`: a stored upload (and each element of `GET /get_uploads`).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadedMedia {
    pub uuid: Uuid,
    /// Where the file is served; usable as `image_url`, `audio_url` or a template image.
    pub url: String,
    /// What the file is, by its first bytes: `image/jpeg`, `image/png`, `image/webp`,
    /// `image/heic`, `audio/mpeg`, `audio/aac`, `audio/mp4`, `audio/wav`, `audio/ogg` or
    /// `audio/flac`.
    pub media_type: String,
    /// Counted against the account's upload quota until the upload is deleted.
    pub bytes: u64,
    #[cfg_attr(feature = "schema", schema(format = DateTime))]
    pub created_at: String,
}

/// `GET /get_uploads`: one page of the account's uploads.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadList {
    /// Newest first, each as `upload_media` answered it.
    pub uploads: Vec<UploadedMedia>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub next_cursor: Option<String>,
}

impl BrandKit {
    /// A stored kit's record.
    pub fn new(uuid: Uuid, kit: BrandKitBody, created_at: String, updated_at: String) -> Self {
        BrandKit {
            uuid,
            name: kit.name,
            intro: kit.intro,
            outro: kit.outro,
            speed_ramp: kit.speed_ramp,
            audio_url: kit.audio_url,
            created_at,
            updated_at,
        }
    }
}
