//! `pencil-sketch`: the clip opens as a pencil drawing of the photo (grayscale colour-dodge of
//! the inverted, blurred picture on warm paper), holds, then a soft wipe reveals the photo.

use super::{Wipe, wipe_ramp, wipe_window};
use crate::escape::Filter;
use crate::graph::EffectContext;

/// Seconds the drawing is held before the reveal starts, and the reveal's length.
const HOLD: f64 = 1.2;
const REVEAL: f64 = 2.0;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (qw, qh) = (w / 4 / 2 * 2, h / 4 / 2 * 2);
    let end = ctx.frame_at(HOLD + REVEAL);
    format!(
        "[in]{norm},split[fx_photo][fx_src];\
         [fx_src]trim=end_frame={end},format=gray,split[fx_g1][fx_g2];\
         [fx_g2]scale={qw}:{qh},negate,gblur=sigma=2.2,scale={w}:{h}[fx_blur];\
         [fx_g1][fx_blur]blend=all_mode=dodge,format=gray,{curve},format=yuv420p,lutyuv=u=124:v=133[fx_sketch];\
         {ramp};[fx_ramp]{window}[fx_cover];\
         [fx_sketch][fx_cover]alphamerge[fx_sketch_a];\
         [fx_photo][fx_sketch_a]overlay=format=yuv420:eof_action=pass,format=yuv420p[out]",
        norm = super::normalize(ctx),
        curve = Filter::new("lut").arg("y", "clip(255-pow(max(255-val,0)/255,0.8)*255*1.25,0,255)"),
        // The reveal: the drawing laid over the photo through a soft wipe leaving to the left
        // (the look of `xfade=smoothleft`, without its per-pixel float mix; see `wipe_ramp`);
        // once the drawing's frames end, the photo passes through.
        ramp = wipe_ramp(ctx, Wipe::Left, true, "fx_ramp"),
        window = wipe_window(ctx, Wipe::Left, HOLD, REVEAL),
    )
}
