//! `sway-trees`: foliage (green and textured, found at quarter resolution on every other frame) is displaced
//! sideways by a slow travelling sine wave, like a breeze; everything else stays still.

use super::{edge_strength, full_rate, quarter_rgba, still};
use crate::escape::Filter;
use crate::graph::EffectContext;

/// Sway period in seconds and wavelength as a fraction of the frame width: short enough that
/// neighbouring trees (and the two sides of one crown) lean apart rather than all shifting
/// together, which would read as the picture wobbling.
const PERIOD: f64 = 2.2;
const WAVELENGTH: f64 = 0.35;
/// Amplitude as a fraction of the frame's shorter side (about 14 px at 720p): at 0.6 % the
/// sway was too small to see at a glance.
pub const AMPLITUDE: f64 = 0.02;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let fps = ctx.fps;
    // Amplitude in pixels, proportional to the frame.
    let amp = (f64::from(ctx.short_side()) * AMPLITUDE).max(2.0);
    let lambda = (f64::from(w) * WAVELENGTH).round();
    let wave = still(
        ctx,
        &format!("color=c=gray:s={}x{h}:r={fps}", w + lambda as u32),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg(
                "lum",
                // The lawn in the foreground is green and textured too, but a lawn swaying
                // with the trees bends the edges of paths and drives: the sway fades out over
                // the bottom quarter of the frame. The fade depends on the row only, so it is
                // drawn into the wave (which slides sideways) rather than multiplied into the
                // mask every frame.
                format!(
                    "128+{amp:.2}*sin(2*PI*(X/{lambda}+Y/{:.1}))*clip((H-Y)/(0.25*H),0,1)",
                    f64::from(h) * 2.5
                ),
            ),
            // The maps are yuv420p like the picture (displace wants one format), converted
            // once here rather than every frame. The conversion from gray is the one the
            // maps always had (limited range: 128 becomes 126); it is affine, so merging the
            // converted stills through the unconverted mask below gives the same map.
            Filter::new("format").arg("pix_fmts", "yuv420p"),
        ],
        "fx_wave",
    );
    let mid = still(
        ctx,
        &format!("color=c=0x808080:s={w}x{h}:r={fps}"),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("format").arg("pix_fmts", "yuv420p"),
        ],
        "fx_mid",
    );
    let slide = Filter::new("crop")
        .arg("w", w)
        .arg("h", h)
        .arg("x", format!("{lambda}*(1-mod(t/{PERIOD},1))"))
        .arg("y", 0);
    format!(
        "[in]{norm},split[fx_pic][fx_msrc];\
         {quarter};\
         [fx_c]colorchannelmixer=rr=-1:rg=2:rb=-1,extractplanes=r,{green},erosion,erosion[fx_green];\
         [fx_t]format=gray,{edges},gblur=sigma=1.5,{textured}[fx_tex];\
         [fx_green][fx_tex]blend=all_mode=multiply,dilation,dilation,gblur=sigma=1.5,scale={w}:{h}:out_range=full,format=yuv420p,{full}[fx_mask];\
         {wave};{mid};\
         [fx_wave]{slide}[fx_wavec];\
         [fx_mid]split[fx_mid1][fx_ymap];\
         [fx_mid1][fx_wavec][fx_mask]maskedmerge[fx_xmap];\
         [fx_pic][fx_xmap][fx_ymap]displace=edge=smear,format=yuv420p[out]",
        norm = super::normalize(ctx),
        quarter = quarter_rgba(ctx, "fx_msrc", &["fx_c", "fx_t"]),
        full = full_rate(ctx),
        edges = edge_strength(0.03, 0.08),
        // Clearly green (dark green shutters fall below), then eroded by 2 quarter-res pixels:
        // a thin green rim along a path or a wall is not foliage, and without it the edge of
        // that path would count as "textured green" and bend.
        green = Filter::new("lut").arg("y", "clip((val-20)*5,0,255)"),
        textured = Filter::new("lut").arg("y", "clip(val*6,0,255)"),
    )
}
