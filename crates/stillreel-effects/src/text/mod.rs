//! The two fonts and text fitting: measure with each font's real advance widths, wrap at
//! spaces, shrink until the text fits its box. Pure (but for [`display_installed`], one
//! `stat` of the font file), so "never off the frame" is tested here without running ffmpeg.
//!
//! - Body font, every detail line: DejaVu Sans Bold (Debian `fonts-dejavu-core`).
//! - Display font, titles, names and word-drop: League Spartan Bold (Debian
//!   `fonts-league-spartan`, SIL Open Font License 1.1). Both installed by `scripts/setup.sh`.
//!   Where its file is missing, or the text has a character it lacks, the body font draws the
//!   text instead ([`Font::for_text`]): never a missing-glyph box.

use std::sync::OnceLock;

#[rustfmt::skip]
#[allow(
    dead_code,
    reason = "generated table; ASCENT and DESCENT are kept for completeness"
)]
mod metrics;

// The display font's table is the core's: its caption rule measures with it.
use stillreel_core::font::display_metrics;

/// The body font file.
pub const FONT_FILE: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
/// The display font file.
pub const DISPLAY_FONT_FILE: &str =
    "/usr/share/fonts/opentype/league-spartan/LeagueSpartan-Bold.otf";

/// Line advance as a multiple of the font size (the body font's ascent + descent, plus a
/// little; the display font's are smaller, so it fits as well).
pub const LINE_HEIGHT_EM: f64 = 1.22;

type Ranges = &'static [(u32, u32, &'static [u16])];

/// One of the two fonts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Font {
    Body,
    Display,
}

impl Font {
    /// The font file drawtext opens.
    pub const fn file(self) -> &'static str {
        match self {
            Font::Body => FONT_FILE,
            Font::Display => DISPLAY_FONT_FILE,
        }
    }

    fn table(self) -> (Ranges, u16, u16) {
        match self {
            Font::Body => (metrics::RANGES, metrics::UNITS_PER_EM, metrics::WIDEST),
            Font::Display => (
                display_metrics::RANGES,
                display_metrics::UNITS_PER_EM,
                display_metrics::WIDEST,
            ),
        }
    }

    fn units(self, c: char) -> Option<u16> {
        let cp = u32::from(c);
        self.table()
            .0
            .iter()
            .find(|(lo, hi, _)| (*lo..=*hi).contains(&cp))
            .and_then(|(lo, _, widths)| widths.get((cp - lo) as usize).copied())
            .filter(|&w| w > 0)
    }

    /// Whether the font has a glyph for `c` (in the measured ranges).
    pub fn has(self, c: char) -> bool {
        self.units(c).is_some()
    }

    /// Width of one character in em; a character the font lacks counts as its widest glyph.
    pub fn char_em(self, c: char) -> f64 {
        let (_, upm, widest) = self.table();
        f64::from(self.units(c).unwrap_or(widest)) / f64::from(upm)
    }

    /// Width of a line in em (advance widths summed; kerning only ever makes it narrower).
    pub fn line_em(self, text: &str) -> f64 {
        text.chars().map(|c| self.char_em(c)).sum()
    }

    /// The font that draws `text` when `wanted` is asked for: the display font only when its
    /// file is installed and it has every character of the text; otherwise the body font.
    pub fn for_text(wanted: Font, text: &str) -> Font {
        Self::choose(wanted, text, display_installed())
    }

    /// [`Font::for_text`] with the installation given (pure, for tests).
    pub fn choose(wanted: Font, text: &str, installed: bool) -> Font {
        let covered = text.chars().all(|c| c == '\n' || Font::Display.has(c));
        if wanted == Font::Display && installed && covered {
            Font::Display
        } else {
            Font::Body
        }
    }
}

/// Whether the display font's file is on this machine (looked up once per process). Without
/// it every text is drawn in the body font.
pub fn display_installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| std::path::Path::new(DISPLAY_FONT_FILE).is_file())
}

/// Width of one character in em, in the body font.
pub fn char_em(c: char) -> f64 {
    Font::Body.char_em(c)
}

/// Text laid out in a box.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub lines: Vec<String>,
    /// Font size in pixels (pixels per em).
    pub size: u32,
    /// Distance between baselines in pixels.
    pub line_px: f64,
    /// Width of each line in pixels.
    pub widths: Vec<f64>,
    /// The font the widths were measured with (the one to draw with).
    pub font: Font,
}

impl Fitted {
    /// Height of the whole block.
    pub fn height(&self) -> f64 {
        self.line_px * self.lines.len() as f64
    }
}

/// Greedy word wrap of one paragraph at `max_em` width; a word wider than the line stays whole
/// (the caller shrinks the size until it fits).
fn wrap(font: Font, paragraph: &str, max_em: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if current.is_empty() {
            word.to_owned()
        } else {
            format!("{current} {word}")
        };
        if current.is_empty() || font.line_em(&candidate) <= max_em {
            current = candidate;
        } else {
            lines.push(std::mem::take(&mut current));
            current = word.to_owned();
        }
    }
    lines.push(current);
    lines
}

/// Fits `text` (newlines allowed) into a `box_w`×`box_h` pixel box, starting at `preferred`
/// pixels and shrinking in 4 % steps until every wrapped line fits both ways. Control,
/// separator and bidi characters other than newline are dropped (the core's template text
/// rule); blank lines are kept as spacing. Returns `None`
/// for text with nothing visible. The result never exceeds the box (down to a 4 px font, below
/// which text would be unreadable anyway and the box is rejected with `None`).
pub fn fit(text: &str, box_w: f64, box_h: f64, preferred: f64) -> Option<Fitted> {
    fit_in(Font::Body, text, box_w, box_h, preferred)
}

