//! Where a clip's own caption (`image_inputs[].caption`) sits on the frame: the layout the
//! renderer's `drawtext` lines follow and the browser's preview draws, pure. Sizes come from the
//! core's caption rule (`stillreel_core::rules::caption`), which refused any line that would not
//! fit: the text is drawn at the style's size unless the display font is missing and the body
//! font, which is wider, needs it smaller.
//!
//! Placement: `label` at the lower left, `facts` centred at the bottom; both at the top instead
//! on a clip the branded intro's lower third is drawn over (the first clip of a video with an
//! intro), so the two never collide.

use stillreel_core::CaptionStyle;
use stillreel_core::rules::caption::{PAD_EM, PLATE_WIDTH_SHARE, size_share};

use crate::text::Font;

/// Fade in and out, seconds.
pub const FADE_SECONDS: f64 = 0.4;
/// The plate's colour when the video has no brand colours (a near-black slate), and its
/// opacity: white text on it keeps a contrast ratio of at least 4.5 over any picture.
pub const DEFAULT_PLATE: &str = "#14181f";
pub const PLATE_OPACITY: f64 = 0.85;
/// Space between the frame's edge and the plate, as a share of the frame's shorter side.
pub const MARGIN_SHARE: f64 = 0.06;
/// Gap between the two lines' plates, as a share of the text size.
pub const LINE_GAP_EM: f64 = 0.15;

/// What a clip's caption draws.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipCaption {
    /// The text the core's rule cleaned: one or two lines.
    pub text: String,
    pub style: CaptionStyle,
    /// The plate's colour, `#rrggbb` (the brand's, or [`DEFAULT_PLATE`]).
    pub plate: String,
    /// At the top of the frame (the intro's lower third is drawn over this clip).
    pub at_top: bool,
}

/// Where each line of a caption goes, in pixels of a `width` × `height` frame.
#[derive(Debug, Clone, PartialEq)]
pub struct CaptionLayout {
    pub font: Font,
    pub size: u32,
    /// The plate's padding around the text.
    pub pad: u32,
    /// Each line: its text, the left of its text (`None`: centred) and the top of its text.
    pub lines: Vec<(String, Option<u32>, u32)>,
}

/// Lays `caption` out on a `width` × `height` frame, in the display font when `display_installed`
/// (and it draws every character), else the body font ([`Font::choose`]).
pub fn layout(
    caption: &ClipCaption,
    width: u32,
    height: u32,
    display_installed: bool,
) -> CaptionLayout {
    let shorter = f64::from(width.min(height));
    let font = Font::choose(Font::Display, &caption.text, display_installed);
    let lines: Vec<&str> = caption.text.lines().collect();
    let widest = lines.iter().map(|l| font.line_em(l)).fold(0.0, f64::max);
    let wanted = (size_share(caption.style) * shorter).round();
    // The plate's share of the width, less its padding, in pixels per em of text.
    let fits = PLATE_WIDTH_SHARE * f64::from(width) / (widest + 2.0 * PAD_EM).max(1e-6);
    let size = wanted.min(fits.floor()).max(8.0) as u32;
    let pad = (PAD_EM * f64::from(size)).round() as u32;
    let margin = (MARGIN_SHARE * shorter).round() as u32 + pad;
    // Each line's box is its text plus `pad` around; lines step by the font's line height.
    let step = (f64::from(size) * (1.0 + LINE_GAP_EM)).round() as u32 + 2 * pad;
    let n = lines.len() as u32;
    let block = size + (n.saturating_sub(1)) * step;
    let top = if caption.at_top {
        margin
    } else {
        height.saturating_sub(margin + block)
    };
    let left = match caption.style {
        CaptionStyle::Label => Some(margin),
        CaptionStyle::Facts => None,
    };
    CaptionLayout {
        font,
        size,
        pad,
        lines: lines
            .iter()
            .enumerate()
            .map(|(i, l)| ((*l).to_owned(), left, top + i as u32 * step))
            .collect(),
    }
}

/// Relative luminance (WCAG) of `#rrggbb` (black when it is not a colour).
pub fn luminance(hex: &str) -> f64 {
    let digits = hex.trim_start_matches('#');
    let channel = |i: usize| {
        digits
            .get(i..i + 2)
            .and_then(|d| u8::from_str_radix(d, 16).ok())
            .unwrap_or(0)
    };
    srgb_luminance([channel(0), channel(2), channel(4)])
}

/// Relative luminance (WCAG, 0 to 1) of an sRGB colour.
pub fn srgb_luminance(rgb: [u8; 3]) -> f64 {
    let linear = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption(text: &str, style: CaptionStyle, at_top: bool) -> ClipCaption {
        ClipCaption {
            text: text.to_owned(),
            style,
            plate: DEFAULT_PLATE.to_owned(),
            at_top,
        }
    }

    fn layout_here(caption: &ClipCaption, width: u32, height: u32) -> CaptionLayout {
        layout(caption, width, height, true)
    }

    #[test]
    fn a_label_sits_at_the_lower_left_at_the_styles_size() {
        let l = layout_here(
            &caption("Primary suite", CaptionStyle::Label, false),
            1280,
            720,
        );
        assert_eq!(l.size, (0.055f64 * 720.0).round() as u32);
        let (_, left, top) = &l.lines[0];
        let margin = (MARGIN_SHARE * 720.0).round() as u32 + l.pad;
        assert_eq!(*left, Some(margin));
        assert_eq!(*top, 720 - margin - l.size);
    }

    #[test]
    fn two_lines_stack_and_the_intros_clip_puts_them_at_the_top() {
        let bottom = layout_here(
            &caption("Chef's kitchen\nOpen plan", CaptionStyle::Label, false),
            720,
            1280,
        );
        assert_eq!(bottom.lines.len(), 2);
        assert!(bottom.lines[1].2 > bottom.lines[0].2 + bottom.size + 2 * bottom.pad - 1);
        let top = layout_here(
            &caption("Chef's kitchen\nOpen plan", CaptionStyle::Label, true),
            720,
            1280,
        );
        assert!(top.lines[0].2 < 1280 / 4 && bottom.lines[1].2 > 1280 * 3 / 4);
        let facts = layout_here(
            &caption("3 bd · 2 ba", CaptionStyle::Facts, false),
            1280,
            720,
        );
        assert_eq!(facts.lines[0].1, None);
    }

    #[test]
    fn the_widest_line_the_rule_allows_fits_the_plate() {
        // 24 W's: the landscape limit's neighbourhood in the display font.
        let text = "W".repeat(24);
        let l = layout_here(&caption(&text, CaptionStyle::Label, false), 1280, 720);
        let width = l.font.line_em(&text) * f64::from(l.size) + 2.0 * f64::from(l.pad);
        assert!(width <= PLATE_WIDTH_SHARE * 1280.0 + 1.0, "{width}");
    }
}
