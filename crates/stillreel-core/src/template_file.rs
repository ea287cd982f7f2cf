//! A deployment's own template files (`STILLREEL_TEMPLATES_DIR`): parsed and checked here, so
//! the server refuses a file the renderer could not draw, with an error naming the file and
//! the field. The core does no I/O: the caller reads the files and passes their text.

use crate::types::{FieldLayout, Template, TemplateFieldType, TemplateStyle};

/// Why a template file was refused: the file, the JSON path of the offending member
/// (empty when the file is not JSON at all), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateFileError {
    pub file: String,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for TemplateFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for TemplateFileError {}

/// Parses and checks the template in `file` (named only for errors). `known` holds the
/// templates already in the catalog: ids must stay unique, since a request names a template
/// by id alone.
pub fn parse_template_file(
    file: &str,
    text: &str,
    known: &[Template],
) -> Result<Template, TemplateFileError> {
    let fail = |field: &str, message: String| TemplateFileError {
        file: file.to_owned(),
        field: field.to_owned(),
        message,
    };
    // serde's messages name unknown and missing members and carry line and column.
    let template: Template =
        serde_json::from_str(text).map_err(|err| fail("", format!("not a template: {err}")))?;
    if !is_id(&template.id) {
        return Err(fail(
            "id",
            "must be 1 to 64 characters of a-z, 0-9 and -".to_owned(),
        ));
    }
    if known.iter().any(|t| t.id == template.id) {
        return Err(fail(
            "id",
            format!("{:?} is already in the catalog", template.id),
        ));
    }
    if template.name.trim().is_empty() {
        return Err(fail("name", "must not be empty".to_owned()));
    }
    match &template.style {
        None => return Err(fail("style", "is required to draw the template".to_owned())),
        Some(style) => check_style(style).map_err(|(f, m)| fail(&format!("style.{f}"), m))?,
    }
    if template.fields.is_empty() {
        return Err(fail("fields", "must list at least one field".to_owned()));
    }
    for (i, field) in template.fields.iter().enumerate() {
        let at = |member: &str| format!("fields[{i}].{member}");
        if !is_key(&field.key) {
            return Err(fail(
                &at("key"),
                "must be 1 to 64 characters of a-z, 0-9 and _".to_owned(),
            ));
        }
        if template.fields[..i].iter().any(|f| f.key == field.key) {
            return Err(fail(&at("key"), format!("{:?} appears twice", field.key)));
        }
        match field.kind {
            TemplateFieldType::Text => {
                if !field.max_length.is_some_and(|n| (1..=500).contains(&n)) {
                    return Err(fail(
                        &at("max_length"),
                        "a text field needs a max_length from 1 to 500".to_owned(),
                    ));
                }
            }
            TemplateFieldType::Image => {
                if field.max_length.is_some() {
                    return Err(fail(
                        &at("max_length"),
                        "is for text fields only".to_owned(),
                    ));
                }
            }
        }
        let Some(layout) = &field.layout else {
            return Err(fail(
                &at("layout"),
                "is required: the renderer draws every field".to_owned(),
            ));
        };
        check_layout(layout, field.kind)
            .map_err(|(member, message)| fail(&at(&format!("layout.{member}")), message))?;
    }
    Ok(template)
}

