//! The procedural effects: one module per effect, each a function from [`EffectContext`] to a
//! fragment. Shared building blocks (stills computed once and repeated, the warm-light mask)
//! live here.
//!
//! Cost rule: per-frame work is limited to cheap filters (lutyuv, overlay, crop, alphamerge,
//! blend modes, displace); anything expensive (geq, big blurs, noise) runs once on a single frame
//! that `loop` then repeats, or at quarter resolution and scaled up. Masks that follow the
//! camera are computed on every other frame ([`quarter_rgba`]); edges are Sobel's
//! ([`edge_strength`]), not `edgedetect`'s; no `xfade` (a float mix of every plane, about 17 ms
//! a 720p frame): crossfades fade an overlay's alpha, wipes slide a ramp ([`wipe_ramp`]).

mod construction;
mod house_drop;
mod shadows;
mod sketch;
mod starry;
mod sunshine;
mod sway;
mod twilight;
mod word_drop;

pub use word_drop::{Layout as WordDropLayout, layout as word_drop_layout};

use stillreel_core::Vfx;

use crate::escape::Filter;
use crate::graph::{EffectContext, EffectError, EffectGraph};

/// The fragment for one procedural effect. Generative types return
/// [`EffectError::Generative`]: they go through a provider (`stillreel_providers`).
pub fn effect_filter(vfx: &Vfx, ctx: &EffectContext) -> Result<EffectGraph, EffectError> {
    ctx.check()?;
    let fragment = match vfx {
        Vfx::DayToTwilight => {
            return Ok(EffectGraph::new(twilight::build(ctx)).with_masks(twilight::masks(ctx)));
        }
        Vfx::CatchTheSunshine => sunshine::build(ctx),
        Vfx::PencilSketch => sketch::build(ctx),
        Vfx::Construction => construction::build(ctx),
        Vfx::StarryNight => starry::build(ctx),
        Vfx::SwayTrees => sway::build(ctx),
        Vfx::Shadows => shadows::build(ctx),
        Vfx::HouseDrop => house_drop::build(ctx),
        // Nothing in the picture moves except the camera: a procedural engine satisfies
        // "static ceiling fan" by construction.
        Vfx::StaticCeilingFan => "[in]null[out]".to_owned(),
        Vfx::WordDrop { config } => word_drop::build(ctx, config)?,
        Vfx::VirtualStaging { .. } | Vfx::Lifestyle { .. } | Vfx::SpinCeilingFan => {
            return Err(EffectError::Generative(vfx.kind()));
        }
    };
    Ok(EffectGraph::new(fragment))
}

/// Normalizes the clip's timing to frame numbers in a 1/fps time base (so stills, trims and
/// overlays agree whatever time base the caller's stream had) and its pixel format to yuv420p.
pub(crate) fn normalize(ctx: &EffectContext) -> String {
    format!(
        "settb=1/{fps},setpts=N,fps={fps},format=yuv420p",
        fps = ctx.fps
    )
}

/// A colour cast done in YUV with a lookup table (`du` towards blue, `dv` towards red): what
/// `colorbalance` would do for a grade, without its two RGB conversions per frame (about 20 ms
/// a 720p frame on these machines, the cost of the whole effect budget).
pub(crate) fn tint(du: i32, dv: i32) -> String {
    format!("lutyuv=u=clip(val{du:+}\\,16\\,240):v=clip(val{dv:+}\\,16\\,240)")
}

/// A still computed once from a source and a chain, then repeated for the whole clip:
/// `source,trim=end_frame=1,filters...,loop,setpts[label]`.
pub(crate) fn still(ctx: &EffectContext, source: &str, filters: &[Filter], label: &str) -> String {
    still_every(ctx, source, filters, label, 1)
}

/// Like [`still`], at half the frame rate (frames 0, 2, 4, ...): for masks built from
/// [`quarter_rgba`], so that blending them with a still keeps them at half rate.
pub(crate) fn still_half(
    ctx: &EffectContext,
    source: &str,
    filters: &[Filter],
    label: &str,
) -> String {
    still_every(ctx, source, filters, label, 2)
}

