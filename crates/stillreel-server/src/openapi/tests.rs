//! The document against real core values: every enum value of the core is in the schema's
//! enum, and records with every optional member filled serialize to JSON the schema accepts.
//! A small validator for the JSON Schema subset utoipa emits keeps this dependency-free.

use serde_json::{Value, json};
use stillreel_core::{
    Branding, BrandingTemplates, CameraMotion, Engine, EngineList, FieldError, JobError,
    Orientation, Project, ProjectList, Resolution, Status, TemplateFieldType, TemplateList,
    TemplateSlot, TemplateSlotKind, TemplateValue, VfxType, Video, VideoClip, catalog,
};
use uuid::Uuid;

use super::document_json;

fn doc() -> Value {
    serde_json::from_str(&document_json()).expect("document is JSON")
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => schema,
    }
}

fn type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// Errors of `v` against `schema`, with JSON paths.
fn check(doc: &Value, schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let schema = resolve(doc, schema);
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let passing = options
                .iter()
                .filter(|o| {
                    let mut e = Vec::new();
                    check(doc, o, v, path, &mut e);
                    e.is_empty()
                })
                .count();
            let ok = if key == "oneOf" {
                passing == 1
            } else {
                passing >= 1
            };
            if !ok {
                errors.push(format!("{path}: {passing} {key} branches match {v}"));
            }
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            check(doc, s, v, path, errors);
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) if !type_matches(t, v) => {
            errors.push(format!("{path}: {v} is not {t}"))
        }
        Some(Value::Array(ts))
            if !ts
                .iter()
                .filter_map(Value::as_str)
                .any(|t| type_matches(t, v)) =>
        {
            errors.push(format!("{path}: {v} is none of {ts:?}"));
        }
        _ => {}
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(v)
    {
        errors.push(format!("{path}: {v} not in enum {allowed:?}"));
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errors.push(format!("{path}: {n} < {min}"));
    }
    if let (Some(max), Some(n)) = (schema.get("maximum").and_then(Value::as_f64), v.as_f64())
        && n > max
    {
        errors.push(format!("{path}: {n} > {max}"));
    }
    if let Value::Object(map) = v {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = req.as_str()
                && !map.contains_key(name)
            {
                errors.push(format!("{path}: missing required {name}"));
            }
        }
        for (k, item) in map {
            match props.and_then(|p| p.get(k)) {
                Some(s) => check(doc, s, item, &format!("{path}.{k}"), errors),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{path}: unexpected member {k}"))
                    }
                    Some(s @ Value::Object(_)) => {
                        check(doc, s, item, &format!("{path}.{k}"), errors)
                    }
                    // Undeclared members would pass a lax schema silently; for our records
                    // every member must be described.
                    _ if props.is_some() => errors.push(format!("{path}: undocumented member {k}")),
                    _ => {}
                },
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check(doc, item_schema, item, &format!("{path}[{i}]"), errors);
        }
    }
}

#[track_caller]
fn assert_valid(schema_name: &str, value: &Value) {
    let doc = doc();
    let schema = json!({"$ref": format!("#/components/schemas/{schema_name}")});
    let mut errors = Vec::new();
    check(&doc, &schema, value, schema_name, &mut errors);
    assert!(
        errors.is_empty(),
        "{schema_name} does not describe {value}:\n{}",
        errors.join("\n")
    );
}

#[track_caller]
fn assert_invalid(schema_name: &str, value: &Value) {
    let doc = doc();
    let schema = json!({"$ref": format!("#/components/schemas/{schema_name}")});
    let mut errors = Vec::new();
    check(&doc, &schema, value, schema_name, &mut errors);
    assert!(!errors.is_empty(), "{schema_name} should reject {value}");
}

fn enum_of(name: &str) -> Vec<String> {
    let doc = doc();
    doc["components"]["schemas"][name]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} has no enum"))
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
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
    let kinds = enum_of("WebhookEventType");
    for event in [
        crate::webhook::Event::VideoCompleted,
        crate::webhook::Event::VideoFailed,
        crate::webhook::Event::BrandingCompleted,
        crate::webhook::Event::BrandingFailed,
    ] {
        assert!(kinds.iter().any(|k| k == event.type_name()), "{kinds:?}");
    }
    let create = &doc["components"]["schemas"]["CreateVideoRequest"]["properties"];
    assert_eq!(create["webhook_url"]["maxLength"], 2048);
}

