//! A clip's caption (docs/API-DESIGN.md#captions): its text cleaned like template text, at most
//! two lines, every character one the caption font draws, and each line narrow enough for the
//! video's frame at the style's size, measured with the font's own advance widths (so the form
//! refuses, through the wasm module, exactly what the renderer could not draw).
//!
//! The geometry here is the renderer's too (`stillreel-render`, the caption layer): text size
//! as a share of the frame's shorter side, the plate's padding and the share of the frame's
//! width the plate may take.

use crate::ErrorCode;
use crate::font::display_line_em;
use crate::types::{CaptionStyle, Orientation, Resolution};

/// At most this many lines (a newline starts the second).
pub const MAX_LINES: usize = 2;
/// At most this many characters after cleaning, newline included.
pub const MAX_CHARS: usize = 80;
/// Share of the frame's width the caption's plate may take.
pub const PLATE_WIDTH_SHARE: f64 = 0.9;
/// The plate's padding left and right of the text, in em of the caption's size.
pub const PAD_EM: f64 = 0.5;

/// Text size of `style` as a share of the frame's shorter side.
pub const fn size_share(style: CaptionStyle) -> f64 {
    match style {
        CaptionStyle::Label => 0.055,
        CaptionStyle::Facts => 0.045,
    }
}

/// The widest line, in em of the caption's size, that a frame of `orientation` fits in
/// `style`: the plate's share of the width, less its padding. The same at every resolution
/// (both keep 16:9).
pub fn max_line_em(style: CaptionStyle, orientation: Orientation) -> f64 {
    let (w, h) = Resolution::P720.dimensions(orientation);
    let width_in_shorter_sides = f64::from(w) / f64::from(w.min(h));
    PLATE_WIDTH_SHARE * width_in_shorter_sides / size_share(style) - 2.0 * PAD_EM
}

