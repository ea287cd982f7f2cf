//! The procedural effects: one module per effect, each a function from [`EffectContext`] to a
//! fragment. Shared building blocks (stills computed once and repeated, the warm-light mask)
//! live here.
//!
//! Cost rule: per-frame work is limited to cheap filters (eq, lutyuv, overlay, crop, xfade,
//! blend modes, displace); anything expensive (geq, big blurs, noise) runs once on a single frame
//! that `loop` then repeats, or at quarter resolution and scaled up.

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
/// [`EffectError::Generative`]: they go through a provider (`stillreel_render::provider`).
pub fn effect_filter(vfx: &Vfx, ctx: &EffectContext) -> Result<EffectGraph, EffectError> {
    ctx.check()?;
    let fragment = match vfx {
        Vfx::DayToTwilight => twilight::build(ctx),
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
/// xfade agree whatever time base the caller's stream had) and its pixel format to yuv420p.
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
        ",loop=loop={}:size=1:start=0,setpts=N/{}/TB[{label}]",
        ctx.frames - 1,
        ctx.fps
    ));
    s
}

/// A transparent-to-colour vertical gradient still (`rgba`), colours `0xRRGGBB@a` evenly spaced
/// from the top to `until` (fraction of the height), the last colour held below.
pub(crate) fn vertical_gradient(
    ctx: &EffectContext,
    colors: &[&str],
    until: f64,
    label: &str,
) -> String {
    let mut g = Filter::new("gradients")
        .arg("s", format!("{}x{}", ctx.width, ctx.height))
        .arg("r", ctx.fps)
        .arg("x0", 0)
        .arg("y0", 0)
        .arg("x1", 0)
        .arg("y1", (f64::from(ctx.height) * until).round() as u32)
        .arg("n", colors.len());
    const KEYS: [&str; 8] = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    for (k, c) in KEYS.iter().zip(colors) {
        g = g.arg(k, c);
    }
    still(
        ctx,
        &g.to_string(),
        &[Filter::new("format").arg("pix_fmts", "rgba")],
        label,
    )
}

/// Quarter-resolution size of the frame (even numbers), for masks computed cheaply.
pub(crate) fn quarter(ctx: &EffectContext) -> (u32, u32) {
    ((ctx.width / 8).max(2) * 2, (ctx.height / 8).max(2) * 2)
}

/// Warm-light mask (gray, full size) of the stream `src`: bright and warm pixels, i.e. lit
/// windows and lamps, not white walls or clouds: `1.5R - 0.75B - 0.85` (0-1 scale), times 4.4, at
/// quarter resolution then scaled up (which also softens it).
pub(crate) fn warm_mask(ctx: &EffectContext, src: &str, label: &str) -> String {
    let (qw, qh) = quarter(ctx);
    format!(
        "[{src}]scale={qw}:{qh},format=rgba,colorchannelmixer=rr=1.5:rg=0:rb=-0.75:ra=-0.85,extractplanes=r,\
         {},scale={}:{}[{label}]",
        Filter::new("lut").arg("y", "clip(val*4.4,0,255)"),
        ctx.width,
        ctx.height
    )
}

/// Pastes the lit windows of `lit` over `base` through the warm mask, with an orange bloom
/// around them: what makes a house look lived-in at dusk or night.
pub(crate) fn lit_windows(
    ctx: &EffectContext,
    base: &str,
    lit: &str,
    mask: &str,
    glow: f64,
    out: &str,
) -> String {
    let (qw, qh) = quarter(ctx);
    let (w, h) = (ctx.width, ctx.height);
    format!(
        "[{mask}]split[fx_wm1][fx_wm2];\
         [{lit}]eq=brightness=0.04:saturation=1.25[fx_litb];\
         [fx_litb][fx_wm1]alphamerge[fx_lita];\
         [fx_wm2]scale={qw}:{qh},gblur=sigma={sigma:.1},{lut},scale={w}:{h}[fx_bloom_a];\
         {orange};\
         [fx_orange][fx_bloom_a]alphamerge[fx_bloom];\
         [{base}][fx_bloom]overlay=format=yuv420[fx_based];\
         [fx_based][fx_lita]overlay=format=yuv420[{out}]",
        sigma = f64::from(qh) / 40.0,
        lut = Filter::new("lut").arg("y", format!("clip(val*{glow:.2},0,255)")),
        orange = still(
            ctx,
            &format!("color=c=0xffa040:s={w}x{h}:r={}", ctx.fps),
            &[Filter::new("format").arg("pix_fmts", "yuv420p")],
            "fx_orange"
        ),
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
