//! The two POST bodies, as they are after validation: every default filled in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CameraMotion, Engine, Orientation, Resolution, Vfx};

/// One image of `POST /create_video`: one clip is made from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageInput {
    pub image_url: String,
    pub camera_motion: CameraMotion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vfx: Option<Vfx>,
}

/// The value given to one template field: text `{"value"}` or image `{"url"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TemplateValue {
    Text { value: String },
    Image { url: String },
}

/// An intro or outro: a template id and values for its fields, keyed by field key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateSlot {
    pub template: String,
    #[serde(default)]
    pub config: BTreeMap<String, TemplateValue>,
}

/// Branding as requested. After normalization it exists only when something was asked for:
/// an intro, an outro or the speed ramp (CONTRACT §4).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrandingRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
    #[serde(default)]
    pub speed_ramp: bool,
}

impl BrandingRequest {
    /// Whether this asks for any branding at all.
    pub fn is_requested(&self) -> bool {
        self.intro.is_some() || self.outro.is_some() || self.speed_ramp
    }
}

/// `POST /create_video`, normalized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateVideoRequest {
    pub image_inputs: Vec<ImageInput>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_url: Option<String>,
    pub ai_engine: Engine,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branding: Option<BrandingRequest>,
    /// Where the completion events of this video are sent (same URL rules as `image_url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
}

/// `POST /combine_video_clips`, normalized. The boolean form of `branding` has become the object
/// form (`true` → `{"speed_ramp": true}`, `false` → none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombineVideoClipsRequest {
    pub video_clip_uuids: Vec<Uuid>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branding: Option<BrandingRequest>,
    /// Where the completion events of this video are sent (same URL rules as `image_url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
}

/// `POST /create_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateProjectRequest {
    pub name: String,
}
