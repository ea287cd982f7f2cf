//! Branding: intro and outro templates that exist, fit their slot, and get values of the right
//! shape for fields they have (required ones present, text within its length); and the speed
//! ramp. Combine also takes the boolean form (docs/API-DESIGN.md#branding).

use std::collections::BTreeMap;

use crate::json::{Json, Object};

use crate::ErrorCode;
use crate::path::Path;
use crate::reader::{self, Errors, get, name};
use crate::types::{
    BrandingRequest, Template, TemplateFieldType, TemplateSlot, TemplateSlotKind, TemplateValue,
};

const BRANDING_FIELDS: &[&str] = &["brand_kit", "intro", "outro", "speed_ramp"];
const SLOT_FIELDS: &[&str] = &["template", "config"];

/// Validates `branding`. Returns `Some(None)` when valid but asking for nothing, so the
/// normalized body carries no branding (docs/API-DESIGN.md#branding).
pub(crate) fn check(
    value: &Json<'_>,
    path: &Path<'_>,
    templates: &[Template],
    allow_bool: bool,
    errors: &mut Errors,
) -> Option<Option<BrandingRequest>> {
    let map = match value {
        Json::Bool(ramp) if allow_bool => {
            return Some(ramp.then(|| BrandingRequest {
                speed_ramp: true,
                ..Default::default()
            }));
        }
        Json::Object(map) => map,
        other => {
            let expected = if allow_bool {
                "an object or a boolean"
            } else {
                "an object"
            };
            reader::wrong_type(path, expected, other, errors);
            return None;
        }
    };
    reader::reject_unknown(map, path, BRANDING_FIELDS, errors);
    let before = errors.count();
    let brand_kit = match get(map, "brand_kit") {
        None => Some(None),
        Some(v) => super::uuid::value(v, &path.key("brand_kit"), errors).map(Some),
    };
    let intro = slot(map, path, TemplateSlotKind::Intro, templates, errors);
    let outro = slot(map, path, TemplateSlotKind::Outro, templates, errors);
    let speed_ramp = match get(map, "speed_ramp") {
        None => Some(false),
        Some(Json::Bool(b)) => Some(*b),
        Some(other) => {
            reader::wrong_type(&path.key("speed_ramp"), "a boolean", other, errors);
            None
        }
    };
    if errors.count() != before {
        return None;
    }
    let branding = BrandingRequest {
        brand_kit: brand_kit?,
        intro: intro?,
        outro: outro?,
        speed_ramp: speed_ramp?,
    };
    Some(branding.is_requested().then_some(branding))
}

/// Validates `branding.intro` or `branding.outro` (or a brand kit's).
pub(crate) fn slot(
    branding: &Object<'_>,
    parent: &Path<'_>,
    kind: TemplateSlotKind,
    templates: &[Template],
    errors: &mut Errors,
) -> Option<Option<TemplateSlot>> {
    let Some(value) = get(branding, kind.as_str()) else {
        return Some(None);
    };
    let path = parent.key(kind.as_str());
    let map = reader::object(value, &path, errors)?;
    reader::reject_unknown(map, &path, SLOT_FIELDS, errors);
    let before = errors.count();

    let id_path = path.key("template");
    let template = match get(map, "template") {
        None => {
            reader::required(&id_path, errors);
            None
        }
        Some(v) => reader::string(v, &id_path, errors)
            .and_then(|id| lookup(id, kind, templates, &id_path, errors)),
    };
    let config_path = path.key("config");
    let config = match get(map, "config") {
        None => Some(None),
        Some(v) => reader::object(v, &config_path, errors).map(Some),
    };
    let (Some(template), Some(config)) = (template, config) else {
        return None;
    };
    let empty = Object::default();
    let values = check_values(config.unwrap_or(&empty), &config_path, template, errors);
    if errors.count() != before {
        return None;
    }
    Some(Some(TemplateSlot {
        template: template.id.clone(),
        config: values,
    }))
}

