//! The case table: every JSON file in the repository's `tests/cases/` is a list of request bodies with the exact
//! outcome each must have. The wasm module runs the same files in Chromium.
//! Each case is its own named test (libtest-mimic), so a failure names the rule that broke.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use serde::Deserialize;
use serde_json::Value;
use stillreel_core::{
    OptionsData, Rejection, validate_combine_video_clips, validate_create_project,
    validate_create_video,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    endpoint: String,
    #[serde(default)]
    options: Option<OptionsData>,
    /// Kept as text so member order (which decides error order) survives.
    body: Box<serde_json::value::RawValue>,
    #[serde(default)]
    errors: Option<Vec<ExpectedError>>,
    #[serde(default)]
    normalized: Option<Value>,
    #[serde(default)]
    malformed: bool,
    /// Every error found, when the list is cut at `MAX_FIELD_ERRORS` (absent: not cut).
    #[serde(default)]
    total: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedError {
    field: String,
    code: String,
    #[serde(default)]
    message: Option<String>,
}

fn run(
    endpoint: &str,
    json: &str,
    options: &OptionsData,
) -> Result<Result<Value, Rejection>, Failed> {
    let options = options.as_options();
    let to_value = |v: Result<Value, serde_json::Error>| v.map_err(|e| Failed::from(e.to_string()));
    Ok(match endpoint {
        "create_video" => match validate_create_video(json, &options) {
            Ok(r) => Ok(to_value(serde_json::to_value(r))?),
            Err(e) => Err(e),
        },
        "combine_video_clips" => match validate_combine_video_clips(json, &options) {
            Ok(r) => Ok(to_value(serde_json::to_value(r))?),
            Err(e) => Err(e),
        },
        "create_project" => match validate_create_project(json) {
            Ok(r) => Ok(to_value(serde_json::to_value(r))?),
            Err(e) => Err(e),
        },
        other => return Err(format!("unknown endpoint {other}").into()),
    })
}

fn check(case: &Case) -> Result<(), Failed> {
    let options = case.options.clone().unwrap_or_default();
    let json = case.body.get();
    let outcome = run(&case.endpoint, json, &options)?;
    match (outcome, &case.errors, &case.normalized, case.malformed) {
        (Err(Rejection::Malformed(_)), None, None, true) => Ok(()),
        (Err(Rejection::Invalid { errors: got, total }), Some(want), None, false) => {
            let want_total = case.total.unwrap_or(want.len());
            if total != want_total {
                return Err(format!("total differs: want {want_total}, got {total}").into());
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
                return Err(
                    format!("errors differ\n want: {want_pairs:?}\n  got: {got_pairs:?}").into(),
                );
            }
            for (g, w) in got.iter().zip(want) {
                if let Some(message) = &w.message
                    && &g.message != message
                {
                    return Err(format!(
                        "message of {} differs\n want: {message}\n  got: {}",
                        g.field, g.message
                    )
                    .into());
                }
                if g.message.is_empty() {
                    return Err(format!("empty message at {}", g.field).into());
                }
            }
            Ok(())
        }
        (Ok(got), None, Some(want), false) => {
            if &got != want {
                return Err(format!("normalized body differs\n want: {want}\n  got: {got}").into());
            }
            // Normalizing a normalized body changes nothing.
            let again = run(&case.endpoint, &got.to_string(), &options)?;
            match again {
                Ok(twice) if twice == got => Ok(()),
                other => Err(format!("normalizing twice changed the body: {other:?}").into()),
            }
        }
        (outcome, ..) => Err(format!("unexpected outcome {outcome:?}").into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the case table exists at tests/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut trials = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("cases")
            .to_owned();
        let text = std::fs::read_to_string(&file).expect("case file is readable");
        let cases: Vec<Case> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in cases {
            let name = format!("{stem}::{}", case.name);
            trials.push(Trial::test(name, move || check(&case)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
