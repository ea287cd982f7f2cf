//! The stillreel rules for JavaScript: a thin wasm-bindgen adapter over `stillreel-core`.
//!
//! Every export has the same three steps: take the JS value in ([`io`]), call the core, hand a
//! JSON-compatible value out ([`io::to_js`], or [`io::to_js_large`] for the validators, whose
//! results grow with the body). Invalid user input comes back as data
//! (`{ok: false, errors}`) with the very field paths, codes and messages the server's 422 carries,
//! because the body goes through the same JSON parser and the same rules. Only a value of the
//! wrong shape (a body that is not an object, options that are not options) throws.

use serde::Serialize;
use stillreel_core::{FieldError, OptionsData, Rejection};
use wasm_bindgen::prelude::*;

mod forms;
mod io;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod ts;

pub use forms::*;
use io::{JsonText, fail, options_from_snapshot, options_snapshot, to_js_large};
use js_sys::JsString;

/// The result of validating a body: every error, or the body with every default filled in.
#[derive(Debug, Serialize)]
#[cfg_attr(all(test, not(target_arch = "wasm32")), derive(utoipa::ToSchema))]
pub struct Outcome<T> {
    /// Whether the server would accept the body (as far as rules without a database go).
    pub ok: bool,
    /// The failing fields, in the server's order and cut where the server cuts them (100);
    /// empty when `ok`.
    pub errors: Vec<FieldError>,
    /// How many fields failed in all, on a rejection (absent when `ok`); more than
    /// `errors.length` when the list was cut.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(all(test, not(target_arch = "wasm32")), schema(value_type = Option<usize>))]
    pub error_count: usize,
    /// Present and `true` only when `errors` was cut (the server's `error.truncated`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(all(test, not(target_arch = "wasm32")), schema(value_type = Option<bool>))]
    pub truncated: bool,
    /// The normalized request when `ok`, else `null`.
    #[cfg_attr(all(test, not(target_arch = "wasm32")), schema(required = true))]
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
                error_count: 0,
                truncated: false,
                normalized: Some(normalized),
            }),
            Err(Rejection::Invalid { errors, total }) => Ok(Self {
                ok: false,
                truncated: total > errors.len(),
                error_count: total,
                errors,
                normalized: None,
            }),
            Err(Rejection::Malformed(message)) => Err(message),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The three validators, named for the lazy `normalized` of an accepted body (below).
#[derive(Debug, Clone, Copy)]
enum Validator {
    CreateVideo = 0,
    CombineVideoClips = 1,
    CreateProject = 2,
    CreateBrandKit = 3,
    UpdateBrandKit = 4,
}

impl Validator {
    fn from_code(code: u32) -> Option<Self> {
        [
            Self::CreateVideo,
            Self::CombineVideoClips,
            Self::CreateProject,
            Self::CreateBrandKit,
            Self::UpdateBrandKit,
        ]
        .into_iter()
        .find(|v| *v as u32 == code)
    }

    /// The core's answer for a body's JSON text.
    fn run(self, json: &str, options: &OptionsData) -> Result<Box<dyn AsJson>, Rejection> {
        fn boxed<T: Serialize + 'static>(value: T) -> Box<dyn AsJson> {
            Box::new(value)
        }
        let options = options.as_options();
        match self {
            Self::CreateVideo => stillreel_core::validate_create_video(json, &options).map(boxed),
            Self::CombineVideoClips => {
                stillreel_core::validate_combine_video_clips(json, &options).map(boxed)
            }
            Self::CreateProject => stillreel_core::validate_create_project(json).map(boxed),
            Self::CreateBrandKit => {
                stillreel_core::validate_create_brand_kit(json, options.templates).map(boxed)
            }
            Self::UpdateBrandKit => {
                stillreel_core::validate_update_brand_kit(json, options.templates).map(boxed)
            }
        }
    }

    /// Validates `body` and answers `{ok, errors, normalized}`; a malformed body throws.
    ///
    /// For an accepted body, `normalized` is built when first read: the getter of
    /// [`accepted`] runs the same validator on the same JSON text and options again and
    /// returns the normalized body. A form validates on every keystroke and reads `normalized`
    /// once, at submit; writing a 20-image body's normalized JSON, decoding it and parsing it
    /// into objects on every call was 13 of the 34 µs a validation took in Chromium
    /// (docs/BENCHMARKS.md). Every rule and the whole normalization run on every call; only
    /// the conversion to JavaScript objects waits. The text is a snapshot, so later changes to
    /// `body` or `options` do not reach `normalized`, and nothing is held in wasm memory.
    /// (Holding the normalized Rust value for a FinalizationRegistry to free was tried: wasm
    /// memory grew without bound in a synchronous loop, where finalizers never run.)
    fn respond(self, body: &JsValue, options: &JsValue) -> Result<JsValue, JsError> {
        let body = JsonText::of_body(body)?;
        let (data, options) = options_snapshot(options)?;
        // The normalized value itself is dropped here; the getter makes it again on demand.
        let result = self.run(&body.text, &data).map(drop);
        match Outcome::from_core(result).map_err(|message| fail(&message))? {
            Outcome { ok: true, .. } => Ok(RENORMALIZE
                .with(|renormalize| accepted(renormalize, self as u32, &body.js, &options))),
            rejected => to_js_large(&rejected),
        }
    }

    /// The normalized body of an earlier accepted call, as JavaScript objects.
    fn normalized(self, body: JsString, options: &JsValue) -> Result<JsValue, JsError> {
        let body = JsonText::of_text(body);
        let options = options_from_snapshot(options)?;
        let normalized = self
            .run(&body.text, &options)
            .map_err(|_| fail("stillreel: the body no longer validates"))?;
        let text = normalized
            .json()
            .map_err(|err| fail(&format!("stillreel: cannot convert the result: {err}")))?;
        js_sys::JSON::parse(&text).map_err(|_| fail("stillreel: cannot convert the result"))
    }
}

