//! word-drop text (docs/API-DESIGN.md#word-drop-text): NFC, keep only the Latin, punctuation and
//! currency ranges the renderer's font covers, trim, then 1 to 16 characters.

use serde::Serialize;
use unicode_normalization::{IsNormalized, is_nfc_quick};

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

/// Characters inside [`KEPT`] that are dropped all the same: the line and paragraph separators
/// (a line break in drawn text) and the bidi embedding, override and isolate controls, which
/// reorder what is drawn so the picture no longer reads as the text that was checked.
const DROPPED: &[(char, char)] = &[
    ('\u{2028}', '\u{2029}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2066}', '\u{2069}'),
];

/// The sanitized text, its length in characters and the limit, for a form's "n / 16" counter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "schema", schema(as = SanitizedText))]
pub struct Sanitized {
    pub text: String,
    pub length: usize,
    pub max: usize,
}

/// Whether the sanitizer keeps `c`.
pub fn is_kept(c: char) -> bool {
    let within = |ranges: &[(char, char)]| ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&c));
    within(KEPT) && !within(DROPPED)
}

/// Sanitizes word-drop text: what the renderer will draw.
pub fn sanitize(text: &str) -> Sanitized {
    // NFC through `rules::nfc`, which keeps the compatibility tables out of the wasm module.
    let kept: String = super::nfc::nfc(text)
        .chars()
        .filter(|&c| is_kept(c))
        .collect();
    let text = kept.trim().to_owned();
    Sanitized {
        length: text.chars().count(),
        text,
        max: WORD_DROP_MAX_CHARS,
    }
}

/// Length in characters of `sanitize(text).text`, without building it: validation runs on
/// every keystroke of a form and on every request, so it must not allocate.
pub fn sanitized_length(text: &str) -> usize {
    fn measure(chars: impl Iterator<Item = char>) -> usize {
        // Position (in kept characters) of the first and one past the last non-space.
        let (mut first, mut end, mut at) = (None, 0, 0);
        for c in chars.filter(|&c| is_kept(c)) {
            at += 1;
            if !c.is_whitespace() {
                first.get_or_insert(at - 1);
                end = at;
            }
        }
        first.map_or(0, |first| end - first)
    }
    // ASCII and already-composed text need no normalization pass.
    if text.is_ascii() || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        measure(text.chars())
    } else {
        // Rare path (decomposed input): allocating here keeps `str::nfc` and its compatibility
        // tables out of the wasm module (see `rules::nfc`).
        measure(super::nfc::nfc(text).chars())
    }
}

/// Why the text is not acceptable, if it is not; its sanitized length when it is.
pub fn check(text: &str) -> Result<usize, (crate::ErrorCode, String)> {
    let length = sanitized_length(text);
    if length == 0 {
        Err((
            crate::ErrorCode::EmptyAfterSanitizing,
            "text has no characters left after removing unsupported ones (emoji, non-Latin script, control characters)".to_owned(),
        ))
    } else if length > WORD_DROP_MAX_CHARS {
        Err((
            crate::ErrorCode::TooLong,
            format!(
                "text must be at most {WORD_DROP_MAX_CHARS} characters after sanitizing; it has {}",
                length
            ),
        ))
    } else {
        Ok(length)
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
    fn measured_length_equals_sanitized_length() {
        for text in [
            "",
            "  ",
            "Just Listed",
            " a b ",
            "🏡 x 🏡",
            "Cafe\u{0301} ",
            "\u{0301}x",
            "新 a\n b 新",
            "\u{a0}€\u{a0}",
        ] {
            assert_eq!(sanitized_length(text), sanitize(text).length, "{text:?}");
        }
    }

    #[test]
    fn limits() {
        assert!(check("1234567890123456").is_ok());
        assert_eq!(
            check("12345678901234567").map_err(|e| e.0),
            Err(crate::ErrorCode::TooLong)
        );
        assert_eq!(
            check("🏡🏡").map_err(|e| e.0),
            Err(crate::ErrorCode::EmptyAfterSanitizing)
        );
        assert_eq!(
            check("   ").map_err(|e| e.0),
            Err(crate::ErrorCode::EmptyAfterSanitizing)
        );
        // Removed characters do not count against the limit.
        assert!(check("Sixteen chars ok🏡🏡🏡").is_ok());
    }
}
