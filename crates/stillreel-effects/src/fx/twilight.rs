//! `day-to-twilight`: the picture crossfades from itself to dusk over the clip. Dusk is the
//! whole scene getting darker together: facade, ground and trees are graded down (white walls
//! included: the highlights are scaled, not only the midtones), cooler and less saturated; the
//! sky, and only the sky, turns into a deep-blue-to-pink evening gradient; the warm bright
//! pixels (lit windows, lamps) stay lit with an orange bloom.
//!
//! The sky is found on every other frame at quarter resolution like `starry-night`'s: blue in the
//! original (B − R > 0), untextured, in the upper part (blue but next to an edge: 60 %). The
//! gradient is laid through that mask,
//! so foliage and roofs against the sky keep their own (darkened) colour: laid over the whole
//! upper part, the gradient's pink band tinted green trees yellow, a halo around every crown.

use super::{
    bloom_over, edge_strength, grade, quarter, quarter_rgba, still_half, warm_mask, windows_over,
};
use crate::escape::Filter;
use crate::graph::EffectContext;

/// Share of the original luma range the dusk grade keeps at the top (a white wall ends at
/// about this brightness).
pub const HIGHLIGHTS: f64 = 0.5;

pub fn build(ctx: &EffectContext) -> String {
    let d = ctx.seconds();
    let (qw, qh) = quarter(ctx);
    let fps = ctx.fps;
    // Sky weight by height: 1 down to 30 % of the height, fading to 0 at 65 %.
    let upper = still_half(
        ctx,
        &format!("color=c=black:s={qw}x{qh}:r={fps}"),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg("lum", "255*clip((0.65*H-Y)/(0.35*H),0,1)"),
        ],
        "fx_upper",
    );
    // The evening sky, opaque: navy at the top, violet, a pink glow at the horizon line. At
    // quarter resolution and half rate: it becomes one layer with the windows' bloom.
    let sky = still_half(
        ctx,
        &Filter::new("gradients")
            .arg("s", format!("{qw}x{qh}"))
            .arg("r", fps)
            .arg("x0", 0)
            .arg("y0", 0)
            .arg("x1", 0)
            .arg("y1", (f64::from(qh) * 0.6).round() as u32)
            .arg("n", 4)
            .arg("c0", "0x0b1038")
            .arg("c1", "0x1f2260")
            .arg("c2", "0x4a3a7c")
            .arg("c3", "0xb86a80")
            .to_string(),
        &[Filter::new("format").arg("pix_fmts", "yuva420p")],
        "fx_skycol",
    );
    format!(
        "[in]{norm},split=4[fx_day][fx_g][fx_lit][fx_qsrc];\
         {quarter};{mask};[fx_wmask]split[fx_wm_b][fx_wm_w];\
         [fx_q1]format=gray,{edges},dilation,gblur=sigma=1,negate,{flat}[fx_flat];\
         [fx_q2]colorchannelmixer=rr=-1:rg=0:rb=1:ra=0,extractplanes=r,{blue},split[fx_blue][fx_blue2];\
         {upper};[fx_upper]split[fx_up1][fx_up2];\
         [fx_blue][fx_flat]blend=all_mode=multiply[fx_bf];\
         [fx_bf][fx_up1]blend=all_mode=multiply[fx_open];\
         [fx_blue2][fx_up2]blend=all_mode=multiply,{rim}[fx_rim];\
         [fx_open][fx_rim]blend=all_mode=lighten,gblur=sigma=1,{strength}[fx_skymask];\
         {sky};[fx_skycol][fx_skymask]alphamerge[fx_skya];\
         {bloom};\
         [fx_g]{grade}[fx_graded];\
         [fx_graded][fx_layer]overlay=format=yuv420[fx_dusk0];\
         {windows};\
         [fx_dusk]format=yuva420p,{fade}[fx_dusk_a];\
         [fx_day][fx_dusk_a]overlay=format=yuv420,format=yuv420p[out]",
        norm = super::normalize(ctx),
        quarter = quarter_rgba(ctx, "fx_qsrc", &["fx_wsrc", "fx_q1", "fx_q2"]),
        mask = warm_mask("fx_wsrc", "fx_wmask"),
        edges = edge_strength(0.08, 0.18),
        grade = grade(-0.04, 1.05, 0.6, 0.8, HIGHLIGHTS, (12, -6)),
        blue = Filter::new("lut").arg("y", "clip((val-10)*7,0,255)"),
        flat = Filter::new("lut").arg("y", "clip((val-150)*3,0,255)"),
        // Blue sky next to an edge (around crowns and roofs, where the flatness test fails)
        // still takes 60 % of the evening colour: left at its daylight blue it would rim every
        // tree with a pale halo.
        rim = Filter::new("lut").arg("y", "val*0.6"),
        // The sky turns 90 % evening colour (a little of its clouds shows through).
        strength = Filter::new("lut").arg("y", "val*0.9"),
        bloom = bloom_over(ctx, "fx_skya", "fx_wm_b", 1.6, "fx_layer"),
        windows = windows_over(ctx, "fx_dusk0", "fx_lit", "fx_wm_w", "fx_dusk"),
        // Day to dusk over the first 80 % of the clip: the dusk frame laid over the day one
        // with its alpha fading in, the same linear mix as `xfade=fade` at a third of its
        // cost (one alpha-plane scale and one overlay instead of a float mix of every plane).
        fade = Filter::new("fade")
            .arg("t", "in")
            .arg("st", 0)
            .arg("d", format!("{:.3}", d * 0.8))
            .arg("alpha", 1),
    )
}
