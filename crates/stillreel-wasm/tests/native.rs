//! Runs the case table natively through the adapter's `Outcome` and keeps the snapshot the
//! browser test compares the wasm module against (`tests/native-outcomes.json`). Stale
//! snapshot: `STILLREEL_BLESS=1 cargo test -p stillreel-wasm --test native`.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::cases::{self, all_cases, check};
use common::record;
use serde_json::Value;
use stillreel_core::{
    OptionsData, validate_combine_video_clips, validate_create_project, validate_create_video,
};
use stillreel_wasm::Outcome;

fn native_outcome(endpoint: &str, options: Option<&Value>, json: &str) -> Value {
    let options: OptionsData = options
        .map(|o| serde_json::from_value(o.clone()).expect("case options"))
        .unwrap_or_default();
    let options = options.as_options();
    let to_value = |o: Result<Value, String>| record(o);
    match endpoint {
        "create_video" => to_value(
            Outcome::from_core(validate_create_video(json, &options))
                .map(|o| serde_json::to_value(o).expect("json")),
        ),
        "combine_video_clips" => to_value(
            Outcome::from_core(validate_combine_video_clips(json, &options))
                .map(|o| serde_json::to_value(o).expect("json")),
        ),
        "create_project" => to_value(
            Outcome::from_core(validate_create_project(json))
                .map(|o| serde_json::to_value(o).expect("json")),
        ),
        "create_brand_kit" => to_value(
            Outcome::from_core(stillreel_core::validate_create_brand_kit(
                json,
                options.templates,
            ))
            .map(|o| serde_json::to_value(o).expect("json")),
        ),
        "update_brand_kit" => to_value(
            Outcome::from_core(stillreel_core::validate_update_brand_kit(
                json,
                options.templates,
            ))
            .map(|o| serde_json::to_value(o).expect("json")),
        ),
        other => panic!("unknown endpoint {other}"),
    }
}

#[test]
fn native_outcomes_meet_the_cases_and_match_the_snapshot() {
    let cases = all_cases();
    assert!(!cases.is_empty(), "the case table is empty");
    let mut snapshot = Vec::new();
    for (name, case) in &cases {
        let outcome = native_outcome(&case.endpoint, case.options.as_ref(), case.body.get());
        let checked = cases::Outcome::from_adapter(&outcome).and_then(|got| {
            check(case, &got, |again| {
                cases::Outcome::from_adapter(&native_outcome(
                    &case.endpoint,
                    case.options.as_ref(),
                    again,
                ))
            })
        });
        if let Err(why) = checked {
            panic!("{name}: {why}");
        }
        snapshot.push(serde_json::json!({ "case": name, "outcome": outcome }));
    }
    let text = serde_json::to_string_pretty(&snapshot).expect("snapshot serializes") + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/native-outcomes.json");
    if std::env::var_os("STILLREEL_BLESS").is_some() {
        std::fs::write(&path, &text).expect("write the snapshot");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is stale (the core or its cases changed): run `STILLREEL_BLESS=1 cargo test -p stillreel-wasm --test native`",
        path.display()
    );
}