/// A normalized request of any of the three kinds, written as the server's JSON.
trait AsJson {
    fn json(&self) -> serde_json::Result<String>;
}

impl<T: Serialize> AsJson for T {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

thread_local! {
    /// The getter's way back into wasm: one JS function for the module's lifetime.
    static RENORMALIZE: JsValue = {
        let closure = Closure::<dyn Fn(u32, JsString, JsValue) -> Result<JsValue, JsValue>>::new(
            |code: u32, body: JsString, options: JsValue| {
                Validator::from_code(code)
                    .ok_or_else(|| fail("stillreel: unknown validator"))
                    .and_then(|validator| validator.normalized(body, &options))
                    .map_err(JsValue::from)
            },
        );
        closure.into_js_value()
    };
}

#[wasm_bindgen(inline_js = r#"
// `{ok: true, errors: [], normalized}`: `normalized` is made on first read by running the
// validator again on the kept JSON text, then kept. It is an own, enumerable, writable member
// like any other: JSON.stringify, spreading, structuredClone and assignment behave as with a
// plain value.
export function accepted(renormalize, validator, body, options) {
  let value;
  let pending = true;
  return {
    ok: true,
    errors: [],
    get normalized() {
      if (pending) { value = renormalize(validator, body, options); pending = false; }
      return value;
    },
    set normalized(next) { value = next; pending = false; },
  };
}
"#)]
extern "C" {
    /// The outcome of an accepted body.
    fn accepted(
        renormalize: &JsValue,
        validator: u32,
        body: &JsString,
        options: &JsValue,
    ) -> JsValue;
}

/// Validates a `POST /create_video` body as the server would.
#[wasm_bindgen(js_name = validateCreateVideo, unchecked_return_type = "ValidationResult<CreateVideoRequest>")]
pub fn validate_create_video(
    body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    Validator::CreateVideo.respond(&body, &options)
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
    Validator::CombineVideoClips.respond(&body, &options)
}

/// Validates a `POST /create_brand_kit` body as the server would (templates from `options`).
#[wasm_bindgen(js_name = validateCreateBrandKit, unchecked_return_type = "ValidationResult<BrandKitBody>")]
pub fn validate_create_brand_kit(
    body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    Validator::CreateBrandKit.respond(&body, &options)
}

/// Validates a `POST /update_brand_kit` body as the server would (templates from `options`).
#[wasm_bindgen(
    js_name = validateUpdateBrandKit,
    unchecked_return_type = "ValidationResult<UpdateBrandKitRequest>"
)]
pub fn validate_update_brand_kit(
    body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ValidateOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsError> {
    Validator::UpdateBrandKit.respond(&body, &options)
}

/// Validates a `POST /create_project` body as the server would.
#[wasm_bindgen(js_name = validateCreateProject, unchecked_return_type = "ValidationResult<CreateProjectRequest>")]
pub fn validate_create_project(body: JsValue) -> Result<JsValue, JsError> {
    Validator::CreateProject.respond(&body, &JsValue::UNDEFINED)
}
