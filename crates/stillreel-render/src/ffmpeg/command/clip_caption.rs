//! A clip's own caption (`image_inputs[].caption`, docs/EFFECTS.md "Captions"): its text in the
//! display font, each line on a plate in the brand's colours, fading in over the clip's first
//! [`FADE_SECONDS`] and out over its last. Where the lines sit is
//! [`stillreel_effects::caption`]'s layout (the browser's preview draws the same); this module
//! turns it into `drawtext` filters. Word-drop settles above the middle, clear of both places.

pub use stillreel_effects::caption::{
    CaptionLayout, ClipCaption, DEFAULT_PLATE, FADE_SECONDS, PLATE_OPACITY, luminance,
    srgb_luminance,
};
use stillreel_effects::escape::Filter;

/// Lays `caption` out on a `width` × `height` frame in the fonts this machine has
/// ([`stillreel_effects::caption::layout`]).
pub fn layout(caption: &ClipCaption, width: u32, height: u32) -> CaptionLayout {
    stillreel_effects::caption::layout(
        caption,
        width,
        height,
        stillreel_effects::text::display_installed(),
    )
}

/// `#rrggbb` as drawtext's `0xrrggbb@opacity` (black when it is not a colour).
fn ffmpeg_color(hex: &str, opacity: f64) -> String {
    let digits = hex.trim_start_matches('#');
    let valid = digits.len() == 6 && digits.chars().all(|c| c.is_ascii_hexdigit());
    format!("0x{}@{opacity:.2}", if valid { digits } else { "000000" })
}

/// The filter chain (drawtext per line) that draws `caption` on a `width` × `height` clip of
/// `seconds`: to be appended to the clip's graph.
pub fn caption_filters(caption: &ClipCaption, width: u32, height: u32, seconds: f64) -> String {
    let l = layout(caption, width, height);
    // Dark text on a light brand colour, white on a dark one.
    let text_color = if luminance(&caption.plate) > 0.4 {
        "0x111111"
    } else {
        "0xffffff"
    };
    let fade = FADE_SECONDS.min(seconds / 4.0);
    // Gone by the clip's last frame, which starts one frame before its end.
    let last = seconds - 1.0 / f64::from(stillreel_core::limits::FPS);
    let alpha = format!("min(1,min(t/{fade},({last:.4}-t)/{fade}))");
    l.lines
        .iter()
        .map(|(text, left, top)| {
            let x = left.map_or_else(|| "(w-tw)/2".to_owned(), |x| x.to_string());
            Filter::new("drawtext")
                .arg("fontfile", l.font.file())
                .arg("expansion", "none")
                .arg("text", text)
                .arg("fontsize", l.size)
                .arg("fontcolor", text_color)
                .arg("box", 1)
                .arg("boxcolor", ffmpeg_color(&caption.plate, PLATE_OPACITY))
                .arg("boxborderw", l.pad)
                .arg("x", x)
                .arg("y", top)
                .arg("alpha", format!("max(0,{alpha})"))
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::CaptionStyle;

    fn caption(text: &str, style: CaptionStyle, at_top: bool) -> ClipCaption {
        ClipCaption {
            text: text.to_owned(),
            style,
            plate: DEFAULT_PLATE.to_owned(),
            at_top,
        }
    }

    #[test]
    fn the_filter_fades_the_text_and_escapes_it() {
        let f = caption_filters(
            &caption("Bob's: 50% [new]", CaptionStyle::Label, false),
            1280,
            720,
            5.0,
        );
        assert!(f.starts_with("drawtext="), "{f}");
        assert!(f.contains("expansion=none"), "{f}");
        assert!(f.contains("\\[new\\]"), "{f}");
        assert!(f.contains("min(t/0.4"), "{f}");
        assert!(f.contains("boxcolor=0x14181f@0.85"), "{f}");
        assert!(luminance("#ffffff") > 0.99 && luminance("#000000") < 0.01);
    }
}
