//! `word-drop`: the sanitized text (docs/API-DESIGN.md#word-drop-text) falls from above the frame,
//! bounces and settles a little above the middle; gold or silver metallic gradient letters in the
//! display font, at most a third of the frame's width in either orientation.
//!
//! Legibility on any picture: the letters sit on a dark plate (black at [`PLATE_OPACITY`])
//! with a dark outline, and both metals are kept light (relative luminance ≥ 0.5 everywhere
//! in the gradient), so the contrast ratio of the letters against what is right behind them is
//! at least (0.5 + 0.05) / (0.25^2.2 + 0.05) ≈ 5.7 even over a white wall (tested on decoded
//! frames of a light and a dark picture, `tests/render.rs`).

use stillreel_core::rules::word_drop::{check, sanitize};
use stillreel_core::types::{WordDropColor, WordDropConfig};

use super::still;
use crate::escape::Filter;
use crate::expr::drop_bounce;
use crate::graph::{EffectContext, EffectError};
use crate::text::Font;

/// Share of the frame's width the text may take.
pub const WIDTH_SHARE: f64 = 1.0 / 3.0;
/// Opacity of the dark plate behind the text.
pub const PLATE_OPACITY: f64 = 0.75;

/// The laid-out text of a word-drop: what will be drawn and how big.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub text: String,
    pub size: u32,
    pub width: f64,
    /// The font that draws it (the display font, or the body font as fallback).
    pub font: Font,
    /// Height of the text sprite (the text plus room for its shadow).
    pub sprite_h: u32,
}

/// Fits the sanitized text on one line into a third of the frame width ([`WIDTH_SHARE`]), at
/// most 12 % of the shorter side tall.
pub fn layout(ctx: &EffectContext, config: &WordDropConfig) -> Result<Layout, EffectError> {
    check(&config.text).map_err(|(_, msg)| EffectError::BadText(msg))?;
    let clean = sanitize(&config.text);
    if clean.text.trim().is_empty() {
        return Err(EffectError::BadText("nothing to draw".into()));
    }
    let s = f64::from(ctx.short_side());
    let box_w = f64::from(ctx.width) * WIDTH_SHARE;
    let font = Font::for_text(Font::Display, &clean.text);
    // One line: word-drop text is short and has no newlines.
    let em = font.line_em(&clean.text);
    let size = (box_w / em).min(s * 0.12).floor().max(4.0) as u32;
    let width = em * f64::from(size);
    Ok(Layout {
        text: clean.text,
        size,
        width,
        font,
        sprite_h: (f64::from(size) * 1.6).ceil() as u32 / 2 * 2 + 2,
    })
}

/// The plate's mask value: [`PLATE_OPACITY`] of full.
fn plate_level() -> u8 {
    (PLATE_OPACITY * 255.0).round().clamp(0.0, 255.0) as u8
}

pub fn build(ctx: &EffectContext, config: &WordDropConfig) -> Result<String, EffectError> {
    let l = layout(ctx, config)?;
    let (w, h, fps) = (ctx.width, ctx.height, ctx.fps);
    let sh = l.sprite_h;
    let size = f64::from(l.size);
    // Light metals only (relative luminance >= 0.5 in every stop), so the dark plate keeps
    // the contrast; the darker stops of a real metal would sink into it.
    let (top, bottom, edge) = match config.color {
        WordDropColor::Gold => ("0xffe27a", "0xf0b830", "0xffd54a"),
        WordDropColor::Silver => ("0xffffff", "0xc9ced4", "0xe6eaee"),
    };
    let font_file = match l.font {
        Font::Display => l.font.file().to_owned(),
        Font::Body => ctx.font_file.clone(),
    };
    let draw = Filter::new("drawtext")
        .arg("fontfile", font_file)
        .arg("expansion", "none")
        .arg("text", &l.text)
        .arg("fontsize", l.size)
        .arg("fontcolor", "white")
        .arg("x", "(w-text_w)/2")
        .arg("y", format!("{:.1}", (f64::from(sh) - size * 1.164) / 2.0));
    // The plate: the text's width plus half an em each side, the sprite's height.
    let pad = (size * 0.5).round();
    let plate_w = (l.width + 2.0 * pad).min(f64::from(w)).round();
    let x0 = ((f64::from(w) - plate_w) / 2.0).round();
    // geq, not drawbox: drawbox on a `gray` frame left the row right of the box at 16, a
    // faint 6 % band of ink across the whole width.
    let plate = Filter::new("geq").arg(
        "lum",
        format!(
            "if(between(X,{x0},{}),{},0)",
            x0 + plate_w - 1.0,
            plate_level()
        ),
    );
    let mask = still(
        ctx,
        &format!("color=c=black:s={w}x{sh}:r={fps}"),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            draw,
            Filter::new("lut").arg("y", "clip((val-16)*1.17,0,255)"),
        ],
        "fx_mask",
    );
    // Metallic: light at the top, a bright band a third of the way down, dark at the bottom.
    let metal = still(
        ctx,
        &Filter::new("gradients")
            .arg("s", format!("{w}x{sh}"))
            .arg("r", fps)
            .arg("x0", 0)
            .arg("y0", format!("{:.0}", f64::from(sh) * 0.22))
            .arg("x1", 0)
            .arg("y1", format!("{:.0}", f64::from(sh) * 0.78))
            .arg("n", 4)
            .arg("c0", top)
            .arg("c1", edge)
            .arg("c2", bottom)
            .arg("c3", edge)
            .to_string(),
        &[Filter::new("format").arg("pix_fmts", "yuv420p")],
        "fx_metal",
    );
    let black = still(
        ctx,
        &format!("color=c=0x101010:s={w}x{sh}:r={fps}"),
        &[Filter::new("format").arg("pix_fmts", "yuv420p")],
        "fx_ink",
    );
    let rest_y = f64::from(h) * 0.40 - f64::from(sh) / 2.0;
    let (drop, _) = drop_bounce(0.25, 0.6, rest_y + f64::from(sh));
    let y = format!("{rest_y:.1}+{drop}");
    Ok(format!(
        "[in]{norm}[fx_pic];\
         {mask};[fx_mask]split[fx_m1][fx_m2];\
         [fx_m2]{dilate},{dilate},gblur=sigma={blur:.1}[fx_outline];\
         {plate_mask};[fx_outline][fx_plate]blend=all_mode=lighten[fx_ms];\
         {metal};{black};\
         [fx_metal][fx_m1]alphamerge[fx_text];\
         [fx_ink][fx_ms]alphamerge[fx_shadow];\
         [fx_pic][fx_shadow]{ov_shadow}[fx_shadowed];\
         [fx_shadowed][fx_text]{ov_text},format=yuv420p[out]",
        norm = super::normalize(ctx),
        blur = (size * 0.03).max(0.7),
        dilate = Filter::new("dilation"),
        plate_mask = still(
            ctx,
            &format!("color=c=black:s={w}x{sh}:r={fps}"),
            &[Filter::new("format").arg("pix_fmts", "gray"), plate],
            "fx_plate",
        ),
        ov_shadow = Filter::new("overlay")
            .arg("x", 0)
            .arg("y", y.clone())
            .arg("format", "yuv420")
            .arg("eval", "frame"),
        ov_text = Filter::new("overlay")
            .arg("x", 0)
            .arg("y", y)
            .arg("format", "yuv420")
            .arg("eval", "frame"),
    ))
}
