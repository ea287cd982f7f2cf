//! The two POST bodies, as they are after validation: every default filled in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{CameraMotion, CaptionStyle, Engine, Fit, Orientation, Resolution, Transition, Vfx};

/// One image of `POST /create_video`: one clip is made from it.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageInput {
    /// Absolute http(s) URL of a JPEG, PNG, WebP or HEIC image, at most 40 MiB and 50
    /// megapixels (deployment settings).
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub image_url: String,
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub camera_motion: CameraMotion,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vfx: Option<Vfx>,
    /// How the photo fills the frame (docs/API-DESIGN.md#framing).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub fit: Fit,
    /// Words drawn over this clip (docs/API-DESIGN.md#captions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<Caption>,
}

/// A clip's caption: at most two lines of text on a plate in the brand's colours.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caption {
    /// The text as drawn (cleaned like template text; a newline starts the second line).
    #[cfg_attr(feature = "schema", schema(max_length = 80))]
    pub text: String,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(required = false, default = "label"))]
    pub style: CaptionStyle,
}

/// The value given to one template field: text `{"value"}` or image `{"url"}`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TemplateValue {
    Text { value: String },
    Image { url: String },
}

/// An intro or outro: a template id and values for its fields, keyed by field key.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateSlot {
    pub template: String,
    /// Values keyed by the template's field keys.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(default = json!({})))]
    pub config: BTreeMap<String, TemplateValue>,
}

/// Branding as requested. After normalization it exists only when something was asked for:
/// an intro, an outro or the speed ramp (docs/API-DESIGN.md#branding).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrandingRequest {
    /// A saved brand kit (`POST /create_brand_kit`) to start from: its intro, outro, speed
    /// ramp and music apply, and the members given beside it replace the kit's
    /// (docs/API-DESIGN.md#brand-kits). The server resolves it before the video is stored, so
    /// a stored request never names a kit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand_kit: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
    /// Asks for the speed ramp; it takes effect with two or more clips.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(default = false))]
    pub speed_ramp: bool,
}

impl BrandingRequest {
    /// Whether this asks for any branding at all.
    pub fn is_requested(&self) -> bool {
        self.brand_kit.is_some() || self.intro.is_some() || self.outro.is_some() || self.speed_ramp
    }

    /// This branding on top of `kit`: a slot given here replaces the kit's, the speed ramp is
    /// on when either asks for it, and the result names no kit.
    pub fn over_kit(&self, kit: &BrandKitBody) -> BrandingRequest {
        BrandingRequest {
            brand_kit: None,
            intro: self.intro.clone().or_else(|| kit.intro.clone()),
            outro: self.outro.clone().or_else(|| kit.outro.clone()),
            speed_ramp: self.speed_ramp || kit.speed_ramp,
        }
    }
}

/// `POST /create_video` body. Validation fills in every default.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateVideoRequest {
    /// One clip per image; at most the account's clip limit.
    #[cfg_attr(feature = "schema", schema(min_items = 1))]
    pub image_inputs: Vec<ImageInput>,
    #[cfg_attr(feature = "schema", schema(required = false, default = "landscape"))]
    pub orientation: Orientation,
    #[cfg_attr(feature = "schema", schema(required = false, default = "720p"))]
    pub resolution: Resolution,
    /// Absolute http(s) URL of the soundtrack; same URL rules as `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub audio_url: Option<String>,
    /// How consecutive clips meet; a blended transition shortens the video by 0.5 s per join.
    #[serde(default, skip_serializing_if = "Transition::is_cut")]
    #[cfg_attr(
        feature = "schema",
        schema(value_type = Option<Transition>, required = false, default = "cut")
    )]
    pub transition: Transition,
    /// Deprecated; defaults to the deployment's default engine (`GET /get_engines`).
    #[cfg_attr(feature = "schema", schema(required = false))]
    pub ai_engine: Engine,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branding: Option<BrandingRequest>,
    /// Where the completion events of this video are sent (see `webhooks`); same URL rules as
    /// `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub webhook_url: Option<String>,
    /// A name for the library (`get_videos?q=` searches it): control, separator and bidi
    /// characters are removed, a newline becomes a space, the ends are trimmed; then 1 to 120
    /// characters. Echoed as cleaned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 120))]
    pub title: Option<String>,
}