/// The still repeated on every `step`-th frame of the clip.
fn still_every(
    ctx: &EffectContext,
    source: &str,
    filters: &[Filter],
    label: &str,
    step: u32,
) -> String {
    let mut s = format!("{source},trim=end_frame=1");
    for f in filters {
        s.push(',');
        s.push_str(&f.to_string());
    }
    // Convert a layer with alpha once, here, to what `overlay` blends in (yuva420p); left in
    // rgba, every repeated frame would be converted again.
    if s.contains("rgba") {
        s.push_str(",format=yuva420p");
    }
    s.push_str(&format!(
        ",loop=loop={}:size=1:start=0,setpts={step}*N/{}/TB[{label}]",
        ctx.frames.div_ceil(step) - 1,
        ctx.fps
    ));
    s
}

/// One quarter-resolution RGBA copy of every other frame of the stream `src`, split into
/// `labels`: every mask of an effect reads the same small frame (one bilinear downscale and one
/// RGB conversion, instead of one per mask), and masks are computed at half the frame rate. A
/// mask follows the camera, which moves under 2 px a frame, and masks are blurred over more
/// than that: a mask one frame late cannot be seen, and the mask work halves. Stills mixed
/// into these masks come from [`still_half`]; [`full_rate`] brings a finished mask back to
/// every frame.
pub(crate) fn quarter_rgba(ctx: &EffectContext, src: &str, labels: &[&str]) -> String {
    let (qw, qh) = quarter(ctx);
    let outs: String = labels.iter().map(|l| format!("[{l}]")).collect();
    format!(
        "[{src}]{},scale={qw}:{qh}:flags=bilinear,format=rgba,split={}{outs}",
        Filter::new("select").arg("expr", "not(mod(n,2))"),
        labels.len()
    )
}

/// Back to every frame from a mask at half the frame rate (each mask frame shown twice).
pub(crate) fn full_rate(ctx: &EffectContext) -> String {
    format!("fps={}", ctx.fps)
}

/// A transparent-to-colour vertical gradient still at quarter resolution and half rate (a
/// layer for [`bloom_over`]), colours `0xRRGGBB@a` evenly spaced from the top to `until`
/// (fraction of the height), the last colour held below.
pub(crate) fn vertical_gradient(
    ctx: &EffectContext,
    colors: &[&str],
    until: f64,
    label: &str,
) -> String {
    let (qw, qh) = quarter(ctx);
    let mut g = Filter::new("gradients")
        .arg("s", format!("{qw}x{qh}"))
        .arg("r", ctx.fps)
        .arg("x0", 0)
        .arg("y0", 0)
        .arg("x1", 0)
        .arg("y1", (f64::from(qh) * until).round() as u32)
        .arg("n", colors.len());
    const KEYS: [&str; 8] = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    for (k, c) in KEYS.iter().zip(colors) {
        g = g.arg(k, c);
    }
    still_half(
        ctx,
        &g.to_string(),
        &[Filter::new("format").arg("pix_fmts", "rgba")],
        label,
    )
}

/// Direction of a [`wipe_ramp`]: the incoming picture rises from the bottom (`xfade`'s
/// `smoothup`) or enters from the right moving left (`smoothleft`).
#[derive(Clone, Copy)]
pub(crate) enum Wipe {
    Up,
    Left,
}

/// The alpha of a soft wipe as a still three frames long in the wipe's direction: clear, a
/// smoothstep ramp one frame long, opaque (`cover`: the other way round, for a layer that
/// leaves rather than arrives). Each frame of the wipe is a window of it ([`wipe_window`])
/// sliding two frame lengths over the wipe: the look of `xfade`'s smooth wipes, where the crop
/// is free and the overlay it feeds a fixed-point blend. `xfade` mixes every plane in floating
/// point, about 17 ms a 720p frame on these machines.
pub(crate) fn wipe_ramp(ctx: &EffectContext, dir: Wipe, cover: bool, label: &str) -> String {
    let (w, h) = (ctx.width, ctx.height);
    let (source, pos, len, size) = match dir {
        Wipe::Up => (format!("16x{}", h * 3), "Y", h, (w, h * 3)),
        Wipe::Left => (format!("{}x16", w * 3), "X", w, (w * 3, h)),
    };
    let r = format!("clip({pos}/{len}-1,0,1)");
    let ramp = format!("255*pow({r},2)*(3-2*{r})");
    let ramp = if cover { format!("255-{ramp}") } else { ramp };
    still(
        ctx,
        &format!("color=c=black:s={source}:r={}", ctx.fps),
        &[
            Filter::new("format").arg("pix_fmts", "gray"),
            Filter::new("geq").arg("lum", ramp),
            Filter::new("scale")
                .arg("w", size.0)
                .arg("h", size.1)
                .arg("flags", "neighbor"),
        ],
        label,
    )
}

