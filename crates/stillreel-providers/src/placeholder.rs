//! The `{{name}}` placeholders of prompt and model input templates: which names each kind of
//! template knows, the check an operator's template passes at start-up, and the filling.

/// The placeholders of a prompt template.
pub const PROMPT_PLACEHOLDERS: &[&str] = &[
    "room_type",
    "staging_style",
    "people",
    "ethnicity",
    "motion",
];
/// The placeholders of a model input template.
pub const INPUT_PLACEHOLDERS: &[&str] = &[
    "image", "prompt", "width", "height", "seconds", "fps", "frames",
];

/// Checks a prompt template: only known placeholders, balanced braces.
pub fn check_template(template: &str) -> Result<(), String> {
    check(template, PROMPT_PLACEHOLDERS)
}

/// Checks a string of an input template.
pub fn check_placeholders(text: &str) -> Result<(), String> {
    check(text, INPUT_PLACEHOLDERS)
}

fn check(text: &str, known: &[&str]) -> Result<(), String> {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| format!("{{{{ without }}}} in {text:?}"))?;
        let name = after[..end].trim();
        if !known.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{{{name}}}}} (known: {})",
                known.join(", ")
            ));
        }
        rest = &after[end + 2..];
    }
    Ok(())
}

/// `template` with each `{{name}}` replaced by `value(name)` (unknown names kept as written).
pub fn fill(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = after[..end].trim();
                match value(name) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&rest[start..start + 2 + end + 2]),
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