/// `POST /combine_video_clips` body. Validation fills in every default and turns the boolean
/// form of `branding` into the object form (`true` → `{"speed_ramp": true}`, `false` → none).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombineVideoClipsRequest {
    /// The clips to join, in order; at most the account's clip limit.
    #[cfg_attr(feature = "schema", schema(min_items = 1))]
    pub video_clip_uuids: Vec<Uuid>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    /// Absolute http(s) URL of the soundtrack; same URL rules as `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub audio_url: Option<String>,
    /// How consecutive clips meet; a blended transition shortens the video by 0.5 s per join.
    #[serde(default, skip_serializing_if = "Transition::is_cut")]
    #[cfg_attr(
        feature = "schema",
        schema(value_type = Option<Transition>, required = false, default = "cut")
    )]
    pub transition: Transition,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(value_type = Option<CombineBranding>))]
    pub branding: Option<BrandingRequest>,
    /// Where the completion events of this video are sent (see `webhooks`); same URL rules as
    /// `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub webhook_url: Option<String>,
    /// A name for the library (`get_videos?q=` searches it): control, separator and bidi
    /// characters are removed, a newline becomes a space, the ends are trimmed; then 1 to 120
    /// characters. Echoed as cleaned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 120))]
    pub title: Option<String>,
}

/// `POST /create_project` body.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateProjectRequest {
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 100))]
    pub name: String,
}

/// A brand kit as saved: `POST /create_brand_kit` body (and, with `uuid`, the body of
/// `POST /update_brand_kit`, which replaces the kit with what it gives). The intro and outro
/// carry the brokerage's field values (logo, headshot, agent name, phone ...); `audio_url` is
/// the default music of videos that use the kit and name none.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrandKitBody {
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 100))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(default = false))]
    pub speed_ramp: bool,
    /// Absolute http(s) URL of the default soundtrack; same URL rules as `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub audio_url: Option<String>,
}

/// `POST /update_brand_kit` body: the kit's `uuid` and its new content (every member of
/// `create_brand_kit`; what is left out is cleared).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateBrandKitRequest {
    pub uuid: Uuid,
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 100))]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outro: Option<TemplateSlot>,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(default = false))]
    pub speed_ramp: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(max_length = 2048))]
    pub audio_url: Option<String>,
}

impl UpdateBrandKitRequest {
    /// The kit's new content.
    pub fn body(&self) -> BrandKitBody {
        BrandKitBody {
            name: self.name.clone(),
            intro: self.intro.clone(),
            outro: self.outro.clone(),
            speed_ramp: self.speed_ramp,
            audio_url: self.audio_url.clone(),
        }
    }
}

#[cfg(feature = "schema")]
pub use combine_branding::CombineBranding;

/// Combine's two-form `branding` schema, beside the request it describes (the enums' schema
/// parts are in `schema_parts`, which names no type). A module of its own so the utoipa
/// traits it implements stay out of the derives' scope above.
#[cfg(feature = "schema")]
mod combine_branding {
    use utoipa::openapi::schema::{Object, OneOfBuilder, Schema, SchemaType, Type};
    use utoipa::openapi::{Ref, RefOr};
    use utoipa::{PartialSchema, ToSchema};

    use super::BrandingRequest;

    /// `POST /combine_video_clips`'s `branding` as sent: the object, or a boolean. Validation
    /// turns `true` into `{"speed_ramp": true}` and `false` into none, so the boolean branch is
    /// `writeOnly`: a normalized body only ever has the object.
    #[derive(Debug)]
    pub struct CombineBranding;

    impl PartialSchema for CombineBranding {
        fn schema() -> RefOr<Schema> {
            let mut flag = Object::with_type(SchemaType::Type(Type::Boolean));
            flag.write_only = Some(true);
            flag.description =
                Some("`true` is `{\"speed_ramp\": true}`, `false` is no branding.".into());
            OneOfBuilder::new()
                .item(Ref::from_schema_name(BrandingRequest::name()))
                .item(flag)
                .description(Some(
                    "Combine's branding: the object, or `true` (= `{\"speed_ramp\": true}`) / `false` (none).",
                ))
                .into()
        }
    }

    impl ToSchema for CombineBranding {
        fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
            schemas.push((
                BrandingRequest::name().into_owned(),
                BrandingRequest::schema(),
            ));
            BrandingRequest::schemas(schemas);
        }
    }
}