/// The template with this id, if it exists and belongs in this slot.
fn lookup<'t>(
    id: &str,
    kind: TemplateSlotKind,
    templates: &'t [Template],
    path: &Path<'_>,
    errors: &mut Errors,
) -> Option<&'t Template> {
    let Some(template) = templates.iter().find(|t| t.id == id) else {
        let known: Vec<&str> = templates
            .iter()
            .filter(|t| t.slot == kind)
            .map(|t| t.id.as_str())
            .collect();
        errors.push(
            path,
            ErrorCode::TemplateUnknown,
            format!(
                "no template is called {:?}; {kind} templates: {}",
                crate::error::echoed(id),
                crate::types::enums::join_or(known.into_iter())
            ),
        );
        return None;
    };
    if template.slot != kind {
        errors.push(
            path,
            ErrorCode::TemplateSlotMismatch,
            format!(
                "{id} is an {} template and cannot be used as the {kind}",
                template.slot
            ),
        );
        return None;
    }
    Some(template)
}

/// Checks the field values given to a template.
fn check_values(
    config: &Object<'_>,
    path: &Path<'_>,
    template: &Template,
    errors: &mut Errors,
) -> BTreeMap<String, TemplateValue> {
    let mut values = BTreeMap::new();
    for (position, (key, value)) in config.iter().enumerate() {
        // The key is the client's: repeated only up to `ECHO_MAX_CHARS`.
        let field_path = path.member(crate::error::clipped(key), position);
        let Some(field) = template.field(key) else {
            let keys: Vec<&str> = template.fields.iter().map(|f| f.key.as_str()).collect();
            errors.push(
                &field_path,
                ErrorCode::TemplateFieldUnknown,
                format!(
                    "{} has no field {:?}; its fields are {}",
                    template.id,
                    crate::error::echoed(key),
                    crate::types::enums::join_or(keys.into_iter())
                ),
            );
            continue;
        };
        if value.is_null() {
            continue;
        }
        if let Some(v) = check_value(value, &field_path, field, errors) {
            values.insert(key.to_owned(), v);
        }
    }
    for field in template.fields.iter().filter(|f| f.required) {
        if get(config, &field.key).is_none() {
            reader::required(&path.key(&field.key), errors);
        }
    }
    values
}

/// Checks one value against its field: `{"value": text}` for text, `{"url": url}` for images.
fn check_value(
    value: &Json<'_>,
    path: &Path<'_>,
    field: &crate::types::TemplateField,
    errors: &mut Errors,
) -> Option<TemplateValue> {
    let (member, other) = match field.kind {
        TemplateFieldType::Text => ("value", "url"),
        TemplateFieldType::Image => ("url", "value"),
    };
    let shape_error = |errors: &mut Errors| {
        errors.push(
            path,
            ErrorCode::TemplateFieldType,
            format!(
                "{} is {} field: give it as {{\"{member}\": \"...\"}}",
                name(path),
                article(field.kind)
            ),
        );
    };
    let Json::Object(map) = value else {
        shape_error(errors);
        return None;
    };
    if map.contains_key(other) && !map.contains_key(member) {
        shape_error(errors);
        return None;
    }
    reader::reject_unknown(map, path, &[member], errors);
    let member_path = path.key(member);
    match field.kind {
        TemplateFieldType::Image => {
            let url = crate::rules::image::url_required(get(map, "url"), &member_path, errors)?;
            Some(TemplateValue::Image { url })
        }
        TemplateFieldType::Text => {
            let Some(v) = get(map, "value") else {
                reader::required(&member_path, errors);
                return None;
            };
            // What is drawn (rules::template_text) is what the limits count and what is kept.
            let text = crate::rules::template_text::clean(reader::string(v, &member_path, errors)?);
            let length = text.chars().count();
            if field.required && text.trim().is_empty() {
                errors.push(
                    &member_path,
                    ErrorCode::Empty,
                    format!("{} must not be empty", name(path)),
                );
                return None;
            }
            if let Some(max) = field.max_length.filter(|&max| length > max) {
                errors.push(
                    &member_path,
                    ErrorCode::TooLong,
                    format!(
                        "{} must be at most {max} characters; it has {length}",
                        name(path)
                    ),
                );
                return None;
            }
            Some(TemplateValue::Text {
                value: text.into_owned(),
            })
        }
    }
}

fn article(kind: TemplateFieldType) -> &'static str {
    match kind {
        TemplateFieldType::Text => "a text",
        TemplateFieldType::Image => "an image",
    }
}