#[test]
fn document_is_openapi_3_1_with_security() {
    let doc = doc();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(
        doc["components"]["securitySchemes"]["api_key"]["in"],
        "header"
    );
    assert_eq!(
        doc["components"]["securitySchemes"]["api_key"]["name"],
        "Authorization"
    );
    assert_eq!(doc["paths"].as_object().map(|p| p.len()), Some(8));
}

#[test]
fn enums_match_the_core() {
    let names = |all: &[&str]| all.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(enum_of("Orientation"), names(Orientation::NAMES));
    assert_eq!(enum_of("Resolution"), names(Resolution::NAMES));
    assert_eq!(enum_of("Engine"), names(Engine::NAMES));
    assert_eq!(enum_of("CameraMotion"), names(CameraMotion::NAMES));
    assert_eq!(enum_of("Status"), names(Status::NAMES));
    assert_eq!(
        enum_of("WebhookStatus"),
        names(stillreel_core::WebhookStatus::NAMES)
    );
    assert_eq!(enum_of("VfxType"), names(VfxType::NAMES));
    assert_eq!(enum_of("TemplateSlotKind"), names(TemplateSlotKind::NAMES));
    assert_eq!(
        enum_of("TemplateFieldType"),
        names(TemplateFieldType::NAMES)
    );
}

fn full_video() -> Video {
    let vfx_sample: Vec<stillreel_core::Vfx> = serde_json::from_value(json!([
        {"type": "word-drop", "config": {"text": "Sold", "color": "gold"}},
        {"type": "virtual-staging", "config": {"room_type": "auto", "staging_style": "modern"}},
        {"type": "lifestyle", "config": {"people": "couple", "ethnicity": "auto"}},
        {"type": "shadows"},
    ]))
    .expect("core vfx");
    let clip = |vfx| VideoClip {
        uuid: Uuid::new_v4(),
        image_url: "https://e.example/1.jpg".into(),
        clip_url: "http://127.0.0.1:8080/files/clips/a.mp4".into(),
        camera_motion: CameraMotion::OrbitLeft,
        orientation: Orientation::Portrait,
        resolution: Resolution::P1080,
        ai_engine: Engine::V25,
        vfx,
    };
    let mut clips: Vec<VideoClip> = vfx_sample.into_iter().map(|v| clip(Some(v))).collect();
    clips.push(clip(None));
    let slot = TemplateSlot {
        template: "intro-title-card".into(),
        config: [
            (
                "headline".to_owned(),
                TemplateValue::Text {
                    value: "Open house\nSunday".into(),
                },
            ),
            (
                "logo".to_owned(),
                TemplateValue::Image {
                    url: "https://e.example/logo.png".into(),
                },
            ),
        ]
        .into_iter()
        .collect(),
    };
    let error = JobError {
        code: "media_unreachable".into(),
        message: "x".into(),
        field: Some("image_inputs[0].image_url".into()),
    };
    Video {
        uuid: Uuid::new_v4(),
        project: Uuid::new_v4(),
        status: Status::Error,
        video_url: String::new(),
        video_clips: clips,
        orientation: Orientation::Portrait,
        resolution: Resolution::P1080,
        ai_engine: Engine::V25,
        branding: Some(Branding {
            status: Status::Error,
            video_url: String::new(),
            templates: BrandingTemplates {
                intro: Some(slot.clone()),
                outro: Some(slot),
            },
            speed_ramp: true,
            error: Some(error.clone()),
        }),
        progress: 100,
        created_at: crate::db::rfc3339(0),
        updated_at: crate::db::rfc3339(0),
        error: Some(JobError {
            field: None,
            ..error
        }),
        webhook: Some(stillreel_core::Webhook {
            url: "https://hooks.example.com/in".into(),
            status: stillreel_core::WebhookStatus::Failed,
            attempts: 8,
            last_status: Some(500),
        }),
    }
}

