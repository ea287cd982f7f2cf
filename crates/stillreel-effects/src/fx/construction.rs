//! `construction`: an empty blueprint sheet, the picture's edges drawn onto it as white-blue
//! lines rising from the bottom, then the photo builds up from the bottom over the blueprint.

use super::still;
use crate::escape::Filter;
use crate::graph::EffectContext;

const LINES: f64 = 1.3;
const BUILD_AT: f64 = 1.7;
const BUILD: f64 = 1.8;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let cell = (ctx.short_side() / 12).max(8);
    let grid = Filter::new("drawgrid")
        .arg("w", cell)
        .arg("h", cell)
        .arg("t", 1)
        .arg("c", "white@0.22");
    let sheet = still(
        ctx,
        &format!("color=c=0x1b4f8c:s={w}x{h}:r={}", ctx.fps),
        &[
            Filter::new("format").arg("pix_fmts", "yuv420p"),
            grid.clone(),
        ],
        "fx_sheet",
    );
    let end = ctx.frame_at(BUILD_AT + BUILD);
    let start = ctx.frame_at(BUILD_AT);
    format!(
        "[in]{norm},split[fx_photo][fx_src];\
         [fx_src]trim=end_frame={end},format=gray,edgedetect=low=0.06:high=0.18,format=yuv420p,\
         lutyuv=y=clip(70+val*0.72\\,0\\,255):u=160:v=108,{grid}[fx_bp];\
         {sheet};\
         [fx_sheet][fx_bp]{x1}[fx_drawn];\
         [fx_photo]trim=start_frame={start},setpts=PTS-STARTPTS[fx_late];\
         [fx_drawn][fx_late]{x2},format=yuv420p[out]",
        norm = super::normalize(ctx),
        x1 = Filter::new("xfade")
            .arg("transition", "smoothup")
            .arg("offset", 0)
            .arg("duration", format!("{LINES:.3}")),
        x2 = Filter::new("xfade")
            .arg("transition", "smoothup")
            .arg("offset", format!("{BUILD_AT:.3}"))
            .arg("duration", format!("{BUILD:.3}")),
    )
}
