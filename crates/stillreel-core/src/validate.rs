//! Validation and normalization of the request bodies, from raw JSON.
//!
//! Every rule runs and every failure is reported, in a stable order, so the server's 422 and
//! the browser form show the same list. A valid body comes back with every default filled in.

use crate::json::{self, Json, Object};

use crate::error::{ErrorCode, FieldError, Rejection};
use crate::path::Path;
use crate::reader::{self, Errors, get};
use crate::rules;
use crate::rules::uuid::value as uuid_value;
use crate::types::{
    BrandKitBody, CombineVideoClipsRequest, CreateProjectRequest, CreateVideoRequest, Orientation,
    Resolution, Transition, UpdateBrandKitRequest,
};

pub use crate::options::{Options, OptionsData, PROCEDURAL_VFX, TemplatesData};
pub use crate::rules::combine::{ClipFacts, check_clips as check_combine_clips};

const CREATE_FIELDS: &[&str] = &[
    "image_inputs",
    "orientation",
    "resolution",
    "audio_url",
    "transition",
    "ai_engine",
    "project",
    "branding",
    "webhook_url",
    "title",
];
const COMBINE_FIELDS: &[&str] = &[
    "video_clip_uuids",
    "orientation",
    "resolution",
    "audio_url",
    "transition",
    "project",
    "branding",
    "webhook_url",
    "title",
];

/// Parses and validates a `POST /create_video` body.
pub fn validate_create_video(
    json: &str,
    options: &Options<'_>,
) -> Result<CreateVideoRequest, Rejection> {
    let arena = json::arena_for(json);
    create_video(&parse(json, &arena)?, options)
}

fn create_video(body: &Json<'_>, options: &Options<'_>) -> Result<CreateVideoRequest, Rejection> {
    let map = as_object(body)?;
    let root = Path::Root;
    let mut errors = Errors::new(body);
    reader::reject_unknown(map, &root, CREATE_FIELDS, &mut errors);

    let ai_engine = reader::enum_or(map, &root, "ai_engine", options.default_engine, &mut errors)
        .and_then(|engine| rules::image::check_engine(engine, &root, options, &mut errors));
    let engine_vfx = ai_engine.map(|e| crate::catalog::engine_vfx(e, options.available_vfx));
    // Captions are measured against the frame; the orientation's own errors come below, in
    // field order, so it is only peeked at here.
    let frame = match get(map, "orientation") {
        None => Some(Orientation::Landscape),
        Some(Json::String(text)) => Orientation::parse(text),
        Some(_) => None,
    };
    let image_inputs = array(
        map,
        "image_inputs",
        options.clip_limit,
        "images",
        &mut errors,
    )
    .and_then(|items| {
        let path = root.key("image_inputs");
        check_each(items, &mut errors, |i, item, errors| {
            rules::image::check(
                item,
                &path.index(i),
                ai_engine,
                engine_vfx.as_deref().unwrap_or(options.available_vfx),
                frame,
                errors,
            )
        })
    });
    let orientation = reader::enum_or(
        map,
        &root,
        "orientation",
        Orientation::Landscape,
        &mut errors,
    );
    let resolution = reader::enum_or(map, &root, "resolution", Resolution::P720, &mut errors);
    let audio_url = optional_url(map, "audio_url", &mut errors);
    let transition = reader::enum_or(map, &root, "transition", Transition::Cut, &mut errors);
    let project = optional_uuid(map, "project", &mut errors);
    let branding = match get(map, "branding") {
        None => Some(None),
        Some(v) => rules::branding::check(
            v,
            &root.key("branding"),
            options.templates,
            false,
            &mut errors,
        ),
    };
    let webhook_url = optional_url(map, "webhook_url", &mut errors);
    let title = optional_title(map, &mut errors);

    finish(errors, || {
        Some(CreateVideoRequest {
            image_inputs: image_inputs?,
            orientation: orientation?,
            resolution: resolution?,
            audio_url: audio_url?,
            transition: transition?,
            ai_engine: ai_engine?,
            project: project?,
            branding: branding?,
            webhook_url: webhook_url?,
            title: title?,
        })
    })
}

