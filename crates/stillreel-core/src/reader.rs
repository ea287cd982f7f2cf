//! Reading untyped JSON while collecting field errors, so wrong types and unknown members
//! become `{field, code, message}` like every other rule instead of a serde message.

use crate::json::{Json, Object};

use crate::error::{ErrorCode, FieldError};
use crate::path::Path;
use crate::types::WireEnum;
use crate::types::enums::join_or;

/// The errors found so far, in the order the checks ran: the first
/// [`MAX_FIELD_ERRORS`](crate::limits::MAX_FIELD_ERRORS) kept, the rest only counted, so a
/// hostile body cannot make the validator build (and the server send) millions of them.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    kept: Vec<FieldError>,
    total: usize,
}

impl Errors {
    pub(crate) fn push(&mut self, path: &Path<'_>, code: ErrorCode, message: impl Into<String>) {
        self.total += 1;
        if self.kept.len() < crate::limits::MAX_FIELD_ERRORS {
            self.kept
                .push(FieldError::new(path.to_string(), code, message));
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many errors were found, kept or not; rules compare it before and after a check.
    pub(crate) fn count(&self) -> usize {
        self.total
    }

    /// The kept errors and the full count.
    pub(crate) fn into_parts(self) -> (Vec<FieldError>, usize) {
        (self.kept, self.total)
    }
}

/// The last segment of a path, to name the field in a message.
pub(crate) fn name<'p>(path: &Path<'p>) -> String {
    match path {
        Path::Root => "body".to_owned(),
        Path::Key(_, key) => (*key).to_owned(),
        Path::Index(parent, i) => format!("{}[{i}]", name(parent)),
    }
}

/// "a string", "an object", ... for `invalid_type` messages.
pub(crate) fn type_name(value: &Json<'_>) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

pub(crate) fn wrong_type(path: &Path<'_>, expected: &str, value: &Json<'_>, errors: &mut Errors) {
    errors.push(
        path,
        ErrorCode::InvalidType,
        format!(
            "{} must be {expected}, not {}",
            name(path),
            type_name(value)
        ),
    );
}

pub(crate) fn required(path: &Path<'_>, errors: &mut Errors) {
    errors.push(
        path,
        ErrorCode::Required,
        format!("{} is required", name(path)),
    );
}

/// A member, with `null` treated as absent: clients that serialize `None` as `null` must not
/// be punished for it.
pub(crate) fn get<'v, 'a>(map: &'v Object<'a>, key: &str) -> Option<&'v Json<'a>> {
    map.get(key).filter(|v| !v.is_null())
}

/// Reports every member of `map` not named in `known` as `unknown_field`.
pub(crate) fn reject_unknown(
    map: &Object<'_>,
    path: &Path<'_>,
    known: &[&str],
    errors: &mut Errors,
) {
    for key in map.keys() {
        if !known.contains(&key) {
            errors.push(
                &path.key(key),
                ErrorCode::UnknownField,
                format!(
                    "{key} is not a known field; expected {}",
                    join_or(known.iter().copied())
                ),
            );
        }
    }
}

/// The value as an object, or `invalid_type`.
pub(crate) fn object<'v, 'a>(
    value: &'v Json<'a>,
    path: &Path<'_>,
    errors: &mut Errors,
) -> Option<&'v Object<'a>> {
    match value {
        Json::Object(map) => Some(map),
        other => {
            wrong_type(path, "an object", other, errors);
            None
        }
    }
}

/// The value as a string, or `invalid_type`.
pub(crate) fn string<'v>(
    value: &'v Json<'_>,
    path: &Path<'_>,
    errors: &mut Errors,
) -> Option<&'v str> {
    match value {
        Json::String(s) => Some(s),
        other => {
            wrong_type(path, "a string", other, errors);
            None
        }
    }
}

/// The value as one of the enum's spellings: `invalid_type` or `invalid_value` otherwise.
pub(crate) fn enumeration<E: WireEnum>(
    value: &Json<'_>,
    path: &Path<'_>,
    errors: &mut Errors,
) -> Option<E> {
    let text = string(value, path, errors)?;
    let parsed = E::parse(text);
    if parsed.is_none() {
        errors.push(
            path,
            ErrorCode::InvalidValue,
            format!(
                "{} must be {}",
                name(path),
                join_or(E::NAMES.iter().copied())
            ),
        );
    }
    parsed
}

/// An optional enum member: its value, the default when absent, `None` when invalid.
pub(crate) fn enum_or<E: WireEnum>(
    map: &Object<'_>,
    parent: &Path<'_>,
    key: &str,
    default: E,
    errors: &mut Errors,
) -> Option<E> {
    match get(map, key) {
        None => Some(default),
        Some(value) => enumeration(value, &parent.key(key), errors),
    }
}

/// A required enum member.
pub(crate) fn enum_required<E: WireEnum>(
    map: &Object<'_>,
    parent: &Path<'_>,
    key: &str,
    errors: &mut Errors,
) -> Option<E> {
    let path = parent.key(key);
    match get(map, key) {
        None => {
            required(&path, errors);
            None
        }
        Some(value) => enumeration(value, &path, errors),
    }
}
