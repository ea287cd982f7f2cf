//! The one font and text fitting: measure with DejaVu Sans Bold's real advance widths, wrap at
//! spaces, shrink until the text fits its box. Pure, so "never off the frame" is tested here
//! without running ffmpeg.

#[rustfmt::skip]
#[allow(dead_code, reason = "generated table; DESCENT is kept for completeness")]
mod metrics;

/// The font every text in a video is drawn with (Debian `fonts-dejavu-core`, installed by
/// `scripts/setup.sh`).
pub const FONT_FILE: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

/// Line advance as a multiple of the font size (ascent + descent of the font, plus a little).
pub const LINE_HEIGHT_EM: f64 = 1.22;

/// Width of one character in em.
pub fn char_em(c: char) -> f64 {
    let cp = u32::from(c);
    let units = metrics::RANGES
        .iter()
        .find(|(lo, hi, _)| (*lo..=*hi).contains(&cp))
        .and_then(|(lo, _, widths)| widths.get((cp - lo) as usize).copied())
        .filter(|&w| w > 0)
        .unwrap_or(metrics::WIDEST);
    f64::from(units) / f64::from(metrics::UNITS_PER_EM)
}

/// Width of a line in em (advance widths summed; kerning only ever makes it narrower).
pub fn line_em(text: &str) -> f64 {
    text.chars().map(char_em).sum()
}

/// Height above the baseline, in em.
pub fn ascent_em() -> f64 {
    f64::from(metrics::ASCENT) / f64::from(metrics::UNITS_PER_EM)
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
}

impl Fitted {
    /// Height of the whole block.
    pub fn height(&self) -> f64 {
        self.line_px * self.lines.len() as f64
    }
}

/// Greedy word wrap of one paragraph at `max_em` width; a word wider than the line stays whole
/// (the caller shrinks the size until it fits).
fn wrap(paragraph: &str, max_em: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if current.is_empty() {
            word.to_owned()
        } else {
            format!("{current} {word}")
        };
        if current.is_empty() || line_em(&candidate) <= max_em {
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
    let mut size = preferred.min(box_h).floor();
    while size >= 4.0 {
        let max_em = box_w / size;
        let lines: Vec<String> = paragraphs.iter().flat_map(|p| wrap(p, max_em)).collect();
        let line_px = size * LINE_HEIGHT_EM;
        let widths: Vec<f64> = lines.iter().map(|l| line_em(l) * size).collect();
        let fits_w = widths.iter().all(|&w| w <= box_w);
        // The last line needs only the glyph height, not a full line advance.
        let block = line_px * (lines.len() as f64 - 1.0) + size * 1.17;
        if fits_w && block <= box_h {
            return Some(Fitted {
                lines,
                size: size as u32,
                line_px,
                widths,
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
