//! The display font's advance widths (League Spartan Bold), so the caption rule measures text
//! exactly as the renderer lays it out, here and in the browser form (through the wasm module).
//! The renderer's text fitting (`stillreel-effects`, `text`) reads the same table.

#[rustfmt::skip]
#[allow(dead_code, reason = "generated table; DESCENT is kept for completeness")]
pub mod display_metrics;

/// Advance width of `c` in em, or `None` when the display font has no glyph for it.
pub fn display_em(c: char) -> Option<f64> {
    let cp = u32::from(c);
    display_metrics::RANGES
        .iter()
        .find(|(lo, hi, _)| (*lo..=*hi).contains(&cp))
        .and_then(|(lo, _, widths)| widths.get((cp - lo) as usize).copied())
        .filter(|&w| w > 0)
        .map(|w| f64::from(w) / f64::from(display_metrics::UNITS_PER_EM))
}

/// Width of a line in em in the display font (advance widths summed; kerning only ever makes
/// it narrower), or the first character the font lacks.
pub fn display_line_em(line: &str) -> Result<f64, char> {
    line.chars()
        .try_fold(0.0, |sum, c| display_em(c).map(|w| sum + w).ok_or(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_with_the_fonts_own_advances_and_names_a_missing_glyph() {
        // League Spartan Bold: 'W' is 1824 units, 'i' 521, per 2000 em.
        assert_eq!(display_em('W'), Some(1824.0 / 2000.0));
        assert_eq!(display_line_em("Wi"), Ok((1824.0 + 521.0) / 2000.0));
        assert!(display_line_em("3 bd · 2 ba").is_ok());
        assert_eq!(display_line_em("Дом"), Err('Д'));
    }
}
