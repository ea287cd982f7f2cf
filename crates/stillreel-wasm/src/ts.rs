//! The package's TypeScript types, generated from Rust types and committed at
//! `web/src/types/stillreel.d.ts`; `ts_types_are_fresh` fails when the file is stale.
//! Run `STILLREEL_BLESS=1 cargo test -p stillreel-wasm` to rewrite it.
//!
//! The core stays free of binding crates, so the structs here mirror the core's wire shapes
//! with `ts-rs` derives; each mirror is checked against the core by a round trip through JSON
//! (unknown members are denied, so a member the core adds fails the test). The closed string
//! sets are written straight from the core's `NAMES`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder, full_branding, image};
use stillreel_core::rules::word_drop;
use stillreel_core::types as core;
use stillreel_core::{ErrorCode, catalog};
use ts_rs::TS;

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldError {
    /// Path in the request body, form-field notation: `image_inputs[0].vfx.type`.
    field: String,
    #[ts(type = "ErrorCode")]
    code: String,
    /// A sentence for people.
    message: String,
}

/// What every `validate*` function returns: every error, or the normalized body.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValidationResult<T: TS> {
    ok: bool,
    /// At most 100 failing fields, in the server's order (the server's `error.details`).
    errors: Vec<FieldError>,
    /// How many fields failed in all, on a rejection (absent when `ok`); more than
    /// `errors.length` when the list was cut.
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error_count: Option<usize>,
    /// Present and `true` only when `errors` was cut at 100 (the server's `error.truncated`).
    #[ts(optional)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    normalized: Option<T>,
}

