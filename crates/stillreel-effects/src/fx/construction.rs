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
            grid,
        ],
        "fx_sheet",
    );
    let end = ctx.frame_at(BUILD_AT + BUILD);
    // Edges at half resolution: edgedetect is the costliest per-frame step; scaled up, the lines
    // come out 2 px wide, which reads better as a drawing anyway.
    let (hw, hh) = (w / 4 * 2, h / 4 * 2);
    let start = ctx.frame_at(BUILD_AT);
    format!(
        "[in]{norm},split[fx_photo][fx_src];\
         [fx_src]trim=end_frame={end},scale={hw}:{hh},format=gray,edgedetect=low=0.06:high=0.18,\
         scale={w}:{h}:flags=bilinear,format=yuv420p,lutyuv=y=clip(val*1.3\\,0\\,255):u=128:v=128[fx_lines];\
         {sheet};[fx_sheet]split[fx_sheet1][fx_sheet2];\
         [fx_sheet2][fx_lines]blend=c0_mode=lighten:c1_mode=normal:c2_mode=normal:c1_opacity=1:c2_opacity=1[fx_bp];\
         [fx_sheet1][fx_bp]{x1}[fx_drawn];\
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
