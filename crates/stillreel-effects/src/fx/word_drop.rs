//! `word-drop`: the sanitized text (docs/API-DESIGN.md#word-drop-text) falls from above the frame,
//! bounces and settles a little above the middle; gold or silver metallic gradient letters with a
//! soft dark shadow, sized to the frame's width in either orientation.

use stillreel_core::rules::word_drop::{check, sanitize};
use stillreel_core::types::{WordDropColor, WordDropConfig};

use super::still;
use crate::escape::Filter;
use crate::expr::drop_bounce;
use crate::graph::{EffectContext, EffectError};
use crate::text;

/// The laid-out text of a word-drop: what will be drawn and how big.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub text: String,
    pub size: u32,
    pub width: f64,
    /// Height of the text sprite (the text plus room for its shadow).
    pub sprite_h: u32,
}

/// Fits the sanitized text into 86 % of the frame width and 18 % of the shorter side.
pub fn layout(ctx: &EffectContext, config: &WordDropConfig) -> Result<Layout, EffectError> {
    check(&config.text).map_err(|(_, msg)| EffectError::BadText(msg))?;
    let clean = sanitize(&config.text);
    let s = f64::from(ctx.short_side());
    let box_w = f64::from(ctx.width) * 0.86;
    let fitted = text::fit(&clean.text, box_w, s * 0.18, s * 0.15)
        .ok_or_else(|| EffectError::BadText("nothing to draw".into()))?;
    // One line only: word-drop text is short and has no newlines; if wrapping was needed, fit on
    // one line by width instead.
    let size = if fitted.lines.len() == 1 {
        fitted.size
    } else {
        (box_w / text::line_em(&clean.text)).floor().min(s * 0.15) as u32
    };
    let width = text::line_em(&clean.text) * f64::from(size);
    Ok(Layout {
        text: clean.text,
        size,
        width,
        sprite_h: (f64::from(size) * 1.6).ceil() as u32 / 2 * 2 + 2,
    })
}

pub fn build(ctx: &EffectContext, config: &WordDropConfig) -> Result<String, EffectError> {
    let l = layout(ctx, config)?;
    let (w, h, fps) = (ctx.width, ctx.height, ctx.fps);
    let sh = l.sprite_h;
    let size = f64::from(l.size);
    let (top, bottom, edge) = match config.color {
        WordDropColor::Gold => ("0xfff3b0", "0x9a6b12", "0xffd54a"),
        WordDropColor::Silver => ("0xffffff", "0x7d848c", "0xd9dee3"),
    };
    let draw = Filter::new("drawtext")
        .arg("fontfile", &ctx.font_file)
        .arg("expansion", "none")
        .arg("text", &l.text)
        .arg("fontsize", l.size)
        .arg("fontcolor", "white")
        .arg("x", "(w-text_w)/2")
        .arg("y", format!("{:.1}", (f64::from(sh) - size * 1.164) / 2.0));
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
    let off = (size * 0.06).max(2.0);
    Ok(format!(
        "[in]{norm}[fx_pic];\
         {mask};[fx_mask]split[fx_m1][fx_m2];\
         [fx_m2]gblur=sigma={blur:.1},{dim}[fx_ms];\
         {metal};{black};\
         [fx_metal][fx_m1]alphamerge[fx_text];\
         [fx_ink][fx_ms]alphamerge[fx_shadow];\
         [fx_pic][fx_shadow]{ov_shadow}[fx_shadowed];\
         [fx_shadowed][fx_text]{ov_text},format=yuv420p[out]",
        norm = super::normalize(ctx),
        blur = (size * 0.05).max(1.0),
        dim = Filter::new("lut").arg("y", "clip(val*0.85,0,255)"),
        ov_shadow = Filter::new("overlay")
            .arg("x", format!("{off:.1}"))
            .arg("y", format!("{y}+{off:.1}"))
            .arg("format", "yuv420")
            .arg("eval", "frame"),
        ov_text = Filter::new("overlay")
            .arg("x", 0)
            .arg("y", y)
            .arg("format", "yuv420")
            .arg("eval", "frame"),
    ))
}
