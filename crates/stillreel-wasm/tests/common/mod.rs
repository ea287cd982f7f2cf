//! The core's case table, shared by the native snapshot test and the browser test.
//! The files are compiled in (a wasm test cannot read the disk); `native.rs` fails when this
//! list and `tests/cases/` disagree.

#![allow(dead_code)]

use serde::Deserialize;
use serde_json::Value;

macro_rules! case_files {
    ($($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!("../../../../tests/cases/", $name)))),+]
    };
}

/// Every case file: name and text.
pub const CASE_FILES: &[(&str, &str)] = case_files!(
    "branding.json",
    "combine.json",
    "create_video.json",
    "error_cap.json",
    "image_inputs.json",
    "limits.json",
    "project.json",
    "urls.json",
    "vfx.json",
    "word_drop.json",
);

/// The native outcomes of every case, in file and case order (written by `native.rs`).
pub const NATIVE_OUTCOMES: &str = include_str!("../native-outcomes.json");

/// One row of the table, as `crates/stillreel-core/tests/cases.rs` reads it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub endpoint: String,
    #[serde(default)]
    pub options: Option<Value>,
    /// Kept as written: member order matters (unknown members are reported in document order).
    pub body: Box<serde_json::value::RawValue>,
    #[serde(default)]
    pub errors: Option<Vec<ExpectedError>>,
    #[serde(default)]
    pub normalized: Option<Value>,
    #[serde(default)]
    pub malformed: bool,
    /// Every error found, when the list is cut at 100 (absent: not cut).
    #[serde(default)]
    pub total: Option<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    pub field: String,
    pub code: String,
    #[serde(default)]
    pub message: Option<String>,
}

/// `(file::name, case)` for every case, in order.
pub fn all_cases() -> Vec<(String, Case)> {
    CASE_FILES
        .iter()
        .flat_map(|(file, text)| {
            let cases: Vec<Case> = serde_json::from_str(text)
                .unwrap_or_else(|err| panic!("{file} is not a case list: {err}"));
            let stem = file.trim_end_matches(".json");
            cases
                .into_iter()
                .map(move |case| (format!("{stem}::{}", case.name), case))
        })
        .collect()
}

/// The outcome as the snapshot records it: the result object, or `{"malformed": message}`.
pub fn record(result: Result<Value, String>) -> Value {
    match result {
        Ok(outcome) => outcome,
        Err(message) => serde_json::json!({ "malformed": message }),
    }
}

/// Checks an outcome against the case's own expectation (errors with optional message,
/// normalized body, or malformed).
pub fn meets_expectation(case: &Case, outcome: &Value) -> Result<(), String> {
    if case.malformed {
        return match outcome.get("malformed") {
            Some(Value::String(_)) => Ok(()),
            _ => Err(format!("expected a malformed rejection, got {outcome}")),
        };
    }
    if let Some(want) = &case.normalized {
        if outcome["ok"] != Value::Bool(true) || &outcome["normalized"] != want {
            return Err(format!(
                "normalized body differs\n want: {want}\n  got: {outcome}"
            ));
        }
        if outcome["errors"] != serde_json::json!([]) {
            return Err(format!("a valid body has errors: {outcome}"));
        }
        return Ok(());
    }
    let want = case.errors.as_ref().ok_or("case has no expectation")?;
    if outcome["ok"] != Value::Bool(false) || outcome["normalized"] != Value::Null {
        return Err(format!("expected errors, got {outcome}"));
    }
    let got = outcome["errors"]
        .as_array()
        .ok_or("errors is not an array")?;
    let want_total = case.total.unwrap_or(want.len());
    let truncated = want_total > want.len();
    if outcome["error_count"] != serde_json::json!(want_total)
        || outcome.get("truncated") != truncated.then_some(&Value::Bool(true))
    {
        return Err(format!(
            "expected {want_total} errors in all (truncated: {}), got {outcome}",
            want_total > want.len()
        ));
    }
    let got_pairs: Vec<(&str, &str)> = got
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or("?"),
                e["code"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    let want_pairs: Vec<(&str, &str)> = want
        .iter()
        .map(|e| (e.field.as_str(), e.code.as_str()))
        .collect();
    if got_pairs != want_pairs {
        return Err(format!(
            "errors differ\n want: {want_pairs:?}\n  got: {got_pairs:?}"
        ));
    }
    for (g, w) in got.iter().zip(want) {
        if let Some(message) = &w.message
            && g["message"].as_str() != Some(message.as_str())
        {
            return Err(format!(
                "message of {} differs\n want: {message}\n  got: {}",
                w.field, g["message"]
            ));
        }
    }
    Ok(())
}
