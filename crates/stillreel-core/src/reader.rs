//! Reading untyped JSON while collecting field errors, so wrong types and unknown members
//! become `{field, code, message}` like every other rule instead of a serde message.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::json::{Json, Object};

use crate::error::{ErrorCode, FieldError};
use crate::path::Path;
use crate::types::WireEnum;
use crate::types::enums::join_or;

/// The errors found so far: the [`MAX_FIELD_ERRORS`](crate::limits::MAX_FIELD_ERRORS) that
/// come first in document order kept, the rest only counted, so a hostile body cannot make
/// the validator build (and the server send) millions of them.
///
/// Document order is the order of the offending members and elements in the body: each error
/// gets a sort key, the positions (member index in its object, element index in its array) of
/// its path from the root, compared lexicographically, so an object's own error comes before
/// its members' errors. A path that leaves the document (a missing required member, say) takes
/// the position just past the last member or element of the deepest container it reaches: it
/// goes at its parent object's end, after every error inside that object and before whatever
/// follows the object. Errors with equal keys keep the order the checks ran.
///
/// Only a bounded max-heap of the smallest keys is held, so memory stays at the cap whatever
/// the count; a valid body never touches it (no key is computed and nothing is allocated).
#[derive(Debug)]
pub(crate) struct Errors<'d> {
    document: &'d Json<'d>,
    kept: BinaryHeap<Ranked>,
    total: usize,
}

/// A kept error with its place in the final list; the heap's top is the one listed last.
#[derive(Debug)]
struct Ranked {
    key: Vec<u32>,
    /// The order the checks ran, to break ties between errors at the same position.
    sequence: usize,
    error: FieldError,
}

