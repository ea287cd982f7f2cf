//! The case table through the wasm module in headless Chromium: every case gets the outcome
//! its file expects and exactly the outcome the native build gave (`native-outcomes.json`).
//! Run by `scripts/suites/30-wasm-web.sh`; a run that executes no test fails there.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::cases::{self, all_cases, check};
use common::{NATIVE_OUTCOMES, record};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&serde_json::to_string(value).expect("json")).expect("JSON.parse")
}

fn json(value: &JsValue) -> Value {
    let text: String = js_sys::JSON::stringify(value).expect("stringify").into();
    serde_json::from_str(&text).expect("the module returns JSON-compatible values")
}

/// The thrown error's message, or the returned value.
fn settle(result: Result<JsValue, JsError>) -> Result<Value, String> {
    result.map(|v| json(&v)).map_err(|err| {
        let value: JsValue = err.into();
        js_sys::Error::from(value).message().into()
    })
}

fn wasm_outcome(endpoint: &str, options: Option<&Value>, body_text: &str) -> Value {
    let options = options.map(js).unwrap_or(JsValue::UNDEFINED);
    // JSON.parse keeps the document's member order, as a browser's object literal would.
    let body = || js_sys::JSON::parse(body_text).expect("case body parses");
    record(settle(match endpoint {
        "create_video" => stillreel_wasm::validate_create_video(body(), options),
        "combine_video_clips" => stillreel_wasm::validate_combine_video_clips(body(), options),
        "create_project" => stillreel_wasm::validate_create_project(body()),
        "create_brand_kit" => stillreel_wasm::validate_create_brand_kit(body(), options),
        "update_brand_kit" => stillreel_wasm::validate_update_brand_kit(body(), options),
        other => panic!("unknown endpoint {other}"),
    }))
}

/// Runs every case of one file; returns how many ran.
fn run_file(stem: &str) -> usize {
    let snapshot: Vec<Value> = serde_json::from_str(NATIVE_OUTCOMES).expect("snapshot");
    let mut ran = 0;
    let mut failures = Vec::new();
    for (index, (name, case)) in all_cases().into_iter().enumerate() {
        if !name.starts_with(&format!("{stem}::")) {
            continue;
        }
        let outcome = wasm_outcome(&case.endpoint, case.options.as_ref(), case.body.get());
        let checked = cases::Outcome::from_adapter(&outcome).and_then(|got| {
            check(&case, &got, |again| {
                cases::Outcome::from_adapter(&wasm_outcome(
                    &case.endpoint,
                    case.options.as_ref(),
                    again,
                ))
            })
        });
        if let Err(why) = checked {
            failures.push(format!("{name}: {why}"));
        }
        let native = &snapshot.get(index).expect("the snapshot has every case");
        assert_eq!(
            native["case"],
            Value::String(name.clone()),
            "tests/native-outcomes.json is stale: run `STILLREEL_BLESS=1 cargo test -p stillreel-wasm --test native`"
        );
        if native["outcome"] != outcome {
            failures.push(format!(
                "{name}: wasm and native differ\n native: {}\n   wasm: {outcome}",
                native["outcome"]
            ));
        }
        ran += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran > 0, "no case of {stem}.json ran");
    ran
}

