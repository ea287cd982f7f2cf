//! `pencil-sketch`: the clip opens as a pencil drawing of the photo (grayscale colour-dodge of
//! the inverted, blurred picture on warm paper), holds, then a soft wipe reveals the photo.

use crate::escape::Filter;
use crate::graph::EffectContext;

/// Seconds the drawing is held before the reveal starts, and the reveal's length.
const HOLD: f64 = 1.2;
const REVEAL: f64 = 2.0;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (qw, qh) = (w / 4 / 2 * 2, h / 4 / 2 * 2);
    let start = ctx.frame_at(HOLD);
    let end = ctx.frame_at(HOLD + REVEAL);
    format!(
        "[in]{norm},split[fx_photo][fx_src];\
         [fx_src]trim=end_frame={end},format=gray,split[fx_g1][fx_g2];\
         [fx_g2]scale={qw}:{qh},negate,gblur=sigma=2.2,scale={w}:{h}[fx_blur];\
         [fx_g1][fx_blur]blend=all_mode=dodge,format=gray,{curve},format=yuv420p,lutyuv=u=124:v=133[fx_sketch];\
         [fx_photo]trim=start_frame={start},setpts=PTS-STARTPTS[fx_late];\
         [fx_sketch][fx_late]{xfade},format=yuv420p[out]",
        norm = super::normalize(ctx),
        curve = Filter::new("lut").arg("y", "clip(255-pow(max(255-val,0)/255,0.8)*255*1.25,0,255)"),
        xfade = Filter::new("xfade")
            .arg("transition", "smoothleft")
            .arg("offset", format!("{HOLD:.3}"))
            .arg("duration", format!("{REVEAL:.3}")),
    )
}