impl Ranked {
    fn rank(&self) -> (&[u32], usize) {
        (&self.key, self.sequence)
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl<'d> Errors<'d> {
    /// An empty list for errors about `document`, the parsed body the paths point into.
    pub(crate) fn new(document: &'d Json<'d>) -> Self {
        Self {
            document,
            kept: BinaryHeap::new(),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, path: &Path<'_>, code: ErrorCode, message: impl Into<String>) {
        let sequence = self.total;
        self.total += 1;
        let key = position(self.document, path);
        if self.kept.len() >= crate::limits::MAX_FIELD_ERRORS {
            // Full: the new error only gets in by pushing out the one listed last. A later
            // error never wins a tie, so this compares the key alone.
            match self.kept.peek() {
                Some(last) if key < last.key => {
                    self.kept.pop();
                }
                _ => return,
            }
        }
        self.kept.push(Ranked {
            key,
            sequence,
            error: FieldError::new(path.to_string(), code, message),
        });
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many errors were found, kept or not; rules compare it before and after a check.
    pub(crate) fn count(&self) -> usize {
        self.total
    }

    /// The kept errors in document order, and the full count.
    pub(crate) fn into_parts(self) -> (Vec<FieldError>, usize) {
        let kept = self.kept.into_sorted_vec();
        (kept.into_iter().map(|r| r.error).collect(), self.total)
    }
}

/// The sort key of `path` in `document`: see [`Errors`].
fn position(document: &Json<'_>, path: &Path<'_>) -> Vec<u32> {
    // The path is a list from leaf to root; walk it from the root.
    let mut segments = Vec::new();
    let mut at = path;
    loop {
        match at {
            Path::Root => break,
            Path::Key(parent, _) | Path::Member(parent, _, _) | Path::Index(parent, _) => {
                segments.push(at);
                at = parent;
            }
        }
    }
    let mut key = Vec::with_capacity(segments.len());
    let mut value = document;
    // Positions beyond u32 cannot occur in a body of at most 1 MiB; saturate anyway.
    let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    for segment in segments.into_iter().rev() {
        let found = match (segment, value) {
            (Path::Member(_, _, i), Json::Object(map)) => map.member(*i).map(|v| (*i, v)),
            (Path::Key(_, name), Json::Object(map)) => map.position(name),
            (Path::Index(_, i), Json::Array(items)) => items.get(*i).map(|v| (*i, v)),
            _ => None,
        };
        match found {
            Some((i, next)) => {
                key.push(index(i));
                value = next;
            }
            None => {
                // Not in the document: just past the end of where it would be.
                match value {
                    Json::Object(map) => key.push(index(map.len())),
                    Json::Array(items) => key.push(index(items.len())),
                    _ => {}
                }
                break;
            }
        }
    }
    key
}

/// The last segment of a path, to name the field in a message.
pub(crate) fn name<'p>(path: &Path<'p>) -> String {
    match path {
        Path::Root => "body".to_owned(),
        Path::Key(_, key) | Path::Member(_, key, _) => (*key).to_owned(),
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
    for (position, key) in map.keys().enumerate() {
        if !known.contains(&key) {
            // The name is the client's: repeated only up to `ECHO_MAX_CHARS`.
            errors.push(
                &path.member(crate::error::clipped(key), position),
                ErrorCode::UnknownField,
                format!(
                    "{} is not a known field; expected {}",
                    crate::error::echoed(key),
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

#[cfg(test)]
mod tests {
    use crate::limits::MAX_FIELD_ERRORS;
    use crate::{Options, Rejection, validate_combine_video_clips, validate_create_video};

    fn rejected(
        outcome: Result<impl std::fmt::Debug, Rejection>,
    ) -> (Vec<(String, String)>, usize) {
        match outcome {
            Err(Rejection::Invalid { errors, total }) => (
                errors
                    .into_iter()
                    .map(|e| (e.field, e.code.as_str().to_owned()))
                    .collect(),
                total,
            ),
            other => panic!("expected a 422, got {other:?}"),
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(f, c)| ((*f).to_owned(), (*c).to_owned()))
            .collect()
    }

    #[test]
    fn errors_follow_the_body_not_the_schema() {
        // Schema order would be: the unknown member, orientation (required), resolution,
        // video_clip_uuids' element. Missing members go at the end of their object.
        let body = r#"{"zzz": 1, "resolution": "8k",
            "branding": {"template": "no-such", "bogus": true},
            "video_clip_uuids": ["not-a-uuid"]}"#;
        let (errors, total) = rejected(validate_combine_video_clips(body, &Options::default()));
        assert_eq!(total, errors.len());
        let fields: Vec<&str> = errors.iter().map(|(f, _)| f.as_str()).collect();
        let position = |field: &str| {
            fields
                .iter()
                .position(|f| *f == field)
                .unwrap_or_else(|| panic!("{field} missing from {fields:?}"))
        };
        assert_eq!(errors[0], ("zzz".to_owned(), "unknown_field".to_owned()));
        assert!(position("resolution") < position("branding.bogus"));
        assert!(position("branding.bogus") < position("video_clip_uuids[0]"));
        assert_eq!(fields.last(), Some(&"orientation"), "{fields:?}");
    }

    #[test]
    fn document_order_within_one_object() {
        let body = r#"{"webhook_url": "nope", "extra": 1, "image_inputs": [], "ai_engine": "v1"}"#;
        let (errors, _) = rejected(validate_create_video(body, &Options::default()));
        assert_eq!(
            errors,
            pairs(&[
                ("webhook_url", "invalid_url"),
                ("extra", "unknown_field"),
                ("image_inputs", "empty"),
                ("ai_engine", "invalid_value"),
            ])
        );
    }

    #[test]
    fn the_first_hundred_by_position_are_kept() {
        // 150 bad elements would be reported before the unknown members in schema order; in
        // document order the unknown member at the start is listed and the one at the end,
        // past the cut, is only counted.
        let elements = vec!["1"; 150].join(",");
        let body = format!(r#"{{"first": 1, "image_inputs": [{elements}], "last": 1}}"#);
        let options = Options {
            clip_limit: 1000,
            ..Options::default()
        };
        let (errors, total) = rejected(validate_create_video(&body, &options));
        assert_eq!(total, 152);
        assert_eq!(errors.len(), MAX_FIELD_ERRORS);
        assert_eq!(errors[0], ("first".to_owned(), "unknown_field".to_owned()));
        for (i, (field, code)) in errors[1..].iter().enumerate() {
            assert_eq!(field, &format!("image_inputs[{i}]"));
            assert_eq!(code, "invalid_type");
        }
        assert!(!errors.iter().any(|(f, _)| f == "last"));
    }

    #[test]
    fn a_huge_object_of_unknown_members_stays_linear() {
        // 90,000 members: a lookup per error would be quadratic; positions come from the walk.
        let members: Vec<String> = (0..90_000).map(|i| format!(r#""k{i}":1"#)).collect();
        let body = format!("{{{}}}", members.join(","));
        let (errors, total) = rejected(validate_create_video(&body, &Options::default()));
        assert_eq!(total, 90_001);
        assert_eq!(errors.len(), MAX_FIELD_ERRORS);
        for (i, (field, _)) in errors.iter().enumerate() {
            assert_eq!(field, &format!("k{i}"));
        }
    }
}
