//! Template text values (docs/API-DESIGN.md#template-text): what of a branding text field is
//! drawn. A newline is kept (templates draw several lines); every other control character
//! (NUL, ESC, CR, tab, NEL...), the line and paragraph separators U+2028 and U+2029, and the
//! bidi marks and controls are dropped, as word-drop text drops them, so the picture reads as
//! the text that was checked (`bidi\u{202E}evil` would be drawn reversed). `max_length` and
//! "required" count what is left.

use std::borrow::Cow;

/// Bidi marks, embeddings, overrides and isolates (Unicode's UAX #9 explicit formatting
/// characters, and the implicit marks ALM, LRM and RLM).
const BIDI: &[(char, char)] = &[
    ('\u{061C}', '\u{061C}'),
    ('\u{200E}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2066}', '\u{2069}'),
];

/// Whether `c` is kept in a template text value.
pub fn is_kept(c: char) -> bool {
    if c == '\n' {
        return true;
    }
    let bidi = BIDI.iter().any(|&(lo, hi)| (lo..=hi).contains(&c));
    !(c.is_control() || bidi || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// The value as drawn: `text` without the characters [`is_kept`] refuses (borrowed when
/// nothing is dropped, the usual case).
pub fn clean(text: &str) -> Cow<'_, str> {
    if text.chars().all(is_kept) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|&c| is_kept(c)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_newlines_and_drops_every_other_control_separator_and_bidi_character() {
        assert_eq!(clean("12 Oak Lane\nSuite 4"), "12 Oak Lane\nSuite 4");
        assert!(matches!(clean("Ana Díaz · 555"), Cow::Borrowed(_)));
        assert_eq!(clean("bidi\u{202E}evil"), "bidievil");
        assert_eq!(clean("a\u{0}b\u{1b}[31mc\r\nd\te"), "ab[31mc\nde");
        assert_eq!(
            clean("line\u{2028}sep\u{2029}para\u{85}nel"),
            "linesepparanel"
        );
        assert_eq!(
            clean("\u{2066}x\u{2069}\u{200E}y\u{200F}\u{061C}z\u{202A}"),
            "xyz"
        );
        // Letters of every script stay: the template font decides what it can draw.
        assert_eq!(clean("Дом 家 بيت"), "Дом 家 بيت");
    }
}
