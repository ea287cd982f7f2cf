//! `day-to-twilight`: the picture crossfades from itself to dusk over the clip. Dusk is the
//! whole scene getting darker together: facade, ground and trees are graded down (white walls
//! included: the highlights are scaled, not only the midtones), cooler and less saturated; the
//! sky, and only the sky, turns into a deep-blue-to-pink evening gradient; the lit windows
//! stay lit with an orange bloom.
//!
//! Both masks come in with the clip ([`masks`]): computed once from the still in process
//! ([`crate::scene`]: the sky is what is smooth and sky-coloured and connected to the top edge,
//! white and grey skies included; lights are warm, bright, flat and not green) and moved with
//! the camera by the caller. A colour test per frame could do neither: a blue test took a hazy
//! blue mountainside for sky and missed an overcast one, and a warm test lit sunlit leaves.

use super::{bloom_over, grade, quarter, still_half, windows_over};
use crate::escape::Filter;
use crate::graph::EffectContext;
use crate::scene::{MaskStream, SceneMask};

/// Share of the original luma range the dusk grade keeps at the top (a white wall ends at
/// about this brightness).
pub const HIGHLIGHTS: f64 = 0.5;

/// The masks the fragment reads as `[extra0]`: the sky above the lights, at quarter size, one
/// frame for every other frame of the clip (as the effect's other layers).
pub fn masks(ctx: &EffectContext) -> MaskStream {
    let (width, height) = quarter(ctx);
    MaskStream {
        kinds: vec![SceneMask::Sky, SceneMask::Lights],
        width,
        height,
        step: 2,
    }
}

pub fn build(ctx: &EffectContext) -> String {
    let d = ctx.seconds();
    let (qw, qh) = quarter(ctx);
    let fps = ctx.fps;
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
        "[in]{norm},split=3[fx_day][fx_g][fx_lit];\
         [extra0]format=gray,setpts=2*N/{fps}/TB,split[fx_m1][fx_m2];\
         [fx_m1]crop={qw}:{qh}:0:0,{strength}[fx_skymask];\
         [fx_m2]crop={qw}:{qh}:0:{qh},split[fx_wm_b][fx_wm_w];\
         {sky};[fx_skycol][fx_skymask]alphamerge[fx_skya];\
         {bloom};\
         [fx_g]{grade}[fx_graded];\
         [fx_graded][fx_layer]overlay=format=yuv420[fx_dusk0];\
         {windows};\
         [fx_dusk]format=yuva420p,{fade}[fx_dusk_a];\
         [fx_day][fx_dusk_a]overlay=format=yuv420,trim=end_frame={frames},format=yuv420p[out]",
        // The mask stream's last frame stands for two clip frames, so the layers made from it
        // end a frame after the clip: the clip keeps its own count.
        frames = ctx.frames,
        norm = super::normalize(ctx),
        grade = grade(-0.04, 1.05, 0.6, 0.8, HIGHLIGHTS, (12, -6)),
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
