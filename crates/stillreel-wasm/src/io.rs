//! The adapter's three helpers: JS value in, JS value out, and the one way to throw.

use js_sys::JsString;
use serde::{Deserialize, Serialize};
use stillreel_core::OptionsData;
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

/// `options` as JavaScript passes them: the core's [`OptionsData`] (what only a deployment or an
/// account knows), `undefined` and `null` meaning none.
pub fn options_from_js(value: &JsValue) -> Result<OptionsData, JsError> {
    options_snapshot(value).map(|(options, _)| options)
}

/// The options and their JSON text (`undefined` when not given), to read them again later
/// exactly as they were.
pub fn options_snapshot(value: &JsValue) -> Result<(OptionsData, JsValue), JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok((OptionsData::default(), JsValue::UNDEFINED));
    }
    let json = JsonText::of(value, "options")?;
    Ok((parse_options(&json.text)?, json.js.into()))
}

/// Options from [`options_snapshot`]'s text.
pub fn options_from_snapshot(text: &JsValue) -> Result<OptionsData, JsError> {
    text.as_string()
        .map_or_else(|| Ok(OptionsData::default()), |text| parse_options(&text))
}

fn parse_options(text: &str) -> Result<OptionsData, JsError> {
    serde_json::from_str(text).map_err(|err| fail(&format!("invalid options: {err}")))
}