/// [`fit`] in the font [`Font::for_text`] picks for `wanted`.
pub fn fit_in(wanted: Font, text: &str, box_w: f64, box_h: f64, preferred: f64) -> Option<Fitted> {
    let clean: String = text
        .replace("\r\n", "\n")
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|&c| stillreel_core::rules::template_text::is_kept(c))
        .collect();
    let paragraphs: Vec<&str> = clean
        .trim_matches('\n')
        .split('\n')
        .map(str::trim)
        .collect();
    if paragraphs.iter().all(|p| p.is_empty()) {
        return None;
    }
    let font = Font::for_text(wanted, &clean);
    let mut size = preferred.min(box_h).floor();
    while size >= 4.0 {
        let max_em = box_w / size;
        let lines: Vec<String> = paragraphs
            .iter()
            .flat_map(|p| wrap(font, p, max_em))
            .collect();
        let line_px = size * LINE_HEIGHT_EM;
        let widths: Vec<f64> = lines.iter().map(|l| font.line_em(l) * size).collect();
        let fits_w = widths.iter().all(|&w| w <= box_w);
        // The last line needs only the glyph height, not a full line advance.
        let block = line_px * (lines.len() as f64 - 1.0) + size * 1.17;
        if fits_w && block <= box_h {
            return Some(Fitted {
                lines,
                size: size as u32,
                line_px,
                widths,
                font,
            });
        }
        size = (size * 0.96).floor().min(size - 1.0);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_come_from_the_font() {
        // DejaVu Sans Bold: 'W' is 2259 units, 'i' 702, per 2048 em.
        assert!((char_em('W') - 2259.0 / 2048.0).abs() < 1e-9);
        assert!((char_em('i') - 702.0 / 2048.0).abs() < 1e-9);
        assert!(char_em('é') > 0.3);
        // Unknown characters count as the widest glyph, never as zero.
        assert!(char_em('家') >= char_em('W'));
    }

    #[test]
    fn display_font_widths_and_fallback() {
        // League Spartan Bold: 'W' 1824 units, 'i' 521, per 2000 em.
        assert!((Font::Display.char_em('W') - 1824.0 / 2000.0).abs() < 1e-9);
        assert!((Font::Display.char_em('i') - 521.0 / 2000.0).abs() < 1e-9);
        assert_eq!(Font::Display.file(), DISPLAY_FONT_FILE);
        assert_eq!(
            Font::choose(Font::Display, "Just Listed", true),
            Font::Display
        );
        // A missing font file, or a character the display font lacks: the body font.
        assert_eq!(
            Font::choose(Font::Display, "Just Listed", false),
            Font::Body
        );
        let lacking = ('\u{A0}'..='\u{24F}')
            .find(|&c| Font::Body.has(c) && !Font::Display.has(c))
            .expect("a Latin letter only the body font has");
        let text = format!("Caf{lacking}");
        assert_eq!(Font::choose(Font::Display, &text, true), Font::Body);
        assert_eq!(Font::choose(Font::Body, "Just Listed", true), Font::Body);
    }

    #[test]
    fn short_text_keeps_its_size() {
        let f = fit("Jane Doe", 600.0, 100.0, 60.0).expect("fits");
        assert_eq!(f.size, 60);
        assert_eq!(f.lines, vec!["Jane Doe"]);
    }

    #[test]
    fn long_text_wraps_then_shrinks_and_never_overflows() {
        let text = "1234 Very Long Boulevard Name, Apartment 56B, Springfield Heights, OR 97000";
        for (w, h) in [(300.0, 80.0), (900.0, 60.0), (120.0, 400.0), (160.0, 60.0)] {
            let f = fit(text, w, h, 48.0).expect("fits");
            assert!(f.widths.iter().all(|&lw| lw <= w), "{w}x{h}: {f:?}");
            assert!(f.line_px * (f.lines.len() as f64 - 1.0) + f64::from(f.size) * 1.17 <= h);
            assert_eq!(
                f.lines.join(" ").split_whitespace().count(),
                text.split_whitespace().count()
            );
        }
    }

    #[test]
    fn newlines_are_kept() {
        let f = fit("Jane Doe\nBroker", 800.0, 300.0, 50.0).expect("fits");
        assert_eq!(f.lines, vec!["Jane Doe", "Broker"]);
    }

    #[test]
    fn separators_and_bidi_controls_are_dropped_like_the_core_does() {
        let f = fit("bidi\u{202E}evil\u{2028}x\r\nB\u{0}y", 800.0, 300.0, 50.0).expect("fits");
        assert_eq!(f.lines, vec!["bidievilx", "By"]);
    }

    #[test]
    fn blank_text_is_none() {
        assert_eq!(fit(" \n \t", 100.0, 100.0, 20.0), None);
        assert_eq!(fit("\u{7}", 100.0, 100.0, 20.0), None);
    }

    #[test]
    fn a_single_long_word_shrinks() {
        let f = fit("Supercalifragilisticexpialidocious", 200.0, 100.0, 80.0).expect("fits");
        assert_eq!(f.lines.len(), 1);
        assert!(f.widths[0] <= 200.0 && f.size < 20);
    }
}
