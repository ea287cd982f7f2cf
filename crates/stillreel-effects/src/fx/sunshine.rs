//! `catch-the-sunshine`: a low sun with its flare travels across the top of the frame while a
//! broad warm light band sweeps over the scene, on top of a slightly warmer grade.

use super::still;
use crate::escape::Filter;
use crate::expr::smooth;
use crate::graph::EffectContext;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (f64::from(ctx.width), f64::from(ctx.height));
    let d = ctx.seconds();
    let s = f64::from(ctx.short_side());
    // Sun sprite: hot core and a wide soft halo (one frame of geq, then repeated).
    let sun = (s * 1.3).round() as u32 / 2 * 2;
    let sun_still = still(
        ctx,
        &format!("color=c=black@0:s={sun}x{sun}:r={}", ctx.fps),
        &[
            Filter::new("format").arg("pix_fmts", "rgba"),
            Filter::new("geq")
                .arg("r", "255")
                .arg("g", "236")
                .arg("b", "190")
                .arg("a", "255*min(1,2*exp(-(pow(X-W/2,2)+pow(Y-H/2,2))/pow(W*0.045,2))+0.7*exp(-(pow(X-W/2,2)+pow(Y-H/2,2))/pow(W*0.14,2))+0.3*exp(-(pow(X-W/2,2)+pow(Y-H/2,2))/pow(W*0.32,2))+0.12*exp(-pow(hypot(X-W/2,Y-H/2)-W*0.3,2)/pow(W*0.012,2)))"),
        ],
        "fx_sun",
    );
    // Light band: a soft vertical stripe, tilted, as wide as 60 % of the frame.
    let bw = (w * 0.6).round() as u32 / 2 * 2;
    let bh = (h * 1.3).round() as u32 / 2 * 2;
    let band_still = still(
        ctx,
        &format!("color=c=black@0:s={bw}x{bh}:r={}", ctx.fps),
        &[
            Filter::new("format").arg("pix_fmts", "rgba"),
            Filter::new("geq")
                .arg("r", "255")
                .arg("g", "214")
                .arg("b", "140")
                .arg("a", "120*exp(-pow((X-W/2)/(W*0.22),2))"),
            Filter::new("rotate")
                .arg("a", "-0.35")
                .arg("c", "none")
                .arg("ow", "iw")
                .arg("oh", "ih"),
        ],
        "fx_band",
    );
    let p = smooth(0.0, d);
    let half = f64::from(sun) / 2.0;
    let sun_x = format!("{:.1}+{:.1}*({p})", w * 0.08 - half, w * 0.84);
    let sun_y = format!("{:.1}-{:.1}*sin(PI*({p}))", h * 0.16 - half, h * 0.06);
    let band_x = format!("{:.1}+{:.1}*({p})", -f64::from(bw), w + f64::from(bw));
    format!(
        "[in]{norm},{warm},eq=brightness=0.02:saturation=1.08[fx_warm];\
         {sun_still};{band_still};\
         [fx_warm][fx_band]{band};\
         [fx_banded][fx_sun]{sunov},format=yuv420p[out]",
        norm = super::normalize(ctx),
        warm = super::tint(-8, 6),
        band = Filter::new("overlay")
            .arg("x", band_x)
            .arg("y", format!("{:.1}", -(f64::from(bh) - h) / 2.0))
            .arg("format", "yuv420")
            .to_string()
            + "[fx_banded]",
        sunov = Filter::new("overlay")
            .arg("x", sun_x)
            .arg("y", sun_y)
            .arg("format", "yuv420"),
    )
}
