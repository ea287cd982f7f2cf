//! `construction`: an empty blueprint sheet, the picture's edges drawn onto it as white-blue
//! lines rising from the bottom, then the photo builds up from the bottom over the blueprint.

use super::{Wipe, edge_strength, still, wipe_ramp, wipe_window};
use crate::escape::Filter;
use crate::graph::EffectContext;

const LINES: f64 = 1.3;
const BUILD_AT: f64 = 1.7;
const BUILD: f64 = 1.8;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let cell = (ctx.short_side() / 12).max(8);
    // The blueprint (sheet + edges) is composed at half resolution and scaled up once per
    // frame: edgedetect and blend are the costliest per-frame steps. Lines come out 2 px wide,
    // which reads better as a drawing anyway; the full-size sheet is the half one scaled up, so
    // the two match.
    let (hw, hh) = (w / 4 * 2, h / 4 * 2);
    // The sheet is drawn in yuv444p so its 1 px grid keeps clean colour when scaled up.
    let sheet_filters = |extra: &[Filter]| {
        let mut f = vec![
            Filter::new("format").arg("pix_fmts", "yuv444p"),
            Filter::new("drawgrid")
                .arg("w", (cell / 2).max(4))
                .arg("h", (cell / 2).max(4))
                .arg("t", 1)
                .arg("c", "white@0.22"),
        ];
        f.extend_from_slice(extra);
        f
    };
    let source = format!("color=c=0x1b4f8c:s={hw}x{hh}:r={}", ctx.fps);
    let half_sheet = still(ctx, &source, &sheet_filters(&[]), "fx_hsheet");
    let full_sheet = still(
        ctx,
        &source,
        &sheet_filters(&[
            Filter::new("scale")
                .arg("w", w)
                .arg("h", h)
                .arg("flags", "bilinear"),
            Filter::new("format").arg("pix_fmts", "yuv420p"),
        ]),
        "fx_sheet",
    );
    let end = ctx.frame_at(BUILD_AT + BUILD);
    // The two soft wipes from the bottom (blueprint lines over the sheet, then the photo over
    // the blueprint) are overlays through a sliding ramp: see `wipe_ramp`.
    let ramp = wipe_ramp(ctx, Wipe::Up, false, "fx_ramp");
    format!(
        "[in]{norm},split[fx_photo][fx_src];\
         [fx_src]trim=end_frame={end},scale={hw}:{hh}:flags=bilinear,format=gray,{edges},\
         format=yuv444p,lutyuv=y=clip(val*1.3\\,0\\,255):u=128:v=128[fx_lines];\
         {half_sheet};\
         [fx_hsheet][fx_lines]blend=c0_mode=lighten:c1_mode=normal:c2_mode=normal:c1_opacity=1:c2_opacity=1,\
         scale={w}:{h}:flags=bilinear,format=yuv420p[fx_bp];\
         {full_sheet};{ramp};[fx_ramp]split[fx_r1][fx_r2];\
         [fx_r1]{w1}[fx_m1];[fx_r2]{w2}[fx_m2];\
         [fx_bp][fx_m1]alphamerge[fx_bpa];\
         [fx_sheet][fx_bpa]overlay=format=yuv420:eof_action=pass[fx_drawn];\
         [fx_photo][fx_m2]alphamerge[fx_pa];\
         [fx_drawn][fx_pa]overlay=format=yuv420,format=yuv420p[out]",
        norm = super::normalize(ctx),
        edges = edge_strength(0.31, 0.65),
        w1 = wipe_window(ctx, Wipe::Up, 0.0, LINES),
        w2 = wipe_window(ctx, Wipe::Up, BUILD_AT, BUILD),
    )
}
