//! `shadows`: soft dappled leaf shadows drift across the scene (a blurred, thresholded noise
//! pattern computed once, slid diagonally with a slight sway, darkening the picture up to 45 %).

use super::{quarter, still};
use crate::escape::Filter;
use crate::graph::EffectContext;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (qw, qh) = quarter(ctx);
    let fps = ctx.fps;
    let d = ctx.seconds();
    // Pattern 1.5x the frame so the window can travel across it.
    let (pw, ph) = ((w * 3 / 2) / 2 * 2, (h * 3 / 2) / 2 * 2);
    let pattern = still(
        ctx,
        &format!("color=c=gray:s={}x{}:r={fps}", qw * 3 / 2, qh * 3 / 2),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("noise")
                .arg("alls", 100)
                .arg("allf", "u")
                .arg("all_seed", 5),
            Filter::new("gblur").arg("sigma", 2.5),
            Filter::new("lut").arg("y", "clip((val-128)*14+128,0,255)"),
            Filter::new("gblur").arg("sigma", 0.8),
            Filter::new("lut").arg("y", "clip(val*0.55,0,255)"),
            Filter::new("scale")
                .arg("w", pw)
                .arg("h", ph)
                .arg("flags", "bicubic"),
        ],
        "fx_leaves",
    );
    let (tx, ty) = (f64::from(pw - w), f64::from(ph - h));
    let slide = Filter::new("crop")
        .arg("w", w)
        .arg("h", h)
        .arg(
            "x",
            format!("{:.1}*t/{d:.3}+{:.1}*sin(t*2.1)", tx * 0.85, tx * 0.04),
        )
        .arg(
            "y",
            format!("{:.1}*t/{d:.3}+{:.1}*sin(t*1.7)", ty * 0.7, ty * 0.04),
        );
    format!(
        "[in]{norm}[fx_pic];\
         {pattern};[fx_leaves]{slide}[fx_alpha];\
         {black};[fx_black][fx_alpha]alphamerge[fx_shade];\
         [fx_pic][fx_shade]overlay=format=yuv420,format=yuv420p[out]",
        norm = super::normalize(ctx),
        black = still(
            ctx,
            &format!("color=c=0x0a0c14:s={w}x{h}:r={fps}"),
            &[Filter::new("format").arg("pix_fmts", "yuv420p")],
            "fx_black"
        ),
    )
}
