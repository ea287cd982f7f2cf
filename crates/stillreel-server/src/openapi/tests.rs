//! The served document: its frame, the shared answers, the webhooks, and that what the core's
//! types say about limits and defaults reaches it. Live answers are checked against it by
//! the schemathesis suite (scripts/suites/20-schemathesis.sh).

use serde_json::Value;

fn doc() -> Value {
    serde_json::from_str(super::json()).expect("document is JSON")
}

fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let s = &doc["components"]["schemas"][name];
    assert!(s.is_object(), "no schema {name}");
    s
}

/// Every `$ref` in `value`, with its JSON path.
fn refs(value: &Value, path: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    out.push((path.to_owned(), v.as_str().unwrap_or("").to_owned()));
                } else {
                    refs(v, &format!("{path}/{k}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                refs(v, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn document_is_openapi_3_1_with_security_and_every_route() {
    let doc = doc();
    assert_eq!(doc["openapi"], "3.1.0");
    let scheme = &doc["components"]["securitySchemes"]["api_key"];
    assert_eq!(scheme["in"], "header");
    assert_eq!(scheme["name"], "Authorization");
    let mut paths: Vec<&str> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .map(String::as_str)
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "/api/v1/combine_video_clips",
            "/api/v1/create_brand_kit",
            "/api/v1/create_project",
            "/api/v1/create_video",
            "/api/v1/delete_brand_kit",
            "/api/v1/delete_upload",
            "/api/v1/delete_video",
            "/api/v1/get_account",
            "/api/v1/get_brand_kits",
            "/api/v1/get_engines",
            "/api/v1/get_projects",
            "/api/v1/get_templates",
            "/api/v1/get_uploads",
            "/api/v1/get_video",
            "/api/v1/get_videos",
            "/api/v1/update_brand_kit",
            "/api/v1/upload_media",
        ]
    );
}

#[test]
fn every_reference_resolves() {
    let doc = doc();
    let mut found = Vec::new();
    refs(&doc, "", &mut found);
    assert!(found.len() > 50, "{}", found.len());
    for (path, target) in found {
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{path}: {target} is not a schema reference"));
        assert!(
            doc["components"]["schemas"][name].is_object(),
            "{path}: {target} names no schema"
        );
    }
}

#[test]
fn every_authenticated_operation_has_the_shared_answers() {
    let doc = doc();
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            assert!(op.get("security").is_some(), "{method} {path}");
            seen += 1;
            for status in ["200", "401", "429", "500"] {
                assert!(
                    op["responses"][status]["description"].is_string(),
                    "{method} {path} {status}"
                );
            }
            for (status, response) in op["responses"].as_object().expect("responses") {
                if status != "200" {
                    assert_eq!(
                        response["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/ErrorEnvelope",
                        "{method} {path} {status}"
                    );
                }
            }
            let retry = &op["responses"]["429"]["headers"]["Retry-After"]["schema"];
            assert_eq!(retry["type"], "integer", "{method} {path}");
        }
    }
    assert_eq!(seen, 17);
}

#[test]
fn document_has_the_webhook_events() {
    let doc = doc();
    let hooks = doc["webhooks"].as_object().expect("webhooks");
    let mut events: Vec<&str> = hooks.keys().map(String::as_str).collect();
    events.sort_unstable();
    assert_eq!(
        events,
        [
            "branding.completed",
            "branding.failed",
            "video.completed",
            "video.failed"
        ]
    );
    for (event, item) in hooks {
        assert_eq!(
            item["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/WebhookEvent",
            "{event}"
        );
    }
    let kinds = &schema(&doc, "WebhookEventType")["enum"];
    for event in [
        crate::webhook::Event::VideoCompleted,
        crate::webhook::Event::VideoFailed,
        crate::webhook::Event::BrandingCompleted,
        crate::webhook::Event::BrandingFailed,
    ] {
        assert!(
            kinds
                .as_array()
                .is_some_and(|k| k.contains(&event.type_name().into())),
            "{kinds}"
        );
    }
}

#[test]
fn limits_docs_and_defaults_of_the_core_types_reach_the_document() {
    let doc = doc();
    let create = &schema(&doc, "CreateVideoRequest")["properties"];
    for url in ["audio_url", "webhook_url"] {
        assert_eq!(create[url]["maxLength"], 2048, "{url}");
    }
    assert_eq!(create["image_inputs"]["minItems"], 1);
    assert_eq!(create["orientation"]["default"], "landscape");
    assert_eq!(create["resolution"]["default"], "720p");
    for request in ["CreateVideoRequest", "CombineVideoClipsRequest"] {
        let title = &schema(&doc, request)["properties"]["title"];
        assert_eq!(
            (&title["minLength"], &title["maxLength"]),
            (&1.into(), &120.into()),
            "{request}"
        );
    }
    let image = &schema(&doc, "ImageInput")["properties"];
    assert_eq!(image["image_url"]["maxLength"], 2048);
    assert_eq!(image["camera_motion"]["default"], "auto");
    let name = &schema(&doc, "CreateProjectRequest")["properties"]["name"];
    assert_eq!(
        (&name["minLength"], &name["maxLength"]),
        (&1.into(), &100.into())
    );
    let progress = &schema(&doc, "Video")["properties"]["progress"];
    assert_eq!(
        (&progress["minimum"], &progress["maximum"]),
        (&0.into(), &100.into())
    );
    assert!(
        schema(&doc, "Video")["properties"]["video_url"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Empty until"))
    );
    assert_eq!(
        schema(&doc, "Orientation")["enum"],
        serde_json::json!(stillreel_core::Orientation::NAMES)
    );
    for closed in [
        "CreateVideoRequest",
        "CombineVideoClipsRequest",
        "ImageInput",
        "BrandingRequest",
    ] {
        assert_eq!(
            schema(&doc, closed)["additionalProperties"],
            false,
            "{closed}"
        );
    }
}

#[test]
fn request_members_that_may_be_left_out_may_be_null() {
    let doc = doc();
    let null_ok = |s: &Value| {
        s["type"]
            .as_array()
            .is_some_and(|t| t.contains(&"null".into()))
            || s["oneOf"]
                .as_array()
                .is_some_and(|o| o.iter().any(|b| b["type"] == "null"))
    };
    for (name, member) in [
        ("CreateVideoRequest", "orientation"),
        ("CreateVideoRequest", "ai_engine"),
        ("CreateVideoRequest", "audio_url"),
        ("ImageInput", "camera_motion"),
        ("BrandingRequest", "speed_ramp"),
        ("TemplateSlot", "config"),
        ("CombineVideoClipsRequest", "branding"),
        ("BrandingRequest", "brand_kit"),
        ("BrandKitBody", "audio_url"),
        ("CreateVideoRequest", "title"),
        ("CombineVideoClipsRequest", "title"),
    ] {
        let s = &schema(&doc, name)["properties"][member];
        assert!(null_ok(s), "{name}.{member}: {s}");
    }
    // Answers are not widened: a record's members are as the core's types say.
    assert!(!null_ok(&schema(&doc, "Video")["properties"]["status"]));
    let combine = &schema(&doc, "CombineVideoClipsRequest")["required"];
    assert!(
        combine
            .as_array()
            .is_some_and(|r| r.contains(&"orientation".into()))
    );
}
