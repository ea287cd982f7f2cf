//! Brand kits: a name (the project-name rule), an intro and an outro checked exactly as a
//! request's `branding` checks them, the speed ramp, and a default soundtrack under the URL
//! rule. A kit names no other kit (docs/API-DESIGN.md#brand-kits).

use crate::json;
use crate::path::Path;
use crate::reader::{self, Errors, get};
use crate::types::{BrandKitBody, Template, TemplateSlotKind};

/// The members of a kit.
pub(crate) const KIT_FIELDS: &[&str] = &["name", "intro", "outro", "speed_ramp", "audio_url"];
/// The members of `update_brand_kit`.
pub(crate) const UPDATE_FIELDS: &[&str] =
    &["uuid", "name", "intro", "outro", "speed_ramp", "audio_url"];

/// The kit's members; `None` when one is invalid (its errors are in `errors`).
pub(crate) fn members(
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
    let audio_url = match get(map, "audio_url") {
        None => Some(None),
        Some(v) => super::image::url(v, &root.key("audio_url"), errors).map(Some),
    };
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
    use crate::catalog;
    use crate::error::{ErrorCode, Rejection};
    use crate::{validate_create_brand_kit, validate_update_brand_kit};

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