macro_rules! case_file_tests {
    ($($test:ident => $stem:literal),+ $(,)?) => {
        $(#[wasm_bindgen_test] fn $test() { run_file($stem); })+

        /// Every case of every file ran, and as many as the native snapshot holds.
        #[wasm_bindgen_test]
        fn every_case_ran() {
            let ran: usize = [$($stem),+].iter().map(|stem| run_file(stem)).sum();
            let snapshot: Vec<Value> = serde_json::from_str(NATIVE_OUTCOMES).expect("snapshot");
            assert_eq!(ran, all_cases().len(), "a case file has no test: add it to case_file_tests!");
            assert!(ran >= snapshot.len(), "ran {ran} cases, the native snapshot has {}", snapshot.len());
        }
    };
}

case_file_tests!(
    cases_brand_kit => "brand_kit",
    cases_branding => "branding",
    cases_combine => "combine",
    cases_create_video => "create_video",
    cases_error_cap => "error_cap",
    cases_image_inputs => "image_inputs",
    cases_limits => "limits",
    cases_project => "project",
    cases_title => "title",
    cases_urls => "urls",
    cases_vfx => "vfx",
    cases_word_drop => "word_drop",
);

#[wasm_bindgen_test]
fn options_of_the_wrong_shape_throw() {
    let body =
        js(&serde_json::json!({"image_inputs": [{"image_url": "https://example.com/a.jpg"}]}));
    let bad = js(&serde_json::json!({"clip_limit": "many"}));
    let err = settle(stillreel_wasm::validate_create_video(body.clone(), bad))
        .expect_err("bad options throw");
    assert!(err.contains("invalid options"), "{err}");
    let unknown = js(&serde_json::json!({"clip_limt": 3}));
    assert!(settle(stillreel_wasm::validate_create_video(body.clone(), unknown)).is_err());
    // The /get_templates response itself is accepted as `templates`.
    let response = serde_json::json!({"templates": {"templates": []}});
    let ok = settle(stillreel_wasm::validate_create_video(body, js(&response))).expect("valid");
    assert_eq!(ok["ok"], Value::Bool(true));
}

#[wasm_bindgen_test]
fn undefined_body_throws() {
    assert!(
        settle(stillreel_wasm::validate_create_video(
            JsValue::UNDEFINED,
            JsValue::UNDEFINED
        ))
        .is_err()
    );
}

#[wasm_bindgen_test]
fn form_catalogs() {
    let s = settle(stillreel_wasm::sanitize_word_drop_text("Café 🏡 новый")).expect("sanitize");
    assert_eq!(
        s,
        serde_json::json!({"text": "Café", "length": 4, "max": 16})
    );
    let motions = settle(stillreel_wasm::camera_motions(js(&"v24".into()))).expect("motions");
    assert_eq!(motions, serde_json::json!(["push-in", "push-out", "auto"]));
    assert!(settle(stillreel_wasm::camera_motions(js(&"v26".into()))).is_err());
    let vfx = settle(stillreel_wasm::vfx_types(JsValue::UNDEFINED)).expect("vfx");
    let with_config: Vec<&str> = vfx
        .as_array()
        .expect("list")
        .iter()
        .filter(|v| !v["config_fields"].as_array().expect("fields").is_empty())
        .map(|v| v["type"].as_str().expect("type"))
        .collect();
    assert_eq!(with_config, ["virtual-staging", "word-drop", "lifestyle"]);
    let templates = settle(stillreel_wasm::builtin_templates()).expect("templates");
    assert!(templates.as_array().expect("list").len() >= 4);
    assert!(
        templates[0].get("style").is_none(),
        "renderer data stays out of the listing"
    );
}

#[wasm_bindgen_test]
fn combine_clip_rule() {
    let clip = |o: &str, e: &str| serde_json::json!({"orientation": o, "resolution": "720p", "ai_engine": e});
    let clips = js(&serde_json::json!([
        clip("landscape", "v24"),
        clip("portrait", "v24"),
        clip("landscape", "v25")
    ]));
    let check = settle(stillreel_wasm::check_combine_clips_js(
        js(&"landscape".into()),
        js(&"720p".into()),
        clips,
    ))
    .expect("check");
    assert_eq!(check["ok"], Value::Bool(false));
    let fields: Vec<&str> = check["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["field"].as_str().expect("f"))
        .collect();
    assert_eq!(fields, ["video_clip_uuids[1]", "video_clip_uuids[2]"]);
    let same = js(&serde_json::json!([
        clip("landscape", "v24"),
        clip("landscape", "v24")
    ]));
    let check = settle(stillreel_wasm::check_combine_clips_js(
        js(&"landscape".into()),
        js(&"720p".into()),
        same,
    ))
    .expect("check");
    assert_eq!(
        check,
        serde_json::json!({"ok": true, "errors": [], "engine": "v24"})
    );
}
