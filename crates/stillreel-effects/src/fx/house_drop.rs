//! `house-drop`: the photo falls into the frame from above over a dark blurred copy of itself,
//! lands, bounces twice (6 % then 1.5 % of the height) and settles; the rest of the clip is the
//! untouched stream.

use crate::escape::Filter;
use crate::expr::drop_bounce;
use crate::graph::EffectContext;

/// When the fall starts and how long it takes, in seconds.
pub const START: f64 = 0.0;
pub const FALL: f64 = 0.55;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (ew, eh) = (w / 8 / 2 * 2, h / 8 / 2 * 2);
    let (y, rest) = drop_bounce(START, FALL, f64::from(h));
    let k = ctx.frame_at(rest + 0.05).clamp(1, ctx.frames - 1);
    format!(
        "[in]{norm},split[fx_a][fx_b];\
         [fx_a]trim=end_frame={k},split[fx_fg][fx_bgsrc];\
         [fx_bgsrc]scale={ew}:{eh},gblur=sigma=2,scale={w}:{h},eq=brightness=-0.22:saturation=0.5[fx_bg];\
         [fx_bg][fx_fg]{ov}[fx_drop];\
         [fx_b]trim=start_frame={k},setpts=PTS-STARTPTS[fx_rest];\
         [fx_drop][fx_rest]concat=n=2:v=1:a=0,format=yuv420p[out]",
        norm = super::normalize(ctx),
        ov = Filter::new("overlay")
            .arg("x", 0)
            .arg("y", y)
            .arg("format", "yuv420")
            .arg("eval", "frame"),
    )
}
