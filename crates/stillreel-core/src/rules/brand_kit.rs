//! Brand kits: a name (the project-name rule), an intro and an outro checked exactly as a
//! request's `branding` checks them, the speed ramp, and a default soundtrack under the URL
//! rule. A kit names no other kit (docs/API-DESIGN.md#brand-kits).

use crate::error::Rejection;
use crate::json;
use crate::path::Path;
use crate::reader::{self, Errors, get};
use crate::types::{BrandKitBody, Template, TemplateSlotKind, UpdateBrandKitRequest};
use crate::validate::{as_object, finish, optional_url, parse, uuid_value};

const KIT_FIELDS: &[&str] = &["name", "intro", "outro", "speed_ramp", "audio_url"];
const UPDATE_FIELDS: &[&str] = &["uuid", "name", "intro", "outro", "speed_ramp", "audio_url"];

/// Parses and validates a `POST /create_brand_kit` body; the name comes back trimmed.
pub fn validate_create_brand_kit(
    json: &str,
    templates: &[Template],
) -> Result<BrandKitBody, Rejection> {
    let arena = json::arena_for(json);
    let body = parse(json, &arena)?;
    let map = as_object(&body)?;
    let mut errors = Errors::new(&body);
    reader::reject_unknown(map, &Path::Root, KIT_FIELDS, &mut errors);
    let kit = members(map, templates, &mut errors);
    finish(errors, || kit)
}

/// Parses and validates a `POST /update_brand_kit` body: `uuid` and the kit's new content.
pub fn validate_update_brand_kit(
    json: &str,
    templates: &[Template],
) -> Result<UpdateBrandKitRequest, Rejection> {
    let arena = json::arena_for(json);
    let body = parse(json, &arena)?;
    let map = as_object(&body)?;
    let mut errors = Errors::new(&body);
    reader::reject_unknown(map, &Path::Root, UPDATE_FIELDS, &mut errors);
    let path = Path::Root.key("uuid");
    let uuid = match get(map, "uuid") {
        None => {
            reader::required(&path, &mut errors);
            None
        }
        Some(v) => uuid_value(v, &path, &mut errors),
    };
    let kit = members(map, templates, &mut errors);
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

/// The kit's members; `None` when one is invalid (its errors are in `errors`).
fn members(
    map: &json::Object<'_>,
    templates: &[Template],
    errors: &mut Errors,
) -> Option<BrandKitBody> {
    let root = Path::Root;
    let name_path = root.key("name");
    let name =
        match get(map, "name") {
            None => {
                reader::required(&name_path, errors);
                None
            }
            Some(v) => reader::string(v, &name_path, errors).and_then(|name| {
                match super::project::check_name(name) {
                    Ok(name) => Some(name),
                    Err((code, message)) => {
                        errors.push(&name_path, code, message);
                        None
                    }
                }
            }),
        };
    let intro = super::branding::slot(map, &root, TemplateSlotKind::Intro, templates, errors);
    let outro = super::branding::slot(map, &root, TemplateSlotKind::Outro, templates, errors);
    let speed_ramp = match get(map, "speed_ramp") {
        None => Some(false),
        Some(json::Json::Bool(b)) => Some(*b),
        Some(other) => {
            reader::wrong_type(&root.key("speed_ramp"), "a boolean", other, errors);
            None
        }
    };
    let audio_url = optional_url(map, "audio_url", errors);
    Some(BrandKitBody {
        name: name?,
        intro: intro?,
        outro: outro?,
        speed_ramp: speed_ramp?,
        audio_url: audio_url?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog;
    use crate::error::ErrorCode;

    fn codes(result: Result<impl std::fmt::Debug, Rejection>) -> Vec<(String, ErrorCode)> {
        match result {
            Err(Rejection::Invalid { errors, .. }) => {
                errors.into_iter().map(|e| (e.field, e.code)).collect()
            }
            other => panic!("expected field errors, got {other:?}"),
        }
    }

    #[test]
    fn a_kit_is_checked_like_a_requests_branding() {
        let templates = catalog::builtin_templates();
        let kit = validate_create_brand_kit(
            r#"{"name": "  Acme Realty ", "speed_ramp": true,
                "audio_url": "https://cdn.example.com/a.mp3"}"#,
            templates,
        )
        .expect("valid");
        assert_eq!(kit.name, "Acme Realty");
        assert!(kit.speed_ramp);
        assert_eq!(
            kit.audio_url.as_deref(),
            Some("https://cdn.example.com/a.mp3")
        );
        assert_eq!(
            codes(validate_create_brand_kit(
                r#"{"intro": {"template": "no-such"}, "brand_kit": "x", "audio_url": "ftp://a/b",
                    "speed_ramp": 1}"#,
                templates,
            )),
            vec![
                ("intro.template".to_owned(), ErrorCode::TemplateUnknown),
                ("brand_kit".to_owned(), ErrorCode::UnknownField),
                ("audio_url".to_owned(), ErrorCode::InvalidUrl),
                ("speed_ramp".to_owned(), ErrorCode::InvalidType),
                ("name".to_owned(), ErrorCode::Required),
            ]
        );
        assert_eq!(
            codes(validate_update_brand_kit(r#"{"name": "A"}"#, templates)),
            vec![("uuid".to_owned(), ErrorCode::Required)]
        );
    }
}
