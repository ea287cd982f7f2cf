//! The one runner of the case table, shared by the core's native test
//! (`crates/stillreel-core/tests/cases.rs`) and the wasm module's tests (`native.rs`, and
//! `browser.rs` in headless Chromium), which include this file with `#[path]`.
//!
//! The tables are compiled in, because a wasm test cannot read the disk; the core's test fails
//! when [`CASE_FILES`] and `tests/cases/` disagree. A caller turns its validator's answer into
//! an [`Outcome`] and [`check`] compares it with the row.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

macro_rules! case_files {
    ($($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!("cases/", $name)))),+]
    };
}

/// Every case file of `tests/cases/`: name and text.
pub const CASE_FILES: &[(&str, &str)] = case_files!(
    "brand_kit.json",
    "branding.json",
    "combine.json",
    "create_video.json",
    "error_cap.json",
    "image_inputs.json",
    "limits.json",
    "project.json",
    "title.json",
    "urls.json",
    "vfx.json",
    "word_drop.json",
);

/// One row of the table (the format is described in `tests/README.md`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    pub endpoint: String,
    /// The validator's options as JSON; each caller reads them its own way.
    #[serde(default)]
    pub options: Option<Value>,
    /// Kept as written: member order decides the order of errors.
    pub body: Box<RawValue>,
    #[serde(default)]
    pub errors: Option<Vec<ExpectedError>>,
    #[serde(default)]
    pub normalized: Option<Value>,
    #[serde(default)]
    pub malformed: bool,
    /// Every error found, when the list is cut at `MAX_FIELD_ERRORS` (absent: not cut).
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

/// A field error as a validator reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported {
    pub field: String,
    pub code: String,
    pub message: String,
}

/// A validator's answer, in terms both the core and the wasm module can give.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Accepted: the normalized body.
    Accepted(Value),
    /// Rejected: the errors given (cut at the cap) and how many were found in all.
    Rejected { errors: Vec<Reported>, total: usize },
    /// Not a JSON object: the message.
    Malformed(String),
}

impl Outcome {
    /// The wasm adapter's answer as its tests record it: the returned object
    /// (`{ok, errors, error_count?, truncated?, normalized}`), or `{"malformed": message}` for
    /// a thrown error. Checks the object's own consistency on the way.
    pub fn from_adapter(answer: &Value) -> Result<Self, String> {
        if let Some(message) = answer.get("malformed") {
            return message
                .as_str()
                .map(|m| Self::Malformed(m.to_owned()))
                .ok_or_else(|| format!("malformed is not a message: {answer}"));
        }
        let errors = answer["errors"]
            .as_array()
            .ok_or_else(|| format!("errors is not an array: {answer}"))?;
        match answer["ok"] {
            Value::Bool(true) => {
                if !errors.is_empty()
                    || answer.get("error_count").is_some()
                    || answer.get("truncated").is_some()
                {
                    return Err(format!("an accepted body has errors: {answer}"));
                }
                Ok(Self::Accepted(answer["normalized"].clone()))
            }
            Value::Bool(false) => {
                if answer["normalized"] != Value::Null {
                    return Err(format!("a rejected body has a normalized body: {answer}"));
                }
                let total = answer["error_count"]
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| format!("error_count is missing: {answer}"))?;
                let truncated = match answer.get("truncated") {
                    None => false,
                    Some(Value::Bool(true)) => true,
                    Some(other) => return Err(format!("truncated is {other}, not true or absent")),
                };
                if total < errors.len() || truncated != (total > errors.len()) {
                    return Err(format!(
                        "error_count and truncated disagree with errors: {answer}"
                    ));
                }
                let errors = errors
                    .iter()
                    .map(|e| Reported {
                        field: e["field"].as_str().unwrap_or("?").to_owned(),
                        code: e["code"].as_str().unwrap_or("?").to_owned(),
                        message: e["message"].as_str().unwrap_or("").to_owned(),
                    })
                    .collect();
                Ok(Self::Rejected { errors, total })
            }
            _ => Err(format!("ok is not a boolean: {answer}")),
        }
    }
}

/// `(file::name, case)` for every case, in file and row order.
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

/// Fails when [`CASE_FILES`] does not list exactly the files of `tests/cases/` (native only:
/// reads the directory).
#[cfg(not(target_arch = "wasm32"))]
pub fn case_files_out_of_date() -> Result<(), String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|err| format!("{}: {err}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let compiled: Vec<&str> = CASE_FILES.iter().map(|(n, _)| *n).collect();
    if compiled == on_disk {
        Ok(())
    } else {
        Err(format!(
            "tests/cases/ holds {on_disk:?} but CASE_FILES in tests/case_runner.rs lists {compiled:?}"
        ))
    }
}

/// Checks `got`, the answer to the case's body, against the row. For an accepted body,
/// `again` validates the normalized body (same endpoint and options), which must come back
/// unchanged.
pub fn check(
    case: &Case,
    got: &Outcome,
    again: impl FnOnce(&str) -> Result<Outcome, String>,
) -> Result<(), String> {
    match (&case.errors, &case.normalized, case.malformed) {
        (None, None, true) => match got {
            Outcome::Malformed(_) => Ok(()),
            other => Err(format!("expected a malformed rejection, got {other:?}")),
        },
        (None, Some(want), false) => {
            let Outcome::Accepted(normalized) = got else {
                return Err(format!("expected the body to be accepted, got {got:?}"));
            };
            if normalized != want {
                return Err(format!(
                    "normalized body differs\n want: {want}\n  got: {normalized}"
                ));
            }
            match again(&normalized.to_string())? {
                Outcome::Accepted(twice) if &twice == normalized => Ok(()),
                other => Err(format!("normalizing twice changed the body: {other:?}")),
            }
        }
        (Some(want), None, false) => {
            let Outcome::Rejected { errors, total } = got else {
                return Err(format!("expected errors, got {got:?}"));
            };
            check_errors(case, want, errors, *total)
        }
        _ => Err("a case has exactly one of errors, normalized and malformed".to_owned()),
    }
}

fn check_errors(
    case: &Case,
    want: &[ExpectedError],
    got: &[Reported],
    total: usize,
) -> Result<(), String> {
    let want_total = case.total.unwrap_or(want.len());
    if total != want_total {
        return Err(format!(
            "errors in all differ: want {want_total}, got {total}"
        ));
    }
    let got_pairs: Vec<(&str, &str)> = got
        .iter()
        .map(|e| (e.field.as_str(), e.code.as_str()))
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
        if g.message.is_empty() {
            return Err(format!("empty message at {}", g.field));
        }
        if let Some(message) = &w.message
            && &g.message != message
        {
            return Err(format!(
                "message of {} differs\n want: {message}\n  got: {}",
                g.field, g.message
            ));
        }
    }
    Ok(())
}
