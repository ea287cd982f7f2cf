//! `starry-night`: a night grade (dark, blue, navy sky gradient), lit windows kept warm, and a
//! twinkling star field only where the picture has sky: upper part, blue in the original
//! (B − R > 0), low texture. The star field is drawn once; a smooth noise field sliding over it makes the
//! stars twinkle; the sky mask is recomputed per frame at quarter resolution so the stars stay
//! in the sky while the camera moves.

use super::{
    bloom_over, edge_strength, full_rate, grade, quarter, quarter_rgba, still, still_half,
    vertical_gradient, warm_mask, windows_over,
};
use crate::escape::Filter;
use crate::graph::EffectContext;

pub fn build(ctx: &EffectContext) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (qw, qh) = quarter(ctx);
    let fps = ctx.fps;
    let (hw, hh) = (w / 4 * 2, h / 4 * 2);
    // Stars: sparse random points at half resolution (soft 2 px dots after scaling), plus a few
    // bigger ones from quarter resolution; both drawn and combined once, then repeated.
    let stars = |seed: u32, density: f64, sw: u32, sh: u32, label: &str| {
        format!(
            "color=c=black:s={sw}x{sh}:r={fps},trim=end_frame=1,{},{},{},{}[{label}]",
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg(
                "lum",
                format!(
                    "if(lt(random({seed}),{density}),120+135*random({}),0)",
                    seed + 1
                ),
            ),
            Filter::new("scale")
                .arg("w", hw)
                .arg("h", hh)
                .arg("flags", "bicubic"),
            Filter::new("lut").arg("y", "clip(val*1.6,0,255)"),
        )
    };
    let small = stars(1, 0.008, hw, hh, "fx_st1");
    let big = stars(3, 0.002, qw, qh, "fx_st2");
    let star_field = format!(
        "{small};{big};[fx_st1][fx_st2]blend=all_mode=lighten,loop=loop={}:size=1:start=0,\
         setpts=N/{fps}/TB[fx_stars]",
        ctx.frames - 1
    );
    // Twinkle: smooth noise twice the frame width, slid sideways over the clip.
    let twinkle = still(
        ctx,
        &format!("color=c=gray:s={}x{}:r={fps}", qw * 2, qh),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("noise")
                .arg("alls", 100)
                .arg("allf", "u")
                .arg("all_seed", 11),
            Filter::new("gblur").arg("sigma", 1.2),
            Filter::new("lut").arg("y", "clip((val-128)*5+150,40,255)"),
            Filter::new("scale").arg("w", hw * 2).arg("h", hh),
        ],
        "fx_tw",
    );
    let slide = Filter::new("crop")
        .arg("w", hw)
        .arg("h", hh)
        .arg("x", format!("{}*t/{:.3}", hw, ctx.seconds()))
        .arg("y", 0);
    // Sky mask: blue, untextured, upper.
    // The "upper part" weight: 1 down to 35 % of the height, fading to 0 at 70 %.
    let ramp = still_half(
        ctx,
        &format!("color=c=black:s={qw}x{qh}:r={fps}"),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg("lum", "255*clip((0.7*H-Y)/(0.35*H),0,1)"),
        ],
        "fx_ramp",
    );
    format!(
        "[in]{norm},split=3[fx_base][fx_lit][fx_qsrc];\
         {quarter};{mask};[fx_wmask]split[fx_wm_b][fx_wm_w];\
         [fx_q1]format=gray,{edges},dilation,dilation,gblur=sigma=2,negate,{flat}[fx_flat];\
         [fx_q2]colorchannelmixer=rr=-1:rg=0:rb=1:ra=0,extractplanes=r,{blue}[fx_blue];\
         {ramp};\
         [fx_blue][fx_flat]blend=all_mode=multiply[fx_bf];\
         [fx_bf][fx_ramp]blend=all_mode=multiply,scale={hw}:{hh},{full}[fx_sky];\
         {star_field};{twinkle};\
         [fx_tw]{slide}[fx_twc];\
         [fx_stars][fx_twc]blend=all_mode=multiply[fx_twinkled];\
         [fx_twinkled][fx_sky]blend=all_mode=multiply,scale={w}:{h}:flags=bicubic,format=yuv420p[fx_star_a];\
         [fx_base]{grade}[fx_night0];\
         {navy};{bloom};[fx_night0][fx_layer]overlay=format=yuv420[fx_night1];\
         [fx_night1][fx_star_a]blend=c0_mode=lighten:c1_mode=normal:c2_mode=normal:c1_opacity=1:c2_opacity=1[fx_night2];\
         {windows},format=yuv420p[out]",
        norm = super::normalize(ctx),
        full = full_rate(ctx),
        quarter = quarter_rgba(ctx, "fx_qsrc", &["fx_wsrc", "fx_q1", "fx_q2"]),
        mask = warm_mask("fx_wsrc", "fx_wmask"),
        // Edges are Sobel's (wider than Canny's one-pixel lines): two dilations reach as far
        // from a roof or crown as Canny's three did.
        edges = edge_strength(0.08, 0.18),
        grade = grade(-0.16, 1.1, 0.55, 0.72, 1.0, (14, -9)),
        // Sky is blue (B − R above 0, clouds a little, blue sky a lot); white walls and trim are
        // not, so no star lands on a bright flat wall.
        blue = Filter::new("lut").arg("y", "clip((val-10)*7,0,255)"),
        flat = Filter::new("lut").arg("y", "clip((val-150)*3,0,255)"),
        navy = vertical_gradient(
            ctx,
            &["0x050a24@0.8", "0x0a1440@0.55", "0x0a1440@0.0"],
            0.7,
            "fx_navy"
        ),
        // The bloom goes under the stars rather than over them (it is around windows, they
        // are in the sky): one colour layer with the navy sky.
        bloom = bloom_over(ctx, "fx_navy", "fx_wm_b", 2.0, "fx_layer"),
        windows = windows_over(ctx, "fx_night2", "fx_lit", "fx_wm_w", "fx_nightw")
            .replace("[fx_nightw]", ""),
    )
}