#[test]
fn records_match_their_schemas() {
    let video = full_video();
    assert_valid("Video", &serde_json::to_value(&video).expect("json"));
    let event = json!({"type": "video.failed", "timestamp": crate::db::rfc3339(0),
                       "data": serde_json::to_value(&video).expect("json")});
    assert_valid("WebhookEvent", &event);
    let bare = Video {
        branding: None,
        error: None,
        webhook: None,
        video_clips: Vec::new(),
        status: Status::Queued,
        ..video
    };
    assert_valid("Video", &serde_json::to_value(&bare).expect("json"));
    let projects = ProjectList {
        projects: vec![Project {
            uuid: Uuid::new_v4(),
            name: "p".into(),
            is_default: true,
            created_at: crate::db::rfc3339(0),
        }],
    };
    assert_valid(
        "ProjectList",
        &serde_json::to_value(&projects).expect("json"),
    );
    let templates = TemplateList {
        templates: catalog::builtin_templates().to_vec(),
    };
    assert_valid(
        "TemplateList",
        &serde_json::to_value(&templates).expect("json"),
    );
    let engines = EngineList {
        engines: catalog::engines(Engine::V25, VfxType::ALL),
    };
    assert_valid("EngineList", &serde_json::to_value(&engines).expect("json"));
    let envelope = crate::error::Envelope {
        error: crate::error::EnvelopeBody {
            code: "validation_failed",
            message: "1 field is invalid".into(),
            details: &[FieldError::new(
                "a",
                stillreel_core::ErrorCode::Required,
                "m",
            )],
            truncated: true,
        },
    };
    assert_valid(
        "ErrorEnvelope",
        &serde_json::to_value(&envelope).expect("json"),
    );
    let account = crate::repo::accounts::AccountInfo {
        account: Uuid::new_v4(),
        name: "a".into(),
        clip_limit: 20,
        default_project: Uuid::new_v4(),
    };
    assert_valid("Account", &serde_json::to_value(&account).expect("json"));
}

#[test]
fn the_validator_can_fail() {
    let mut v = serde_json::to_value(full_video()).expect("json");
    v["status"] = json!("done");
    assert_invalid("Video", &v);
    let mut v = serde_json::to_value(full_video()).expect("json");
    v["surprise"] = json!(1);
    assert_invalid("Video", &v);
    let mut v = serde_json::to_value(full_video()).expect("json");
    v.as_object_mut().expect("object").remove("video_url");
    assert_invalid("Video", &v);
}

#[test]
fn requests_built_by_core_builders_match_request_schemas() {
    let body = json!({
        "image_inputs": [{"image_url": "https://e.example/1.jpg", "camera_motion": "push-in",
                          "vfx": {"type": "word-drop", "config": {"text": "Hi"}}}],
        "orientation": "landscape", "resolution": "720p", "audio_url": "https://e.example/a.mp3",
        "ai_engine": "v24", "project": Uuid::new_v4(),
        "branding": {"speed_ramp": true, "intro": {"template": "intro-title-card", "config": {"headline": {"value": "x"}}}},
    });
    assert_valid("CreateVideoRequest", &body);
    let combine = json!({"video_clip_uuids": [Uuid::new_v4()], "orientation": "portrait", "resolution": "1080p", "branding": true});
    assert_valid("CombineVideoClipsRequest", &combine);
    assert_valid("CreateProjectRequest", &json!({"name": "x"}));
}

#[test]
fn every_authenticated_operation_documents_429_with_retry_after() {
    let doc = doc();
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if op.get("security").is_none() {
                continue;
            }
            seen += 1;
            let r = &op["responses"]["429"];
            assert_eq!(
                r["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ErrorEnvelope",
                "{method} {path}"
            );
            assert_eq!(
                r["headers"]["Retry-After"]["schema"]["type"], "integer",
                "{method} {path}: {r}"
            );
        }
    }
    assert_eq!(seen, 8);
}
