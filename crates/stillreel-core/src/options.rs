//! What only a deployment or an account knows, which the validators take beside the body: the
//! clip limit, the template catalog, the effects and engines it renders, its default engine. [`Options`]
//! borrows them (the server's form); [`OptionsData`] owns them as JSON gives them (the wasm
//! module's and the case tables' form).

use crate::catalog::builtin_templates;
use crate::limits::DEFAULT_CLIP_LIMIT;
use crate::types::{Engine, Template, TemplateList, VfxType};

/// The procedural effects: what the built-in engine renders with no provider.
pub const PROCEDURAL_VFX: &[VfxType] = &[
    VfxType::DayToTwilight,
    VfxType::CatchTheSunshine,
    VfxType::PencilSketch,
    VfxType::StaticCeilingFan,
    VfxType::SwayTrees,
    VfxType::HouseDrop,
    VfxType::Construction,
    VfxType::StarryNight,
    VfxType::Shadows,
    VfxType::WordDrop,
];

/// What only a deployment or an account knows. `Options::default()` is the built-in
/// deployment: built-in templates, the default clip limit, the procedural effects, engine v25.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The account's clip limit per video.
    pub clip_limit: usize,
    /// The template catalog.
    pub templates: &'a [Template],
    /// The vfx types this deployment can render.
    pub available_vfx: &'a [VfxType],
    /// The engines this deployment renders: v24 and v25 always, `generative` where the `clip`
    /// provider role is configured.
    pub available_engines: &'a [Engine],
    /// The engine of requests that name none.
    pub default_engine: Engine,
}

impl Default for Options<'static> {
    fn default() -> Self {
        Self {
            clip_limit: DEFAULT_CLIP_LIMIT,
            templates: builtin_templates(),
            available_vfx: PROCEDURAL_VFX,
            available_engines: Engine::BUILT_IN,
            default_engine: Engine::V25,
        }
    }
}

/// The validators' `options` as data (JSON from the wasm module or a case table): what only a
/// deployment or an account knows. Every member is optional; a missing one takes the built-in
/// default.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "schema", schema(as = ValidateOptions))]
#[serde(deny_unknown_fields)]
pub struct OptionsData {
    /// The account's clip limit per video (default 20).
    #[serde(default)]
    pub clip_limit: Option<usize>,
    /// The `GET /get_templates` response, or its `templates` array.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(inline))]
    pub templates: Option<TemplatesData>,
    /// The vfx types the deployment renders (`GET /get_engines`).
    #[serde(default)]
    pub available_vfx: Option<Vec<VfxType>>,
    /// The engines the deployment renders (the `id`s `GET /get_engines` lists; default v24
    /// and v25).
    #[serde(default)]
    pub available_engines: Option<Vec<Engine>>,
    /// The engine of requests that name none (default v25).
    #[serde(default)]
    pub default_engine: Option<Engine>,
}

/// The template catalog as [`OptionsData`] takes it: the list, or the `GET /get_templates`
/// response that holds it (what a browser form has at hand).
#[derive(Debug, Clone, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum TemplatesData {
    List(Vec<Template>),
    Response(TemplateList),
}

impl TemplatesData {
    /// The templates, whichever form they came in.
    pub fn templates(&self) -> &[Template] {
        match self {
            Self::List(list) => list,
            Self::Response(response) => &response.templates,
        }
    }
}

impl OptionsData {
    /// Borrows these as [`Options`], filling gaps with the defaults.
    pub fn as_options(&self) -> Options<'_> {
        let defaults = Options::default();
        Options {
            clip_limit: self.clip_limit.unwrap_or(defaults.clip_limit),
            templates: self
                .templates
                .as_ref()
                .map_or(defaults.templates, TemplatesData::templates),
            available_vfx: self
                .available_vfx
                .as_deref()
                .unwrap_or(defaults.available_vfx),
            available_engines: self
                .available_engines
                .as_deref()
                .unwrap_or(defaults.available_engines),
            default_engine: self.default_engine.unwrap_or(defaults.default_engine),
        }
    }
}