/// What only a deployment or an account knows; every member optional.
#[derive(TS)]
struct ValidateOptions {
    /// The account's clip limit per video (default 20).
    #[ts(optional)]
    clip_limit: Option<u32>,
    /// The `GET /get_templates` response, or its `templates` array.
    #[ts(optional, type = "Template[] | TemplateList")]
    templates: Option<String>,
    /// The vfx types the deployment renders (`GET /get_engines`).
    #[ts(optional, type = "VfxType[]")]
    available_vfx: Option<String>,
    #[ts(optional, type = "Engine")]
    default_engine: Option<String>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageInput {
    image_url: String,
    #[ts(type = "CameraMotion")]
    camera_motion: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    vfx: Option<Vfx>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
enum Vfx {
    DayToTwilight,
    CatchTheSunshine,
    VirtualStaging { config: VirtualStagingConfig },
    PencilSketch,
    SpinCeilingFan,
    StaticCeilingFan,
    SwayTrees,
    HouseDrop,
    Construction,
    StarryNight,
    Shadows,
    WordDrop { config: WordDropConfig },
    Lifestyle { config: LifestyleConfig },
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VirtualStagingConfig {
    #[ts(type = "RoomType")]
    room_type: String,
    #[ts(type = "StagingStyle")]
    staging_style: String,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WordDropConfig {
    /// As sent; the renderer draws `sanitizeWordDropText(text).text`.
    text: String,
    #[ts(type = "WordDropColor")]
    color: String,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LifestyleConfig {
    #[ts(type = "People")]
    people: String,
    #[ts(type = "Ethnicity")]
    ethnicity: String,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(untagged)]
enum TemplateValue {
    Text { value: String },
    Image { url: String },
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateSlot {
    template: String,
    config: BTreeMap<String, TemplateValue>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BrandingRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    outro: Option<TemplateSlot>,
    speed_ramp: bool,
}

/// `POST /create_video`, normalized: every default filled in.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateVideoRequest {
    image_inputs: Vec<ImageInput>,
    #[ts(type = "Orientation")]
    orientation: String,
    #[ts(type = "Resolution")]
    resolution: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    audio_url: Option<String>,
    #[ts(type = "Engine")]
    ai_engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    project: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    branding: Option<BrandingRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    webhook_url: Option<String>,
}

/// `POST /combine_video_clips`, normalized (boolean `branding` turned into the object form).
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CombineVideoClipsRequest {
    video_clip_uuids: Vec<String>,
    #[ts(type = "Orientation")]
    orientation: String,
    #[ts(type = "Resolution")]
    resolution: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    audio_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    project: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    branding: Option<BrandingRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    webhook_url: Option<String>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateProjectRequest {
    name: String,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateField {
    key: String,
    #[serde(rename = "type")]
    #[ts(type = "TemplateFieldType")]
    kind: String,
    required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    max_length: Option<u32>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Template {
    id: String,
    #[ts(type = "TemplateSlotKind")]
    slot: String,
    name: String,
    description: String,
    fields: Vec<TemplateField>,
}

/// `GET /get_templates`.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateList {
    templates: Vec<Template>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ConfigFieldKind {
    Choice { values: Vec<String> },
    Text { max_length: u32 },
}

/// One member of a vfx `config`: a closed choice or limited text.
#[derive(TS, Serialize, Deserialize)]
struct ConfigField {
    key: String,
    #[serde(flatten)]
    kind: ConfigFieldKind,
    required: bool,
    default: Option<String>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VfxTypeInfo {
    #[serde(rename = "type")]
    #[ts(type = "VfxType")]
    kind: String,
    generative: bool,
    available: bool,
    config_fields: Vec<ConfigField>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SanitizedText {
    text: String,
    length: u32,
    max: u32,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Limits {
    default_clip_limit: u32,
    word_drop_max_chars: u32,
    max_url_chars: u32,
    project_name_max_chars: u32,
}

/// What `checkCombineClips` needs of each clip; a clip record has it.
#[derive(TS)]
struct ClipFactsInput {
    #[ts(type = "Orientation")]
    orientation: String,
    #[ts(type = "Resolution")]
    resolution: String,
    #[ts(type = "Engine")]
    ai_engine: String,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClipCheck {
    ok: bool,
    errors: Vec<FieldError>,
    #[ts(type = "Engine | null")]
    engine: Option<String>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineInfo {
    #[ts(type = "Engine")]
    id: String,
    default: bool,
    #[ts(type = "CameraMotion[]")]
    camera_motions: Vec<String>,
    eased: bool,
    #[ts(type = "VfxType[]")]
    vfx_types: Vec<String>,
}

/// `GET /get_engines`.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineList {
    engines: Vec<EngineInfo>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VideoClip {
    uuid: String,
    image_url: String,
    clip_url: String,
    #[ts(type = "CameraMotion")]
    camera_motion: String,
    #[ts(type = "Orientation")]
    orientation: String,
    #[ts(type = "Resolution")]
    resolution: String,
    #[ts(type = "Engine")]
    ai_engine: String,
    vfx: Option<Vfx>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BrandingTemplates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    intro: Option<TemplateSlot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    outro: Option<TemplateSlot>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JobError {
    code: String,
    message: String,
    field: Option<String>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Branding {
    #[ts(type = "Status")]
    status: String,
    video_url: String,
    templates: BrandingTemplates,
    speed_ramp: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    error: Option<JobError>,
}

/// A video job, as both POSTs and `GET /get_video` answer it.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Video {
    uuid: String,
    project: String,
    #[ts(type = "Status")]
    status: String,
    video_url: String,
    video_clips: Vec<VideoClip>,
    #[ts(type = "Orientation")]
    orientation: String,
    #[ts(type = "Resolution")]
    resolution: String,
    #[ts(type = "Engine")]
    ai_engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    branding: Option<Branding>,
    progress: u8,
    created_at: String,
    updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    error: Option<JobError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    webhook: Option<Webhook>,
}

/// The echo of `webhook_url` with the state of the latest event's delivery.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Webhook {
    url: String,
    #[ts(type = "WebhookStatus")]
    status: String,
    attempts: u32,
    last_status: Option<u16>,
}

#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Project {
    uuid: String,
    name: String,
    is_default: bool,
    created_at: String,
}

/// `GET /get_projects`.
#[derive(TS, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectList {
    projects: Vec<Project>,
}

/// `type Name = "a" | "b";` from a core enum's wire spellings.
fn union(name: &str, names: &[&str]) -> String {
    let items: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    format!("export type {name} = {};\n", items.join(" | "))
}

fn export<T: TS>() -> String {
    format!("export {}\n", T::decl())
}

/// The whole generated file.
fn generate() -> String {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let mut out = String::from(
        "// Generated by `crates/stillreel-wasm/src/ts.rs` from the Rust types. Do not edit:\n\
         // run `STILLREEL_BLESS=1 cargo test -p stillreel-wasm` after changing a type.\n\n",
    );
    for (name, names) in [
        ("Orientation", core::Orientation::NAMES),
        ("Resolution", core::Resolution::NAMES),
        ("Engine", core::Engine::NAMES),
        ("CameraMotion", core::CameraMotion::NAMES),
        ("Status", core::Status::NAMES),
        ("WebhookStatus", core::WebhookStatus::NAMES),
        ("VfxType", core::VfxType::NAMES),
        ("RoomType", core::RoomType::NAMES),
        ("StagingStyle", core::StagingStyle::NAMES),
        ("WordDropColor", core::WordDropColor::NAMES),
        ("People", core::People::NAMES),
        ("Ethnicity", core::Ethnicity::NAMES),
        ("TemplateSlotKind", core::TemplateSlotKind::NAMES),
        ("TemplateFieldType", core::TemplateFieldType::NAMES),
        ("ErrorCode", codes.as_slice()),
    ] {
        out.push_str(&union(name, names));
    }
    out.push('\n');
    for decl in [
        export::<FieldError>(),
        export::<ValidationResult<ts_rs::Dummy>>(),
        export::<ValidateOptions>(),
        export::<ImageInput>(),
        export::<Vfx>(),
        export::<VirtualStagingConfig>(),
        export::<WordDropConfig>(),
        export::<LifestyleConfig>(),
        export::<TemplateValue>(),
        export::<TemplateSlot>(),
        export::<BrandingRequest>(),
        export::<CreateVideoRequest>(),
        export::<CombineVideoClipsRequest>(),
        export::<CreateProjectRequest>(),
        export::<TemplateField>(),
        export::<Template>(),
        export::<TemplateList>(),
        export::<ConfigFieldKind>(),
        export::<ConfigField>(),
        export::<VfxTypeInfo>(),
        export::<SanitizedText>(),
        export::<Limits>(),
        export::<ClipFactsInput>(),
        export::<ClipCheck>(),
        export::<EngineInfo>(),
        export::<EngineList>(),
        export::<VideoClip>(),
        export::<BrandingTemplates>(),
        export::<JobError>(),
        export::<Branding>(),
        export::<Webhook>(),
        export::<Video>(),
        export::<Project>(),
        export::<ProjectList>(),
    ] {
        out.push_str(&decl);
    }
    out
}

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/src/types/stillreel.d.ts")
}

#[test]
fn ts_types_are_fresh() {
    let generated = generate();
    let path = committed_path();
    if std::env::var_os("STILLREEL_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("the types file has a directory"))
            .expect("create web/src/types");
        std::fs::write(&path, &generated).expect("write the types file");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: run `STILLREEL_BLESS=1 cargo test -p stillreel-wasm` and commit it",
        path.display()
    );
}

/// Serializes a core value, reads it as the mirror `M` (unknown members denied) and writes it
/// again: the two JSON texts must be equal.
fn mirrors<M: Serialize + DeserializeOwned>(core_value: &impl Serialize) {
    let json = serde_json::to_value(core_value).expect("core value serializes");
    let mirror: M = serde_json::from_value(json.clone()).unwrap_or_else(|err| {
        panic!(
            "{} does not mirror the core: {err}\n{json:#}",
            std::any::type_name::<M>()
        )
    });
    assert_eq!(
        serde_json::to_value(&mirror).expect("mirror serializes"),
        json,
        "{}",
        std::any::type_name::<M>()
    );
}

fn every_vfx() -> Vec<core::Vfx> {
    let mut all: Vec<core::Vfx> = core::VfxType::ALL
        .iter()
        .filter_map(|&t| core::Vfx::plain(t))
        .collect();
    all.push(core::Vfx::VirtualStaging {
        config: core::VirtualStagingConfig::default(),
    });
    all.push(core::Vfx::Lifestyle {
        config: core::LifestyleConfig::default(),
    });
    all.push(core::Vfx::WordDrop {
        config: core::WordDropConfig {
            text: "Just listed".into(),
            color: core::WordDropColor::Silver,
        },
    });
    all
}

#[test]
fn mirrors_match_the_core_requests() {
    let project = "67e55044-10b1-426f-9247-bb680e5fe0c8"
        .parse()
        .expect("uuid");
    let mut builder = CreateVideoBuilder::new()
        .audio("https://example.com/a.mp3")
        .project(project)
        .branding(full_branding())
        .webhook("https://hooks.example.com/a");
    for vfx in every_vfx() {
        let mut input = image("https://example.com/x.jpg");
        input.vfx = Some(vfx);
        builder = builder.image(input);
    }
    mirrors::<CreateVideoRequest>(&builder.build());
    let combine = CombineBuilder::new()
        .audio("https://example.com/a.mp3")
        .project(project)
        .branding(full_branding())
        .webhook("https://hooks.example.com/a")
        .build();
    mirrors::<CombineVideoClipsRequest>(&combine);
    mirrors::<CreateProjectRequest>(&core::CreateProjectRequest {
        name: "Elm Street".into(),
    });
    mirrors::<FieldError>(&stillreel_core::FieldError::new(
        "a",
        ErrorCode::TooLong,
        "m",
    ));
}

#[test]
fn mirrors_match_the_core_catalogs() {
    mirrors::<TemplateList>(&core::TemplateList {
        templates: catalog::builtin_templates().to_vec(),
    });
    mirrors::<EngineList>(&core::EngineList {
        engines: catalog::engines(core::Engine::V24, core::VfxType::ALL),
    });
    for &kind in core::VfxType::ALL {
        for field in kind.config_fields() {
            mirrors::<ConfigField>(field);
        }
    }
    mirrors::<SanitizedText>(&word_drop::sanitize("Café 🏡"));
}

#[test]
fn mirrors_match_the_core_records() {
    let uuid: uuid::Uuid = "67e55044-10b1-426f-9247-bb680e5fe0c8"
        .parse()
        .expect("uuid");
    let error = core::JobError {
        code: "media_too_large".into(),
        message: "m".into(),
        field: Some("f".into()),
    };
    let clips = every_vfx()
        .into_iter()
        .map(Some)
        .chain([None])
        .map(|vfx| core::VideoClip {
            uuid,
            image_url: "https://example.com/a.jpg".into(),
            clip_url: "https://example.com/c.mp4".into(),
            camera_motion: core::CameraMotion::OrbitLeft,
            orientation: core::Orientation::Portrait,
            resolution: core::Resolution::P1080,
            ai_engine: core::Engine::V25,
            vfx,
        })
        .collect();
    let branding = full_branding();
    let video = core::Video {
        uuid,
        project: uuid,
        status: core::Status::Error,
        video_url: String::new(),
        video_clips: clips,
        orientation: core::Orientation::Portrait,
        resolution: core::Resolution::P1080,
        ai_engine: core::Engine::V25,
        branding: Some(core::Branding {
            status: core::Status::Error,
            video_url: String::new(),
            templates: core::BrandingTemplates {
                intro: branding.intro,
                outro: branding.outro,
            },
            speed_ramp: true,
            error: Some(error.clone()),
        }),
        progress: 40,
        created_at: "2026-11-22T10:00:00Z".into(),
        updated_at: "2026-11-22T10:00:01Z".into(),
        error: Some(error),
        webhook: Some(core::Webhook {
            url: "https://hooks.example.com/x".into(),
            status: core::WebhookStatus::Failed,
            attempts: 8,
            last_status: Some(500),
        }),
    };
    mirrors::<Video>(&video);
    let project = core::Project {
        uuid,
        name: "n".into(),
        is_default: true,
        created_at: "2026-11-22T10:00:00Z".into(),
    };
    mirrors::<ProjectList>(&core::ProjectList {
        projects: vec![project],
    });
}