fn is_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn is_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// `#rrggbb`, the only color form the renderer's filter arguments accept.
fn is_color(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn check_style(style: &TemplateStyle) -> Result<(), (&'static str, String)> {
    if !is_color(&style.background) {
        return Err(("background", "must be #rrggbb".to_owned()));
    }
    if !is_color(&style.accent) {
        return Err(("accent", "must be #rrggbb".to_owned()));
    }
    if !(0.0..=1.0).contains(&style.background_opacity) {
        return Err(("background_opacity", "must be from 0 to 1".to_owned()));
    }
    Ok(())
}

fn check_layout(layout: &FieldLayout, kind: TemplateFieldType) -> Result<(), (String, String)> {
    for (name, [left, top, width, height]) in [
        ("landscape", layout.landscape),
        ("portrait", layout.portrait),
    ] {
        // The box must lie on the frame: a box off the frame draws nothing, or fails in ffmpeg.
        let inside = left >= 0.0
            && top >= 0.0
            && width > 0.0
            && height > 0.0
            && left + width <= 1.0 + 1e-6
            && top + height <= 1.0 + 1e-6;
        if !inside {
            return Err((
                name.to_owned(),
                "must be [left, top, width, height] fractions with a box inside the frame"
                    .to_owned(),
            ));
        }
    }
    if kind == TemplateFieldType::Text {
        if !(layout.font_size > 0.0 && layout.font_size <= 0.5) {
            return Err((
                "font_size".to_owned(),
                "a text field needs a font_size above 0 and at most 0.5".to_owned(),
            ));
        }
        if !is_color(&layout.color) {
            return Err(("color".to_owned(), "must be #rrggbb".to_owned()));
        }
        if !matches!(layout.align.as_str(), "left" | "center" | "right") {
            return Err((
                "align".to_owned(),
                "must be left, center or right".to_owned(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::catalog::builtin_templates;

    fn custom() -> Value {
        json!({
            "id": "intro-custom", "slot": "intro", "name": "Custom", "description": "d",
            "style": {"background": "#000000", "background_opacity": 0.5, "accent": "#ffffff"},
            "fields": [{"key": "headline", "type": "text", "required": true, "max_length": 40,
                "layout": {"landscape": [0.1, 0.7, 0.8, 0.15], "portrait": [0.05, 0.7, 0.9, 0.1],
                           "font_size": 0.06, "color": "#ffffff", "align": "left"}}]
        })
    }

    fn check(value: &Value) -> Result<Template, TemplateFileError> {
        parse_template_file("t.json", &value.to_string(), builtin_templates())
    }

    #[test]
    fn builtin_templates_pass_the_check() {
        for (i, template) in builtin_templates().iter().enumerate() {
            let text = serde_json::to_string(&json!({
                "id": format!("copy-{i}"), "slot": template.slot, "name": template.name,
                "description": template.description, "style": template.style.as_ref().map(|s| json!({
                    "background": s.background, "background_opacity": s.background_opacity, "accent": s.accent})),
                "fields": template.fields.iter().map(|f| json!({
                    "key": f.key, "type": f.kind, "required": f.required, "max_length": f.max_length,
                    "layout": f.layout})).collect::<Vec<_>>(),
            }))
            .expect("json");
            // max_length: null on image fields is read as absent.
            parse_template_file("copy.json", &text, builtin_templates())
                .unwrap_or_else(|e| panic!("{}: {e}", template.id));
        }
    }

    #[test]
    fn a_valid_custom_template_is_accepted() {
        let t = check(&custom()).expect("valid");
        assert_eq!(t.id, "intro-custom");
    }

    /// A change that breaks one member, and the field path the error must name.
    type Case = (Box<dyn Fn(&mut Value)>, &'static str);

    #[test]
    fn errors_name_the_file_and_the_field() {
        let cases: Vec<Case> = vec![
            (Box::new(|v| v["id"] = json!("intro-lower-third")), "id"),
            (Box::new(|v| v["id"] = json!("Bad Id")), "id"),
            (Box::new(|v| v["name"] = json!(" ")), "name"),
            (
                Box::new(|v| v["style"]["accent"] = json!("red")),
                "style.accent",
            ),
            (
                Box::new(|v| v["style"]["background_opacity"] = json!(2.0)),
                "style.background_opacity",
            ),
            (Box::new(|v| v["fields"] = json!([])), "fields"),
            (
                Box::new(|v| v["fields"][0]["max_length"] = Value::Null),
                "fields[0].max_length",
            ),
            (
                Box::new(|v| v["fields"][0]["layout"]["portrait"] = json!([0.5, 0.5, 0.6, 0.1])),
                "fields[0].layout.portrait",
            ),
            (
                Box::new(|v| v["fields"][0]["layout"]["font_size"] = json!(0)),
                "fields[0].layout.font_size",
            ),
            (
                Box::new(|v| v["fields"][0]["layout"]["align"] = json!("justify")),
                "fields[0].layout.align",
            ),
            (
                Box::new(|v| v["fields"][0]["layout"] = Value::Null),
                "fields[0].layout",
            ),
        ];
        for (break_it, field) in cases {
            let mut value = custom();
            break_it(&mut value);
            let err = check(&value).expect_err(field);
            assert_eq!(err.file, "t.json");
            assert_eq!(err.field, field, "{err}");
            assert!(
                err.to_string().starts_with(&format!("t.json: {field}: ")),
                "{err}"
            );
        }
    }

    #[test]
    fn unknown_members_and_bad_json_name_the_file() {
        let mut value = custom();
        value["colour"] = json!("x");
        let err = check(&value).expect_err("unknown member");
        assert!(
            err.to_string().contains("t.json") && err.message.contains("colour"),
            "{err}"
        );
        let err = parse_template_file("t.json", "{", builtin_templates()).expect_err("not json");
        assert!(
            err.to_string().starts_with("t.json: not a template"),
            "{err}"
        );
    }
}
