//! The case table (`tests/cases/`) through the core, natively. The rows, the comparison and the
//! list of files come from the runner the wasm tests share (`tests/case_runner.rs`); each case
//! is its own named test (libtest-mimic), so a failure names the rule that broke.

#[path = "../../../tests/case_runner.rs"]
#[allow(
    dead_code,
    reason = "the reader of the wasm module's answers is the wasm tests'"
)]
mod case_runner;

use case_runner::{Outcome, Reported, all_cases, case_files_out_of_date, check};
use libtest_mimic::{Arguments, Trial};
use serde::Serialize;
use stillreel_core::{
    OptionsData, Rejection, validate_combine_video_clips, validate_create_project,
    validate_create_video,
};

/// The core's answer to `body` on `endpoint`.
fn validate(endpoint: &str, options: &OptionsData, body: &str) -> Result<Outcome, String> {
    fn outcome<T: Serialize>(result: Result<T, Rejection>) -> Result<Outcome, String> {
        Ok(match result {
            Ok(normalized) => {
                Outcome::Accepted(serde_json::to_value(normalized).map_err(|e| e.to_string())?)
            }
            Err(Rejection::Invalid { errors, total }) => Outcome::Rejected {
                errors: errors
                    .into_iter()
                    .map(|e| Reported {
                        field: e.field,
                        code: e.code.as_str().to_owned(),
                        message: e.message,
                    })
                    .collect(),
                total,
            },
            Err(Rejection::Malformed(message)) => Outcome::Malformed(message),
        })
    }
    let options = options.as_options();
    match endpoint {
        "create_video" => outcome(validate_create_video(body, &options)),
        "combine_video_clips" => outcome(validate_combine_video_clips(body, &options)),
        "create_project" => outcome(validate_create_project(body)),
        "create_brand_kit" => outcome(stillreel_core::validate_create_brand_kit(
            body,
            options.templates,
        )),
        "update_brand_kit" => outcome(stillreel_core::validate_update_brand_kit(
            body,
            options.templates,
        )),
        other => Err(format!("unknown endpoint {other}")),
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![Trial::test("case_files_are_compiled_in", || {
        case_files_out_of_date().map_err(Into::into)
    })];
    for (name, case) in all_cases() {
        trials.push(Trial::test(name, move || {
            let options: OptionsData = match &case.options {
                Some(options) => serde_json::from_value(options.clone())
                    .map_err(|e| format!("case options: {e}"))?,
                None => OptionsData::default(),
            };
            let got = validate(&case.endpoint, &options, case.body.get())?;
            check(&case, &got, |again| {
                validate(&case.endpoint, &options, again)
            })
            .map_err(Into::into)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
