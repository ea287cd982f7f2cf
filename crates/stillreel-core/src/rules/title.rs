//! Video titles (docs/API-DESIGN.md#titles): cleaned as template text is (control, separator
//! and bidi characters dropped, so a library shows the text that was checked), on one line (a
//! newline becomes a space), trimmed; then 1 to [`TITLE_MAX_CHARS`] characters.

use crate::ErrorCode;
use crate::limits::TITLE_MAX_CHARS;
use crate::rules::template_text;

/// The title as stored and echoed: `text` cleaned, on one line and trimmed.
pub fn clean(text: &str) -> String {
    template_text::clean(text)
        .replace('\n', " ")
        .trim()
        .to_owned()
}

/// What of a search (`get_videos?q=`) a title can hold: the characters a title never keeps
/// dropped and a newline as a space, but not trimmed (a space in a search is part of it).
/// Such characters could match nothing, and PostgreSQL refuses a NUL in text outright.
pub fn search_text(q: &str) -> String {
    template_text::clean(q).replace('\n', " ")
}

/// The cleaned title, or the code and message of what is wrong with it. An empty value is
/// `empty` (leave `title` out for none); one that only held dropped characters is
/// `empty_after_sanitizing`.
pub fn check(text: &str) -> Result<String, (ErrorCode, String)> {
    if text.trim().is_empty() {
        return Err((
            ErrorCode::Empty,
            "title must not be empty; leave it out for a video without one".to_owned(),
        ));
    }
    let cleaned = clean(text);
    if cleaned.is_empty() {
        return Err((
            ErrorCode::EmptyAfterSanitizing,
            "title holds only control, separator or bidi characters, which are removed".to_owned(),
        ));
    }
    let length = cleaned.chars().count();
    if length > TITLE_MAX_CHARS {
        return Err((
            ErrorCode::TooLong,
            format!("title must be at most {TITLE_MAX_CHARS} characters; it has {length}"),
        ));
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_to_one_trimmed_line_and_counts_characters() {
        assert_eq!(
            check("  12 Oak Lane\nOpen house \u{202E}x ").as_deref(),
            Ok("12 Oak Lane Open house x")
        );
        assert_eq!(check(&"é".repeat(120)).map(|t| t.chars().count()), Ok(120));
        assert_eq!(
            check(&"é".repeat(121)).map_err(|e| e.0),
            Err(ErrorCode::TooLong)
        );
        // Dropped characters do not count toward the limit.
        let padded = format!("{}{}", "a".repeat(120), "\u{200E}".repeat(5));
        assert_eq!(check(&padded).map(|t| t.len()), Ok(120));
        assert_eq!(check(" \t ").map_err(|e| e.0), Err(ErrorCode::Empty));
        assert_eq!(search_text(" oak\0\u{202E}\nlane "), " oak lane ");
        assert_eq!(
            check("\u{202E}\u{0}").map_err(|e| e.0),
            Err(ErrorCode::EmptyAfterSanitizing)
        );
    }
}