/// The window of a [`wipe_ramp`] for a wipe from `from` seconds lasting `secs`.
pub(crate) fn wipe_window(ctx: &EffectContext, dir: Wipe, from: f64, secs: f64) -> Filter {
    let (w, h) = (ctx.width, ctx.height);
    let slide = |len: u32| format!("{}*clip((t-{from:.3})/{secs:.3},0,1)", len * 2);
    let (x, y) = match dir {
        Wipe::Up => ("0".to_owned(), slide(h)),
        Wipe::Left => (slide(w), "0".to_owned()),
    };
    Filter::new("crop")
        .arg("w", w)
        .arg("h", h)
        .arg("x", x)
        .arg("y", y)
}

/// Quarter-resolution size of the frame (even numbers), for masks computed cheaply.
pub(crate) fn quarter(ctx: &EffectContext) -> (u32, u32) {
    ((ctx.width / 8).max(2) * 2, (ctx.height / 8).max(2) * 2)
}

/// Edge strength of a gray stream, 0 (flat) to 255 (an edge at least `high` strong): a Sobel
/// gradient after a light blur (sigma 1 px), ramped between `low` and `high` (fractions of the 8-bit range,
/// as `edgedetect` takes them). Masks only need "textured or not": `edgedetect`'s Canny (its
/// 5x5 blur, non-maximum suppression and hysteresis) cost about 2.5 ms a quarter-resolution
/// frame, five times this.
pub(crate) fn edge_strength(low: f64, high: f64) -> String {
    let (lo, hi) = (low * 255.0, high * 255.0);
    format!(
        "gblur=sigma=1,sobel,{}",
        Filter::new("lut").arg(
            "y",
            format!("clip((val-{lo:.1})*{:.3},0,255)", 255.0 / (hi - lo))
        )
    )
}

/// The luma lookup `eq` builds for `contrast`, `brightness` and `gamma` (0-1 scale, clipped,
/// truncated), as a `lut` expression in `val`: lets a grade and what follows it run as one
/// `lutyuv` pass instead of `eq` plus more lookups.
fn eq_curve(contrast: f64, brightness: f64, gamma: f64) -> String {
    let c = format!("({contrast}*(val/255-0.5)+0.5{brightness:+})");
    format!("if(lte({c},0),0,min(256*pow({c},{:.6}),255))", 1.0 / gamma)
}

/// A night or dusk grade in one `lutyuv` pass: what `eq=brightness:contrast:saturation:gamma`
/// does, then the luma range above black scaled by `highlights` (1 keeps it), then the
/// [`tint`] `du`/`dv` cast. Equal to that chain of three filters to the grey level, at the
/// cost of one lookup a pixel.
pub(crate) fn grade(
    brightness: f64,
    contrast: f64,
    saturation: f64,
    gamma: f64,
    highlights: f64,
    (du, dv): (i32, i32),
) -> Filter {
    let luma = eq_curve(contrast, brightness, gamma);
    let luma = if (highlights - 1.0).abs() < f64::EPSILON {
        luma
    } else {
        format!("16+(({luma})-16)*{highlights}")
    };
    // `eq` scales chroma in fixed point (12-bit factor, integer offset), not through its
    // luma curve: the same arithmetic here.
    let k = (saturation * 4096.0) as i32;
    let offset = 127 - k / 32;
    let chroma = |d: i32| format!("clip(clip(trunc(val*{k}/4096){offset:+},0,255){d:+},16,240)");
    // The cast's `lutyuv` of the three-filter chain left luma at its default, `clipval`:
    // clipped to the video range.
    Filter::new("lutyuv")
        .arg("y", format!("clip({luma},16,235)"))
        .arg("u", chroma(du))
        .arg("v", chroma(dv))
}

