//! word-drop text (CONTRACT §5): NFC, keep only the Latin, punctuation and currency ranges the
//! renderer's font covers, trim, then 1 to 16 characters.

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use crate::limits::WORD_DROP_MAX_CHARS;

/// Code point ranges kept by the sanitizer. Everything else (emoji, CJK, Cyrillic, Arabic,
/// control characters, newlines, stray combining marks) would render as tofu or not at all.
const KEPT: &[(char, char)] = &[
    ('\u{0020}', '\u{007E}'),
    ('\u{00A0}', '\u{024F}'),
    ('\u{1E00}', '\u{1EFF}'),
    ('\u{2010}', '\u{205E}'),
    ('\u{20A0}', '\u{20CF}'),
];

/// The sanitized text, its length in characters and the limit, for a form's "n / 16" counter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sanitized {
    pub text: String,
    pub length: usize,
    pub max: usize,
}

/// Whether the sanitizer keeps `c`.
pub fn is_kept(c: char) -> bool {
    KEPT.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// Sanitizes word-drop text: what the renderer will draw.
pub fn sanitize(text: &str) -> Sanitized {
    let kept: String = text.nfc().filter(|&c| is_kept(c)).collect();
    let text = kept.trim().to_owned();
    Sanitized {
        length: text.chars().count(),
        text,
        max: WORD_DROP_MAX_CHARS,
    }
}

/// Why the text is not acceptable, if it is not.
pub fn check(text: &str) -> Result<Sanitized, (crate::ErrorCode, String)> {
    let sanitized = sanitize(text);
    if sanitized.length == 0 {
        Err((
            crate::ErrorCode::EmptyAfterSanitizing,
            "text has no characters left after removing unsupported ones (emoji, non-Latin script, control characters)".to_owned(),
        ))
    } else if sanitized.length > WORD_DROP_MAX_CHARS {
        Err((
            crate::ErrorCode::TooLong,
            format!(
                "text must be at most {WORD_DROP_MAX_CHARS} characters after sanitizing; it has {}",
                sanitized.length
            ),
        ))
    } else {
        Ok(sanitized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_latin_and_drops_the_rest() {
        assert_eq!(sanitize("Just Listed!").text, "Just Listed!");
        assert_eq!(sanitize("Café 🏡 новый 家").text, "Café");
        assert_eq!(sanitize("  Ünïcødé\n ").text, "Ünïcødé");
        assert_eq!(sanitize("€1.2M — Sold").text, "€1.2M — Sold");
    }

    #[test]
    fn composes_before_counting() {
        // "e" + COMBINING ACUTE becomes one "é" under NFC, so it counts once and survives.
        let s = sanitize("Cafe\u{0301}");
        assert_eq!(s.text, "Café");
        assert_eq!(s.length, 4);
    }

    #[test]
    fn drops_stray_combining_marks() {
        assert_eq!(sanitize("\u{0301}x\u{20DD}").text, "x");
    }

    #[test]
    fn limits() {
        assert!(check("1234567890123456").is_ok());
        assert_eq!(check("12345678901234567").map_err(|e| e.0), Err(crate::ErrorCode::TooLong));
        assert_eq!(check("🏡🏡").map_err(|e| e.0), Err(crate::ErrorCode::EmptyAfterSanitizing));
        assert_eq!(check("   ").map_err(|e| e.0), Err(crate::ErrorCode::EmptyAfterSanitizing));
        // Removed characters do not count against the limit.
        assert!(check("Sixteen chars ok🏡🏡🏡").is_ok());
    }
}