/// Parses and validates a `POST /combine_video_clips` body. The cross-clip rule needs the
/// clips' facts and runs afterwards: [`check_combine_clips`].
pub fn validate_combine_video_clips(
    json: &str,
    options: &Options<'_>,
) -> Result<CombineVideoClipsRequest, Rejection> {
    let arena = json::arena_for(json);
    combine_video_clips(&parse(json, &arena)?, options)
}

fn combine_video_clips(
    body: &Json<'_>,
    options: &Options<'_>,
) -> Result<CombineVideoClipsRequest, Rejection> {
    let map = as_object(body)?;
    let root = Path::Root;
    let mut errors = Errors::new(body);
    reader::reject_unknown(map, &root, COMBINE_FIELDS, &mut errors);

    let uuids = array(
        map,
        "video_clip_uuids",
        options.clip_limit,
        "clips",
        &mut errors,
    )
    .and_then(|items| {
        let path = root.key("video_clip_uuids");
        check_each(items, &mut errors, |i, item, errors| {
            uuid_value(item, &path.index(i), errors)
        })
    });
    let orientation = reader::enum_required(map, &root, "orientation", &mut errors);
    let resolution = reader::enum_required(map, &root, "resolution", &mut errors);
    let audio_url = optional_url(map, "audio_url", &mut errors);
    let transition = reader::enum_or(map, &root, "transition", Transition::Cut, &mut errors);
    let project = optional_uuid(map, "project", &mut errors);
    let branding = match get(map, "branding") {
        None => Some(None),
        Some(v) => rules::branding::check(
            v,
            &root.key("branding"),
            options.templates,
            true,
            &mut errors,
        ),
    };
    let webhook_url = optional_url(map, "webhook_url", &mut errors);
    let title = optional_title(map, &mut errors);

    finish(errors, || {
        Some(CombineVideoClipsRequest {
            video_clip_uuids: uuids?,
            orientation: orientation?,
            resolution: resolution?,
            audio_url: audio_url?,
            transition: transition?,
            project: project?,
            branding: branding?,
            webhook_url: webhook_url?,
            title: title?,
        })
    })
}

/// Parses and validates a `POST /create_brand_kit` body (docs/API-DESIGN.md#brand-kits); the
/// name comes back trimmed.
pub fn validate_create_brand_kit(
    json: &str,
    templates: &[crate::types::Template],
) -> Result<BrandKitBody, Rejection> {
    let arena = json::arena_for(json);
    let body = parse(json, &arena)?;
    let map = as_object(&body)?;
    let mut errors = Errors::new(&body);
    reader::reject_unknown(map, &Path::Root, rules::brand_kit::KIT_FIELDS, &mut errors);
    let kit = rules::brand_kit::members(map, templates, &mut errors);
    finish(errors, || kit)
}

/// Parses and validates a `POST /update_brand_kit` body: `uuid` and the kit's new content.
pub fn validate_update_brand_kit(
    json: &str,
    templates: &[crate::types::Template],
) -> Result<UpdateBrandKitRequest, Rejection> {
    let arena = json::arena_for(json);
    let body = parse(json, &arena)?;
    let map = as_object(&body)?;
    let mut errors = Errors::new(&body);
    reader::reject_unknown(
        map,
        &Path::Root,
        rules::brand_kit::UPDATE_FIELDS,
        &mut errors,
    );
    let path = Path::Root.key("uuid");
    let uuid = match get(map, "uuid") {
        None => {
            reader::required(&path, &mut errors);
            None
        }
        Some(v) => uuid_value(v, &path, &mut errors),
    };
    let kit = rules::brand_kit::members(map, templates, &mut errors);
    finish(errors, || {
        let kit = kit?;
        Some(UpdateBrandKitRequest {
            uuid: uuid?,
            name: kit.name,
            intro: kit.intro,
            outro: kit.outro,
            speed_ramp: kit.speed_ramp,
            audio_url: kit.audio_url,
        })
    })
}

/// Parses and validates a `POST /create_project` body; the name comes back trimmed.
pub fn validate_create_project(json: &str) -> Result<CreateProjectRequest, Rejection> {
    let arena = json::arena_for(json);
    let body = parse(json, &arena)?;
    let map = as_object(&body)?;
    let root = Path::Root;
    let mut errors = Errors::new(&body);
    reader::reject_unknown(map, &root, &["name"], &mut errors);
    let path = root.key("name");
    let name =
        match get(map, "name") {
            None => {
                reader::required(&path, &mut errors);
                None
            }
            Some(v) => reader::string(v, &path, &mut errors).and_then(|name| {
                match rules::project::check_name(name) {
                    Ok(name) => Some(name),
                    Err((code, message)) => {
                        errors.push(&path, code, message);
                        None
                    }
                }
            }),
        };
    finish(errors, || Some(CreateProjectRequest { name: name? }))
}