/// Warm-light mask (gray, quarter resolution) of the quarter-resolution RGBA stream `src`:
/// bright and warm pixels, i.e. lit windows and lamps, not white walls or clouds:
/// `1.5R - 0.75B - 0.85` (0-1 scale), times 4.4. Scaled up by [`lit_windows`], which also
/// softens it.
pub(crate) fn warm_mask(src: &str, label: &str) -> String {
    format!(
        "[{src}]colorchannelmixer=rr=1.5:rg=0:rb=-0.75:ra=-0.85,extractplanes=r,{}[{label}]",
        Filter::new("lut").arg("y", "clip(val*4.4,0,255)"),
    )
}

/// The orange bloom around lit windows, laid over `under` (the effect's other smooth colour
/// layers: a quarter-resolution, half-rate `yuva420p` stream) and the result scaled to the frame
/// at full rate as `[label]`: one colour layer for one full-resolution overlay. `mask` is the
/// quarter-resolution, half-rate warm mask (from [`warm_mask`], or the scene's lights mask). `overlay` onto a layer with
/// alpha composites "over" (it divides by the combined alpha), so laying the two layers over
/// the picture one after the other or as this one layer gives the same picture; the layers
/// are smooth gradients and flat colour, which lose nothing at quarter resolution.
pub(crate) fn bloom_over(
    ctx: &EffectContext,
    under: &str,
    mask: &str,
    glow: f64,
    label: &str,
) -> String {
    let (qw, qh) = quarter(ctx);
    let (w, h) = (ctx.width, ctx.height);
    format!(
        "[{mask}]gblur=sigma={sigma:.1},{lut}[fx_bloom_a];\
         {orange};\
         [fx_orange][fx_bloom_a]alphamerge[fx_bloom];\
         [{under}][fx_bloom]overlay=format=yuv420,scale={w}:{h},{full}[{label}]",
        sigma = f64::from(qh) / 40.0,
        full = full_rate(ctx),
        lut = Filter::new("lut").arg("y", format!("clip(val*{glow:.2},0,255)")),
        orange = still_half(
            ctx,
            &format!("color=c=0xffa040:s={qw}x{qh}:r={}", ctx.fps),
            &[Filter::new("format").arg("pix_fmts", "yuva420p")],
            "fx_orange"
        ),
    )
}

/// Pastes the lit windows of `lit` (brightened) over `base` through the warm mask `mask`
/// (quarter resolution, half rate, from [`warm_mask`] or the scene's lights mask): what makes a house look lived-in at
/// dusk or night, with the orange glow of [`bloom_over`].
pub(crate) fn windows_over(
    ctx: &EffectContext,
    base: &str,
    lit: &str,
    mask: &str,
    out: &str,
) -> String {
    let (w, h) = (ctx.width, ctx.height);
    format!(
        "[{mask}]scale={w}:{h},{full}[fx_wmf];\
         [{lit}]eq=brightness=0.04:saturation=1.25[fx_litb];\
         [fx_litb][fx_wmf]alphamerge[fx_lita];\
         [{base}][fx_lita]overlay=format=yuv420[{out}]",
        full = full_rate(ctx),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::{Engine, VfxType};

    #[test]
    fn every_procedural_type_builds_and_generative_ones_refuse() {
        let ctx = EffectContext::new(1280, 720, 30, 150, Engine::V25);
        for kind in VfxType::ALL {
            let vfx = Vfx::plain(*kind).unwrap_or_else(|| match kind {
                VfxType::WordDrop => serde_json::from_str(r#"{"type":"word-drop","config":{"text":"Sold","color":"gold"}}"#).expect("vfx"),
                VfxType::VirtualStaging => serde_json::from_str(r#"{"type":"virtual-staging","config":{"room_type":"auto","staging_style":"auto"}}"#).expect("vfx"),
                _ => serde_json::from_str(r#"{"type":"lifestyle","config":{"people":"auto","ethnicity":"auto"}}"#).expect("vfx"),
            });
            let got = effect_filter(&vfx, &ctx);
            if kind.is_generative() {
                assert_eq!(got, Err(EffectError::Generative(*kind)));
            } else {
                let g = got.expect("builds");
                assert!(g.fragment().starts_with("[in]"), "{kind}");
                assert!(g.fragment().ends_with("[out]"), "{kind}");
            }
        }
    }
}
