//! The properties the fuzz targets check, one function per target. Each takes the raw bytes
//! libFuzzer made and panics when a property fails; a panic is what libFuzzer reports as a
//! crash. They live here, in a stable crate of the workspace, so `cargo test` replays the
//! committed corpus (`fuzz/corpus/<target>/`) through the same code without nightly.
//!
//! - [`create_video`], [`combine`]: the validators never panic, refuse exactly the bodies
//!   `serde_json` cannot read as an object as malformed, give every field error a path and a
//!   sentence, and accept their own normalized output unchanged.
//! - [`json_reader`]: the core's arena JSON reader accepts exactly what `serde_json` accepts
//!   and builds the same tree.
//! - [`nfc`]: the core's NFC composer agrees with `unicode-normalization`'s `nfc()`.
//! - [`url`]: every URL the core's rule accepts is one the fetcher's parser (the `url`
//!   crate) reads as `http`/`https` with a host and no credentials, or refuses for its host
//!   alone (see the function).

use serde_json::Value;
use stillreel_core::{
    ErrorCode, Options, Rejection, validate_combine_video_clips, validate_create_video,
};
use unicode_normalization::UnicodeNormalization;

/// A property: panics when `data` breaks it.
pub type Check = fn(&[u8]);

/// The fuzz targets, by name (the folder of each one's corpus).
pub const TARGETS: &[(&str, Check)] = &[
    ("create_video", create_video),
    ("combine", combine),
    ("json_reader", json_reader),
    ("nfc", nfc),
    ("url", url),
];

/// `create_video` validation of a raw body.
pub fn create_video(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = Options::default();
    match validate_create_video(text, &options) {
        Ok(request) => {
            let again = serde_json::to_string(&request).expect("a valid request serializes");
            let second = validate_create_video(&again, &options)
                .unwrap_or_else(|r| panic!("the normalized body {again} is refused: {r:?}"));
            assert_eq!(second, request, "normalizing twice changed {again}");
        }
        Err(rejection) => check_rejection(text, &rejection),
    }
}

/// `combine_video_clips` validation of a raw body.
pub fn combine(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = Options::default();
    match validate_combine_video_clips(text, &options) {
        Ok(request) => {
            let again = serde_json::to_string(&request).expect("a valid request serializes");
            let second = validate_combine_video_clips(&again, &options)
                .unwrap_or_else(|r| panic!("the normalized body {again} is refused: {r:?}"));
            assert_eq!(second, request, "normalizing twice changed {again}");
        }
        Err(rejection) => check_rejection(text, &rejection),
    }
}

/// A refusal is "malformed" exactly when `serde_json` cannot read the text as an object;
/// otherwise it lists field errors, each with a path and a message.
fn check_rejection(text: &str, rejection: &Rejection) {
    let object = matches!(serde_json::from_str::<Value>(text), Ok(Value::Object(_)));
    let malformed = matches!(rejection, Rejection::Malformed(_));
    assert_eq!(
        malformed, !object,
        "malformed = {malformed} but serde_json reads an object = {object}: {rejection:?}"
    );
    if !malformed {
        let errors = rejection.field_errors();
        assert!(!errors.is_empty(), "an invalid body with no errors");
        for error in errors {
            // The one empty path: a member whose key is the empty string, refused by name.
            let empty_key = error.code == ErrorCode::UnknownField
                && error.message.starts_with(" is not a known field");
            assert!(
                !error.field.is_empty() || empty_key,
                "an error without a path: {error:?}"
            );
            assert!(
                !error.message.is_empty(),
                "an error without a message: {error:?}"
            );
        }
    }
}

/// The arena JSON reader against `serde_json`.
pub fn json_reader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = stillreel_core::json_reader_view(text);
    let theirs = serde_json::from_str::<Value>(text).map(zero_numbers);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "different trees for {text:?}"),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("{text:?}: the reader says {ours:?}, serde_json {theirs:?}"),
    }
}

/// The reader keeps no number values; compare shapes.
fn zero_numbers(value: Value) -> Value {
    match value {
        Value::Number(_) => Value::from(0),
        Value::Array(items) => Value::Array(items.into_iter().map(zero_numbers).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, zero_numbers(v))).collect())
        }
        other => other,
    }
}

/// The core's NFC against `unicode-normalization`.
pub fn nfc(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let ours = stillreel_core::rules::nfc::nfc(&text);
    let theirs: String = text.nfc().collect();
    assert_eq!(ours, theirs, "NFC of {text:?}");
}

/// The core's URL rule against the `url` crate the fetcher parses with.
pub fn url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if stillreel_core::rules::url::check(text).is_err() {
        return;
    }
    let parsed = match ::url::Url::parse(text) {
        Ok(parsed) => parsed,
        // The rule checks host syntax without IDNA or WHATWG number tables (they would double
        // the wasm module): a host it accepts may still fail the fetcher's host parsing
        // (invalid punycode, a percent-escape that decodes to a forbidden character, a
        // numeric last label read as a bad IPv4 address). Such a request is accepted and its
        // job fails with `media_unreachable` before any connection; no other disagreement is
        // allowed.
        Err(
            ::url::ParseError::IdnaError
            | ::url::ParseError::InvalidDomainCharacter
            | ::url::ParseError::InvalidIpv4Address,
        ) => return,
        Err(e) => panic!("{text:?} passes the rule but the url crate says {e}"),
    };
    assert!(
        matches!(parsed.scheme(), "http" | "https"),
        "{text:?} passes the rule with scheme {}",
        parsed.scheme()
    );
    assert!(
        parsed.host_str().is_some_and(|h| !h.is_empty()),
        "{text:?} passes the rule without a host"
    );
    assert!(
        parsed.username().is_empty() && parsed.password().is_none(),
        "{text:?} passes the rule with credentials"
    );
}