fn parse<'d>(text: &'d str, arena: &'d bumpalo::Bump) -> Result<Json<'d>, Rejection> {
    json::parse(text, arena)
        .map_err(|err| Rejection::Malformed(format!("the body is not valid JSON: {err}")))
}

fn as_object<'v, 'a>(body: &'v Json<'a>) -> Result<&'v Object<'a>, Rejection> {
    let Json::Object(map) = body else {
        return Err(Rejection::Malformed(format!(
            "the body must be a JSON object, not {}",
            reader::type_name(body)
        )));
    };
    Ok(map)
}

/// The outcome: the built request when no rule failed, every error otherwise.
fn finish<T>(errors: Errors<'_>, build: impl FnOnce() -> Option<T>) -> Result<T, Rejection> {
    if !errors.is_empty() {
        let (errors, total) = errors.into_parts();
        return Err(Rejection::Invalid { errors, total });
    }
    // Every builder part is `Some` when no error was recorded; a `None` here is a rule that
    // failed without reporting, which must not pass silently either.
    build().ok_or_else(|| Rejection::Invalid {
        errors: vec![FieldError::new(
            "",
            ErrorCode::InvalidValue,
            "the body is invalid",
        )],
        total: 1,
    })
}

/// Checks every element (so every error is reported); the values when all are valid.
fn check_each<'a, T>(
    items: &'a [Json<'a>],
    errors: &mut Errors,
    mut check: impl FnMut(usize, &'a Json<'a>, &mut Errors) -> Option<T>,
) -> Option<Vec<T>> {
    let mut values = Some(Vec::with_capacity(items.len()));
    for (i, item) in items.iter().enumerate() {
        match (check(i, item, errors), values.as_mut()) {
            (Some(value), Some(list)) => list.push(value),
            _ => values = None,
        }
    }
    values
}

/// A required, non-empty array bounded by the clip limit.
fn array<'a>(
    map: &Object<'a>,
    key: &str,
    limit: usize,
    noun: &str,
    errors: &mut Errors,
) -> Option<&'a [Json<'a>]> {
    let path = Path::Root.key(key);
    let Some(value) = get(map, key) else {
        reader::required(&path, errors);
        return None;
    };
    let Json::Array(items) = value else {
        reader::wrong_type(&path, "an array", value, errors);
        return None;
    };
    if items.is_empty() {
        errors.push(
            &path,
            ErrorCode::Empty,
            format!("{key} must hold at least one element"),
        );
        return None;
    }
    if items.len() > limit {
        errors.push(
            &path,
            ErrorCode::TooMany,
            format!(
                "this account allows at most {limit} {noun} per video; {key} has {}",
                items.len()
            ),
        );
        // Fall through: the elements are still checked, so every error is reported at once.
    }
    Some(*items)
}

pub(crate) fn optional_url(
    map: &Object<'_>,
    key: &str,
    errors: &mut Errors,
) -> Option<Option<String>> {
    match get(map, key) {
        None => Some(None),
        Some(v) => rules::image::url(v, &Path::Root.key(key), errors).map(Some),
    }
}

/// `title`, cleaned (`rules::title`).
fn optional_title(map: &Object<'_>, errors: &mut Errors) -> Option<Option<String>> {
    let path = Path::Root.key("title");
    let Some(value) = get(map, "title") else {
        return Some(None);
    };
    let text = reader::string(value, &path, errors)?;
    match rules::title::check(text) {
        Ok(title) => Some(Some(title)),
        Err((code, message)) => {
            errors.push(&path, code, message);
            None
        }
    }
}

fn optional_uuid(map: &Object<'_>, key: &str, errors: &mut Errors) -> Option<Option<uuid::Uuid>> {
    match get(map, key) {
        None => Some(None),
        Some(v) => uuid_value(v, &Path::Root.key(key), errors).map(Some),
    }
}