/// The caption's text as drawn: cleaned like template text (controls but the newline, bidi
/// marks and separators dropped), composed (NFC, so accents measure as the font draws them),
/// each line trimmed, blank lines dropped.
pub fn clean(text: &str) -> String {
    let kept = super::template_text::clean(text);
    let composed = super::nfc::nfc(&kept);
    composed
        .split('\n')
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks caption `text` in `style` for a frame of `orientation` (`None`: the request's
/// orientation is itself invalid, so the width is not checked). The cleaned text, or the code
/// and message for `caption.text`.
pub fn check(
    text: &str,
    style: CaptionStyle,
    orientation: Option<Orientation>,
) -> Result<String, (ErrorCode, String)> {
    if text.trim().is_empty() {
        return Err((
            ErrorCode::Empty,
            "caption.text must not be empty; leave caption out for a clip without one".to_owned(),
        ));
    }
    let cleaned = clean(text);
    if cleaned.is_empty() {
        return Err((
            ErrorCode::EmptyAfterSanitizing,
            "caption.text holds only control, separator or bidi characters, which are removed"
                .to_owned(),
        ));
    }
    let chars = cleaned.chars().count();
    if chars > MAX_CHARS {
        return Err((
            ErrorCode::TooLong,
            format!("caption.text is {chars} characters; at most {MAX_CHARS}"),
        ));
    }
    let lines: Vec<&str> = cleaned.split('\n').collect();
    if lines.len() > MAX_LINES {
        return Err((
            ErrorCode::TooLong,
            format!(
                "caption.text has {} lines; at most {MAX_LINES} (one newline)",
                lines.len()
            ),
        ));
    }
    for (n, line) in lines.iter().enumerate() {
        let width = match display_line_em(line) {
            Ok(width) => width,
            Err(c) => {
                return Err((
                    ErrorCode::InvalidValue,
                    format!(
                        "caption.text has '{c}' (U+{:04X}), which the caption font cannot draw; \
                         it draws Latin letters, digits, punctuation and currency signs",
                        u32::from(c)
                    ),
                ));
            }
        };
        let Some(orientation) = orientation else {
            continue;
        };
        let limit = max_line_em(style, orientation);
        if width > limit {
            let which = if lines.len() == 1 {
                "caption.text".to_owned()
            } else {
                format!("line {} of caption.text", n + 1)
            };
            return Err((
                ErrorCode::TooLong,
                format!(
                    "{which} is {} em wide in the caption font; a {orientation} video fits {} em \
                     per line in the {style} style: shorten it or break it into two lines",
                    tenths(width),
                    tenths(limit)
                ),
            ));
        }
    }
    Ok(cleaned)
}

/// `value` with one decimal, by integer arithmetic: float formatting would add its whole
/// machinery (kilobytes) to the browser's wasm module, which has a size budget.
fn tenths(value: f64) -> String {
    let t = (value * 10.0).round() as u64;
    format!("{}.{}", t / 10, t % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Option<Orientation> = Some(Orientation::Landscape);
    const P: Option<Orientation> = Some(Orientation::Portrait);

    #[test]
    fn the_width_limit_is_the_plates_share_less_its_padding() {
        let landscape = max_line_em(CaptionStyle::Label, Orientation::Landscape);
        let portrait = max_line_em(CaptionStyle::Label, Orientation::Portrait);
        assert!((landscape - (0.9 * 1280.0 / 720.0 / 0.055 - 1.0)).abs() < 1e-9);
        assert!((portrait - (0.9 / 0.055 - 1.0)).abs() < 1e-9);
        // The smaller facts style fits more on a line.
        assert!(max_line_em(CaptionStyle::Facts, Orientation::Portrait) > portrait);
    }

    #[test]
    fn keeps_what_fits_and_cleans_it() {
        let label = CaptionStyle::Label;
        assert_eq!(check("Primary suite", label, L), Ok("Primary suite".into()));
        assert_eq!(
            check("  Chef's kitchen \n  Open plan  ", label, P),
            Ok("Chef's kitchen\nOpen plan".into())
        );
        assert_eq!(
            check("3 bd · 2 ba · 1,850 sq ft", CaptionStyle::Facts, P),
            Ok("3 bd · 2 ba · 1,850 sq ft".into())
        );
        assert_eq!(check("bidi\u{202E}evil", label, L), Ok("bidievil".into()));
        // Composed before measuring: e + combining acute is é.
        assert_eq!(check("Cafe\u{301}", label, L), Ok("Café".into()));
    }

    #[test]
    fn refuses_what_cannot_be_drawn_with_the_limit_named() {
        let label = CaptionStyle::Label;
        // 24 W's are about 21.9 em: they fit a landscape line (28.1 em), not a portrait one.
        let wide = "W".repeat(24);
        assert!(check(&wide, label, L).is_ok());
        let (code, message) = check(&wide, label, P).expect_err("refused");
        assert_eq!(code, ErrorCode::TooLong);
        assert!(message.contains("15.4 em"), "{message}");
        assert!(message.contains("portrait"), "{message}");
        // The same text is not measured when the orientation is itself invalid.
        assert!(check(&wide, label, None).is_ok());
        let (code, message) = check("a\nb\nc", label, L).expect_err("refused");
        assert_eq!(code, ErrorCode::TooLong);
        assert!(message.contains("3 lines"), "{message}");
        let (code, message) = check("Дом", label, L).expect_err("refused");
        assert_eq!(code, ErrorCode::InvalidValue);
        assert!(message.contains("U+0414"), "{message}");
        assert_eq!(
            check("  ", label, L).expect_err("refused").0,
            ErrorCode::Empty
        );
        assert_eq!(
            check("\u{202E}", label, L).expect_err("refused").0,
            ErrorCode::EmptyAfterSanitizing
        );
        assert_eq!(
            check(&"a".repeat(81), label, L).expect_err("refused").0,
            ErrorCode::TooLong
        );
    }
}
