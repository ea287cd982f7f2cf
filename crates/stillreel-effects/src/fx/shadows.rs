//! `shadows`: sunlight through venetian blinds. Soft, slanted slat shadows (dark, slightly
//! blue) lie over a warmed, sunlit picture and glide slowly across it, with a little sway, as
//! if a breeze moved the blinds; the pattern fades out towards one corner like a patch of light
//! from a window.
//!
//! The slat pattern is computed once (geq on one quarter-resolution frame, then scaled up, which
//! also softens the edges into a penumbra) on a sprite wider than the frame; per frame only a
//! moving `crop`, an `alphamerge` and an `overlay` run.

use super::{quarter, still};
use crate::escape::Filter;
use crate::graph::EffectContext;

/// Slats across the frame's height, and their slant (radians from horizontal).
const SLATS: f64 = 5.5;
const SLANT: f64 = 0.42;
/// Darkness of a full shadow (alpha of the dark layer).
const DARKNESS: f64 = 0.55;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (qw, qh) = quarter(ctx);
    let fps = ctx.fps;
    let d = ctx.seconds();
    // Slat period in quarter-res pixels, measured perpendicular to the slats.
    let period = f64::from(qh.max(qw.min(qh))) / SLATS;
    // The sprite is wider than the frame by the distance the pattern travels (two periods).
    let travel_q = (period * 2.0).ceil() as u32 / 2 * 2 + 2;
    let (sw, sh) = (qw + travel_q, qh);
    let scale = f64::from(w) / f64::from(qw);
    let (full_w, full_h) = (((f64::from(sw) * scale).round() as u32) / 2 * 2, h);
    let travel = full_w - w;
    let (c, s) = (SLANT.cos(), SLANT.sin());
    // Shadow strength 0..1: a smooth slat profile (narrow light gaps), times a broad falloff so
    // the lower-left stays mostly lit (the light patch has an edge).
    let slat = format!("clip((sin(2*PI*(X*{s:.4}+Y*{c:.4})/{period:.3})+0.35)*1.6,0,1)");
    let patch = "clip(1.25-0.9*(W-X)/W-0.35*Y/H,0.15,1)";
    let pattern = still(
        ctx,
        &format!("color=c=gray:s={sw}x{sh}:r={fps}"),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg("lum", format!("255*{DARKNESS}*{slat}*{patch}")),
            Filter::new("gblur").arg("sigma", (period / 14.0).max(0.6)),
            Filter::new("scale")
                .arg("w", full_w)
                .arg("h", full_h)
                .arg("flags", "bicubic"),
        ],
        "fx_slats",
    );
    // Glide across one period and a half over the clip, with a slow sway of a tenth of one.
    let full_period = period * scale;
    let slide = Filter::new("crop")
        .arg("w", w)
        .arg("h", h)
        .arg(
            "x",
            format!(
                "clip({:.1}-{:.1}*t/{d:.3}+{:.1}*sin(t*1.9),0,{travel})",
                f64::from(travel) * 0.85,
                full_period * 1.5,
                full_period * 0.08
            ),
        )
        .arg("y", 0);
    format!(
        "[in]{norm},{warm},eq=brightness=0.03:saturation=1.06[fx_pic];\
         {pattern};[fx_slats]{slide}[fx_alpha];\
         {dark};[fx_dark][fx_alpha]alphamerge[fx_shade];\
         [fx_pic][fx_shade]overlay=format=yuv420,format=yuv420p[out]",
        norm = super::normalize(ctx),
        warm = super::tint(-6, 5),
        dark = still(
            ctx,
            &format!("color=c=0x0c1222:s={w}x{h}:r={fps}"),
            &[Filter::new("format").arg("pix_fmts", "yuv420p")],
            "fx_dark"
        ),
    )
}
