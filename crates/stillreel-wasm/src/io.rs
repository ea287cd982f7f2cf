//! The adapter's three helpers: JS value in, JS value out, and the one way to throw.

use js_sys::JsString;
use serde::{Deserialize, Serialize};
use stillreel_core::{Engine, Options, Template, TemplateList, VfxType};
use wasm_bindgen::prelude::*;

/// The one error helper: a JS `Error` with a sentence for people.
pub fn fail(message: &str) -> JsError {
    JsError::new(message)
}

/// The value out, always through the JSON-compatible serializer: `None` becomes `null` and maps
/// become plain objects, so the result equals the server's JSON.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|err| fail(&format!("stillreel: cannot convert the result: {err}")))
}

/// The value out for results that grow with the body (a normalized 20-image request): the
/// server's own serializer (serde_json) writes the text and `JSON.parse` builds the objects.
/// Same JSON as [`to_js`], but one call across the boundary instead of one per member; in
/// Chromium this took the 20-image benchmark from 54 to 38 µs (docs/BENCHMARKS.md).
pub fn to_js_large<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value)
        .map_err(|err| fail(&format!("stillreel: cannot convert the result: {err}")))?;
    js_sys::JSON::parse(&text).map_err(|_| fail("stillreel: cannot convert the result"))
}

/// A value as JSON text: the JS string `JSON.stringify` made, and its copy in wasm memory.
/// `JSON.stringify` throws on cycles and BigInt, and gives `undefined` for `undefined`.
#[derive(Debug)]
pub struct JsonText {
    /// The text as a JS string (kept to validate again later without stringifying again).
    pub js: JsString,
    /// The same text in wasm memory, for the core.
    pub text: String,
}

impl JsonText {
    /// A request body: a JS value that `JSON.stringify` can write.
    pub fn of_body(body: &JsValue) -> Result<Self, JsError> {
        Self::of(body, "the body")
    }

    /// `value` as JSON text; `what` names it in the error.
    pub fn of(value: &JsValue, what: &str) -> Result<Self, JsError> {
        let js = js_sys::JSON::stringify(value).map_err(|_| {
            fail(&format!(
                "{what} cannot be turned into JSON (cyclic, or holds a BigInt)"
            ))
        })?;
        let text = js.as_string().ok_or_else(|| {
            fail(&format!(
                "{what} must be a JSON object, not undefined or a function"
            ))
        })?;
        Ok(Self { js, text })
    }

    /// JSON text that is already a JS string (a body kept from an earlier call).
    pub fn of_text(js: JsString) -> Self {
        let text = String::from(&js);
        Self { js, text }
    }
}

/// A value given as JSON, `undefined` and `null` meaning "not given".
pub fn from_js<T: for<'de> Deserialize<'de>>(
    value: &JsValue,
    what: &str,
) -> Result<Option<T>, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let json = JsonText::of(value, "the value")?;
    serde_json::from_str(&json.text)
        .map(Some)
        .map_err(|err| fail(&format!("{what}: {err}")))
}

/// The templates option: the `/get_templates` response as is, or its `templates` array.
#[derive(Debug, Deserialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
#[serde(untagged)]
enum TemplatesWire {
    List(Vec<Template>),
    Response(TemplateList),
}

/// `options` as JavaScript passes it: what only a deployment or an account knows.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
#[cfg_attr(all(test, not(target_arch = "wasm32")), schema(as = ValidateOptions))]
#[serde(deny_unknown_fields)]
pub struct OptionsWire {
    /// The account's clip limit per video (default 20).
    clip_limit: Option<usize>,
    /// The `GET /get_templates` response, or its `templates` array.
    #[cfg_attr(all(test, not(target_arch = "wasm32")), schema(inline))]
    templates: Option<TemplatesWire>,
    /// The vfx types the deployment renders (`GET /get_engines`).
    available_vfx: Option<Vec<VfxType>>,
    /// The engine of requests that name none (default v25).
    default_engine: Option<Engine>,
}

impl OptionsWire {
    pub fn from_js(value: &JsValue) -> Result<Self, JsError> {
        Self::snapshot(value).map(|(options, _)| options)
    }

    /// The options and their JSON text (`undefined` when not given), to read them again later
    /// exactly as they were.
    pub fn snapshot(value: &JsValue) -> Result<(Self, JsValue), JsError> {
        if value.is_undefined() || value.is_null() {
            return Ok((Self::default(), JsValue::UNDEFINED));
        }
        let json = JsonText::of(value, "options")?;
        Ok((Self::parse(&json.text)?, json.js.into()))
    }

    /// Options from [`OptionsWire::snapshot`]'s text.
    pub fn from_snapshot(text: &JsValue) -> Result<Self, JsError> {
        text.as_string()
            .map_or_else(|| Ok(Self::default()), |text| Self::parse(&text))
    }

    fn parse(text: &str) -> Result<Self, JsError> {
        serde_json::from_str(text).map_err(|err| fail(&format!("invalid options: {err}")))
    }

    /// Borrows these as core [`Options`], the built-in defaults filling the gaps.
    pub fn as_options(&self) -> Options<'_> {
        let defaults = Options::default();
        Options {
            clip_limit: self.clip_limit.unwrap_or(defaults.clip_limit),
            templates: match &self.templates {
                None => defaults.templates,
                Some(TemplatesWire::List(list)) => list,
                Some(TemplatesWire::Response(response)) => &response.templates,
            },
            available_vfx: self
                .available_vfx
                .as_deref()
                .unwrap_or(defaults.available_vfx),
            default_engine: self.default_engine.unwrap_or(defaults.default_engine),
        }
    }
}
