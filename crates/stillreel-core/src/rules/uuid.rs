//! Project and clip ids: canonical hyphenated UUIDs (`8-4-4-4-12` hex digits, any case).
//! The braced, URN and 32-digit forms `uuid` also parses are refused: ids come from our own
//! responses, so another form means the client is sending something else.

use uuid::Uuid;

use crate::ErrorCode;
use crate::json::Json;
use crate::path::Path;
use crate::reader::{self, Errors};

/// The UUID, or `None` when `text` is not a canonical hyphenated UUID.
pub fn parse(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok()
}

/// A UUID member's value, its errors (not a string, not canonical) pushed to `errors`.
pub(crate) fn value(value: &Json<'_>, path: &Path<'_>, errors: &mut Errors) -> Option<Uuid> {
    let text = reader::string(value, path, errors)?;
    let parsed = parse(text);
    if parsed.is_none() {
        errors.push(
            path,
            ErrorCode::InvalidUuid,
            format!(
                "{} must be a UUID like 67e55044-10b1-426f-9247-bb680e5fe0c8",
                reader::name(path)
            ),
        );
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn canonical_forms_only() {
        assert!(parse("67e55044-10b1-426f-9247-bb680e5fe0c8").is_some());
        assert!(parse("67E55044-10B1-426F-9247-BB680E5FE0C8").is_some());
        assert!(parse("67e5504410b1426f9247bb680e5fe0c8").is_none());
        assert!(parse("{67e55044-10b1-426f-9247-bb680e5fe0c8}").is_none());
        assert!(parse("urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8").is_none());
        assert!(parse("67e55044-10b1-426f-9247-bb680e5fe0cg").is_none());
        assert!(parse("").is_none());
    }
}
