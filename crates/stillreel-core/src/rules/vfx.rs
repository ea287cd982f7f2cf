//! A clip's visual effect: a known type this deployment can render, and `config` only on the
//! three types that take one, with only their keys and values (docs/API-DESIGN.md#visual-effects).

use crate::json::{Json, Object};

use crate::ErrorCode;
use crate::path::Path;
use crate::reader::{self, Errors, get, name};
use crate::types::{
    ConfigField, ConfigFieldKind, Engine, LifestyleConfig, Vfx, VfxType, VirtualStagingConfig,
    WireEnum, WordDropConfig,
};

const VFX_FIELDS: &[&str] = &["type", "config"];

/// Validates one `vfx` object; `Some` when it is valid. `available` is what the request's
/// `engine` can draw on this deployment.
pub(crate) fn check(
    value: &Json<'_>,
    path: &Path<'_>,
    available: &[VfxType],
    engine: Option<Engine>,
    errors: &mut Errors,
) -> Option<Vfx> {
    let map = reader::object(value, path, errors)?;
    reader::reject_unknown(map, path, VFX_FIELDS, errors);
    let type_path = path.key("type");
    let kind = match get(map, "type") {
        None => {
            reader::required(&type_path, errors);
            None
        }
        Some(v) => reader::enumeration::<VfxType>(v, &type_path, errors),
    }?;
    let before = errors.count();
    if !available.contains(&kind) {
        let why = if kind.is_generative() && engine.is_some_and(Engine::is_generative) {
            "is not available on ai_engine generative: its model makes the clip from the \
             photo itself; use v24 or v25 for this effect"
        } else if kind.is_generative() {
            "needs a generative model provider, and none is configured on this deployment"
        } else {
            "is not available on this deployment"
        };
        errors.push(
            &type_path,
            ErrorCode::VfxUnavailable,
            format!("{kind} {why}"),
        );
    }
    let config_path = path.key("config");
    let config = get(map, "config");
    if !kind.takes_config() {
        if config.is_some() {
            errors.push(
                &config_path,
                ErrorCode::ConfigNotAllowed,
                format!("{kind} takes no config; only virtual-staging, word-drop and lifestyle do"),
            );
        }
        return if errors.count() == before {
            Vfx::plain(kind)
        } else {
            None
        };
    }
    let empty = Object::default();
    let config = match config {
        None => &empty,
        Some(v) => reader::object(v, &config_path, errors)?,
    };
    let values = check_config(config, &config_path, kind.config_fields(), errors)?;
    if errors.count() != before {
        return None;
    }
    build(kind, &values)
}

/// Checks a config object against its field table; returns each field's value (or default)
/// in table order when every field is valid.
fn check_config<'v>(
    config: &'v Object<'_>,
    path: &Path<'_>,
    fields: &'static [ConfigField],
    errors: &mut Errors,
) -> Option<Vec<&'v str>> {
    let keys: Vec<&str> = fields.iter().map(|f| f.key).collect();
    reader::reject_unknown(config, path, &keys, errors);
    let mut values = Vec::with_capacity(fields.len());
    let mut ok = true;
    for field in fields {
        let field_path = path.key(field.key);
        let value = match get(config, field.key) {
            None if field.required => {
                reader::required(&field_path, errors);
                ok = false;
                continue;
            }
            None => {
                values.push(field.default.unwrap_or_default());
                continue;
            }
            Some(v) => v,
        };
        let Some(text) = reader::string(value, &field_path, errors) else {
            ok = false;
            continue;
        };
        match field.kind {
            ConfigFieldKind::Choice { values: allowed } if !allowed.contains(&text) => {
                errors.push(
                    &field_path,
                    ErrorCode::InvalidValue,
                    format!(
                        "{} must be {}",
                        name(&field_path),
                        crate::types::enums::join_or(allowed.iter().copied())
                    ),
                );
                ok = false;
            }
            ConfigFieldKind::Text { .. } => match crate::rules::word_drop::check(text) {
                Ok(_) => values.push(text),
                Err((code, message)) => {
                    errors.push(&field_path, code, message);
                    ok = false;
                }
            },
            ConfigFieldKind::Choice { .. } => values.push(text),
        }
    }
    ok.then_some(values)
}

/// Builds the typed effect from validated config values, in field-table order.
fn build(kind: VfxType, values: &[&str]) -> Option<Vfx> {
    fn pick<E: WireEnum>(text: &str) -> Option<E> {
        E::parse(text)
    }
    Some(match kind {
        VfxType::VirtualStaging => Vfx::VirtualStaging {
            config: VirtualStagingConfig {
                room_type: pick(values[0])?,
                staging_style: pick(values[1])?,
            },
        },
        VfxType::WordDrop => Vfx::WordDrop {
            config: WordDropConfig {
                text: values[0].to_owned(),
                color: pick(values[1])?,
            },
        },
        VfxType::Lifestyle => Vfx::Lifestyle {
            config: LifestyleConfig {
                people: pick(values[0])?,
                ethnicity: pick(values[1])?,
            },
        },
        other => Vfx::plain(other)?,
    })
}
