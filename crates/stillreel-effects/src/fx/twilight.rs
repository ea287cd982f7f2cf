//! `day-to-twilight`: the picture crossfades from itself to a dusk grade over the clip: darker,
//! cooler, a deep-blue-to-orange sky gradient in the upper part, and the warm bright pixels
//! (windows, lamps) kept lit with an orange bloom around them.

use super::{lit_windows, vertical_gradient, warm_mask};
use crate::escape::Filter;
use crate::graph::EffectContext;

pub fn build(ctx: &EffectContext) -> String {
    let d = ctx.seconds();
    format!(
        "[in]{norm},split=4[fx_day][fx_g][fx_lit][fx_wsrc];\
         {mask};\
         {sky};\
         [fx_g]eq=brightness=-0.10:contrast=1.1:saturation=0.7:gamma=0.68,\
         {cool}[fx_graded];\
         [fx_graded][fx_sky]overlay=format=yuv420[fx_dusk0];\
         {windows};\
         [fx_day][fx_dusk]{xfade},format=yuv420p[out]",
        norm = super::normalize(ctx),
        cool = super::tint(14, -8),
        mask = warm_mask(ctx, "fx_wsrc", "fx_wmask"),
        sky = vertical_gradient(
            ctx,
            &[
                "0x0a0e3a@0.82",
                "0x2a2470@0.6",
                "0xd86a78@0.32",
                "0x1a1840@0.0"
            ],
            0.6,
            "fx_sky"
        ),
        windows = lit_windows(ctx, "fx_dusk0", "fx_lit", "fx_wmask", 1.6, "fx_dusk"),
        xfade = Filter::new("xfade")
            .arg("transition", "fade")
            .arg("offset", 0)
            .arg("duration", format!("{:.3}", d * 0.8)),
    )
}
