//! The stillreel rules for JavaScript: a thin wasm-bindgen adapter over `stillreel-core`.
//!
//! Every export has the same three steps: take the JS value in ([`io`]), call the core, hand a
//! JSON-compatible value out ([`io::to_js`], or [`io::to_js_large`] for the validators, whose
//! results grow with the body). Invalid user input comes back as data
//! (`{ok: false, errors}`) with the very field paths, codes and messages the server's 422 carries,
//! because the body goes through the same JSON parser and the same rules. Only a value of the
//! wrong shape (a body that is not an object, options that are not options) throws.

use serde::Serialize;
use stillreel_core::{FieldError, Rejection};
use wasm_bindgen::prelude::*;

mod forms;
mod io;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod ts;

pub use forms::*;
use io::{OptionsWire, body_json, fail, to_js_large};

/// The result of validating a body: every error, or the body with every default filled in.
#[derive(Debug, Serialize)]
pub struct Outcome<T> {
    /// Whether the server would accept the body (as far as rules without a database go).
    pub ok: bool,
    /// Every failing field, in the server's order; empty when `ok`.
    pub errors: Vec<FieldError>,
    /// The normalized request when `ok`, else `null`.
    pub normalized: Option<T>,
}

impl<T> Outcome<T> {
    /// Turns the core's answer into data. A malformed body (not a JSON object) is the caller's
    /// bug, not the user's, so it stays an error: the message the server's 400 carries.
    pub fn from_core(result: Result<T, Rejection>) -> Result<Self, String> {
        match result {
            Ok(normalized) => Ok(Self {
                ok: true,
                errors: Vec::new(),
                normalized: Some(normalized),
            }),
            Err(Rejection::Invalid(errors)) => Ok(Self {
                ok: false,
                errors,
                normalized: None,
            }),
            Err(Rejection::Malformed(message)) => Err(message),
        }
    }

    /// [`Outcome::from_core`] for JavaScript: a malformed body throws.
    fn respond(result: Result<T, Rejection>) -> Result<JsValue, JsError>
    where
        T: Serialize,
    {
        to_js_large(&Self::from_core(result).map_err(|message| fail(&message))?)
    }
}

/// Validates a `POST /create_video` body as the server would.
#[wasm_bindgen(js_name = validateCreateVideo, unchecked_return_type = "ValidationResult<CreateVideoRequest>")]
pub fn validate_create_video(
    body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    let (json, options) = (body_json(&body)?, OptionsWire::from_js(&options)?);
    Outcome::respond(stillreel_core::validate_create_video(
        &json,
        &options.as_options(),
    ))
}

/// Validates a `POST /combine_video_clips` body as the server would, before it looks the clips
/// up (the cross-clip rule is [`check_combine_clips`]).
#[wasm_bindgen(
    js_name = validateCombineVideoClips,
    unchecked_return_type = "ValidationResult<CombineVideoClipsRequest>"
)]
pub fn validate_combine_video_clips(
    body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    let (json, options) = (body_json(&body)?, OptionsWire::from_js(&options)?);
    Outcome::respond(stillreel_core::validate_combine_video_clips(
        &json,
        &options.as_options(),
    ))
}

/// Validates a `POST /create_project` body as the server would.
#[wasm_bindgen(js_name = validateCreateProject, unchecked_return_type = "ValidationResult<CreateProjectRequest>")]
pub fn validate_create_project(body: JsValue) -> Result<JsValue, JsError> {
    let json = body_json(&body)?;
    Outcome::respond(stillreel_core::validate_create_project(&json))
}
