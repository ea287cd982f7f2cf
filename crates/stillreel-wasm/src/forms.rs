//! What a form needs to build itself from the core's rules: the vfx table with its config
//! fields, camera motions per engine, engines, templates, limits, the word-drop sanitizer and
//! combine's cross-clip rule.

use serde::{Deserialize, Serialize};
use stillreel_core::rules::word_drop;
use stillreel_core::types::ConfigField;
use stillreel_core::{
    ClipFacts, Engine, FieldError, Orientation, Resolution, VfxType, catalog, check_combine_clips,
    limits,
};
use wasm_bindgen::prelude::*;

use crate::io::{fail, from_js, options_from_js, to_js};

/// One vfx type as a form shows it.
#[derive(Debug, Serialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
pub struct VfxTypeInfo {
    #[serde(rename = "type")]
    pub kind: VfxType,
    /// Needs a generative provider.
    pub generative: bool,
    /// Renderable on this deployment (`options.available_vfx`).
    pub available: bool,
    /// The members of `config`; empty for the ten types that take none.
    pub config_fields: &'static [ConfigField],
}

/// The numbers a form shows next to its fields.
#[derive(Debug, Serialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
pub struct Limits {
    pub default_clip_limit: usize,
    pub word_drop_max_chars: usize,
    pub max_url_chars: usize,
    pub project_name_max_chars: usize,
}

/// The outcome of combine's cross-clip rule.
#[derive(Debug, Serialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
pub struct ClipCheck {
    pub ok: bool,
    /// One `mismatch` per offending element of `video_clip_uuids`.
    pub errors: Vec<FieldError>,
    /// The engine of the combined video when `ok`.
    #[cfg_attr(all(test, not(target_arch = "wasm32")), schema(required = true))]
    pub engine: Option<Engine>,
}

/// The facts of one clip, spelled as clip records spell them: what `checkCombineClips` needs
/// of each clip.
#[derive(Debug, Deserialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
#[cfg_attr(all(test, not(target_arch = "wasm32")), schema(as = ClipFactsInput))]
struct ClipFactsWire {
    orientation: Orientation,
    resolution: Resolution,
    ai_engine: Engine,
}

/// word-drop text as the renderer will draw it, with its length and the limit ("n / 16").
#[wasm_bindgen(js_name = sanitizeWordDropText, unchecked_return_type = "SanitizedText")]
pub fn sanitize_word_drop_text(text: &str) -> Result<JsValue, JsError> {
    to_js(&word_drop::sanitize(text))
}

/// Every vfx type, with its config fields (allowed values, defaults) and availability.
#[wasm_bindgen(js_name = vfxTypes, unchecked_return_type = "VfxTypeInfo[]")]
pub fn vfx_types(
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    let options = options_from_js(&options)?;
    let available = options.as_options().available_vfx;
    let list: Vec<VfxTypeInfo> = VfxType::ALL
        .iter()
        .map(|&kind| VfxTypeInfo {
            kind,
            generative: kind.is_generative(),
            available: available.contains(&kind),
            config_fields: kind.config_fields(),
        })
        .collect();
    to_js(&list)
}

/// The camera motions `engine` can render.
#[wasm_bindgen(js_name = cameraMotions, unchecked_return_type = "CameraMotion[]")]
pub fn camera_motions(
    #[wasm_bindgen(unchecked_param_type = "Engine")] engine: JsValue,
) -> Result<JsValue, JsError> {
    let engine: Engine =
        from_js(&engine, "invalid engine")?.ok_or_else(|| fail("an engine is required"))?;
    to_js(&catalog::camera_motions(engine))
}

/// The engines as `GET /get_engines` lists them, for the deployment `options` describe.
#[wasm_bindgen(unchecked_return_type = "EngineInfo[]")]
pub fn engines(
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    let options = options_from_js(&options)?;
    let options = options.as_options();
    to_js(&catalog::engines(
        options.default_engine,
        options.available_engines,
        options.available_vfx,
    ))
}

/// The built-in templates, in the `GET /get_templates` shape.
#[wasm_bindgen(js_name = builtinTemplates, unchecked_return_type = "Template[]")]
pub fn builtin_templates() -> Result<JsValue, JsError> {
    to_js(catalog::builtin_templates())
}

/// The API's limits.
#[wasm_bindgen(unchecked_return_type = "Limits")]
pub fn limits() -> Result<JsValue, JsError> {
    to_js(&Limits {
        default_clip_limit: limits::DEFAULT_CLIP_LIMIT,
        word_drop_max_chars: limits::WORD_DROP_MAX_CHARS,
        max_url_chars: limits::MAX_URL_CHARS,
        project_name_max_chars: limits::PROJECT_NAME_MAX_CHARS,
    })
}

/// Combine's cross-clip rule, given the clips' records (or anything with their `orientation`,
/// `resolution` and `ai_engine`), in `video_clip_uuids` order.
#[wasm_bindgen(js_name = checkCombineClips, unchecked_return_type = "ClipCheck")]
pub fn check_combine_clips_js(
    #[wasm_bindgen(unchecked_param_type = "Orientation")] orientation: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Resolution")] resolution: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ClipFactsInput[]")] clips: JsValue,
) -> Result<JsValue, JsError> {
    let orientation = from_js(&orientation, "invalid orientation")?
        .ok_or_else(|| fail("an orientation is required"))?;
    let resolution = from_js(&resolution, "invalid resolution")?
        .ok_or_else(|| fail("a resolution is required"))?;
    let clips: Vec<ClipFactsWire> = from_js(&clips, "invalid clips")?.unwrap_or_default();
    let facts: Vec<ClipFacts> = clips
        .iter()
        .map(|c| ClipFacts {
            orientation: c.orientation,
            resolution: c.resolution,
            engine: c.ai_engine,
        })
        .collect();
    let check = match check_combine_clips(orientation, resolution, &facts) {
        Ok(engine) => ClipCheck {
            ok: true,
            errors: Vec::new(),
            engine: Some(engine),
        },
        Err(errors) => ClipCheck {
            ok: false,
            errors,
            engine: None,
        },
    };
    to_js(&check)
}

/// `ClipFactsInput`: the private [`ClipFactsWire`]'s schema, for `ts.rs`.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) fn clip_facts_declaration() -> stillreel_core::schema::Declaration {
    use utoipa::{PartialSchema, ToSchema};
    stillreel_core::schema::Declaration {
        name: ClipFactsWire::name().into_owned(),
        schema: stillreel_core::schema::to_json(&ClipFactsWire::schema()),
    }
}
