//! `day-to-twilight` on real photographs (Debian's lomiri wallpapers, which `scripts/setup.sh`
//! installs; docs/EFFECTS.md "Real photographs"): an overcast sky over a hazy blue mountain
//! and orange trees, a clear sky over grey rock, a sunset. Rendered by real ffmpeg at 640×360
//! with the masks the render crate would hand the graph (computed from the photo), frames
//! decoded raw; the regions were marked once by hand, in relative coordinates.
//!
//! Without the photographs the tests skip with a notice, unless `STILLREEL_REQUIRE_PHOTOS=1`
//! (`scripts/test.sh` sets it): then they fail. `STILLREEL_PHOTOS_DIR` reads them from
//! another folder.
#![expect(clippy::unwrap_used, reason = "test")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use stillreel_core::{Engine, Vfx};
use stillreel_effects::{EffectContext, Pads, effect_filter, scene};

const W: usize = 640;
const H: usize = 360;
const FRAMES: u32 = 150;

/// A rectangle in relative coordinates: x0, y0, x1, y1.
type Region = (f64, f64, f64, f64);

/// The photograph, or `None` (after a notice) when it is missing and not required.
fn photo(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("STILLREEL_PHOTOS_DIR")
        .map_or_else(|| PathBuf::from("/usr/share/backgrounds"), PathBuf::from);
    let path = dir.join(name);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("STILLREEL_REQUIRE_PHOTOS").as_deref() != Ok("1"),
        "STILLREEL_REQUIRE_PHOTOS=1 but {} is missing: run scripts/setup.sh",
        path.display()
    );
    eprintln!(
        "\n!!!!! SKIPPED: {} is missing (scripts/setup.sh installs lomiri-wallpapers-16.04) !!!!!\n",
        path.display()
    );
    None
}

/// Frames 0 and 149 of day-to-twilight over `photo` (cover-cropped to 640×360, not moving),
/// as RGB.
fn first_and_last(photo: &Path) -> (Vec<u8>, Vec<u8>) {
    let ctx = EffectContext::new(W as u32, H as u32, 30, FRAMES, Engine::V25);
    let graph = effect_filter(&Vfx::DayToTwilight, &ctx).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let masks = common::mask_input(
        &graph,
        Some(photo),
        (W as u32, H as u32),
        30,
        FRAMES,
        dir.path(),
    );
    let extra: &[&str] = if masks.is_empty() { &[] } else { &["1:v"] };
    let frag = graph
        .render(&Pads {
            input: "base",
            output: "fx",
            prefix: "",
            extra,
        })
        .unwrap();
    let graph = format!(
        "[0:v]scale={W}:{H}:force_original_aspect_ratio=increase,crop={W}:{H},format=yuv420p,\
         loop=loop={}:size=1:start=0,setpts=N/30/TB[base];{frag};\
         [fx]select='eq(n\\,0)+eq(n\\,{})',format=rgb24[o]",
        FRAMES - 1,
        FRAMES - 1
    );
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-nostdin", "-i"])
        .arg(photo)
        .args(&masks)
        .args([
            "-filter_complex",
            &graph,
            "-map",
            "[o]",
            "-fps_mode",
            "passthrough",
        ])
        .args(["-f", "rawvideo", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), 2 * W * H * 3, "two frames");
    let (a, b) = out.stdout.split_at(W * H * 3);
    (a.to_vec(), b.to_vec())
}

/// The pixels of a region.
fn pixels(frame: &[u8], (x0, y0, x1, y1): Region) -> impl Iterator<Item = (usize, [f64; 3])> + '_ {
    let px = |v: f64, n: usize| (v * n as f64).round() as usize;
    (px(y0, H)..px(y1, H)).flat_map(move |y| {
        (px(x0, W)..px(x1, W)).map(move |x| {
            let i = y * W + x;
            let p = &frame[i * 3..i * 3 + 3];
            (i, [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])])
        })
    })
}

/// Means over a region: luma (Rec. 601, 0–255), B − R, chroma (max − min channel) and
/// violet, (R + B)/2 − G: what the evening gradient's violet raises and a cool grade hardly.
#[derive(Debug, Clone, Copy)]
struct Look {
    luma: f64,
    blue: f64,
    chroma: f64,
    violet: f64,
}

fn look(frame: &[u8], r: Region) -> Look {
    let (mut n, mut luma, mut blue, mut chroma, mut violet) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (_, [red, g, b]) in pixels(frame, r) {
        n += 1.0;
        luma += 0.299 * red + 0.587 * g + 0.114 * b;
        blue += b - red;
        chroma += red.max(g).max(b) - red.min(g).min(b);
        violet += (red + b) / 2.0 - g;
    }
    Look {
        luma: luma / n,
        blue: blue / n,
        chroma: chroma / n,
        violet: violet / n,
    }
}

fn luma(p: &[f64; 3]) -> f64 {
    0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]
}

/// Pixels of a region that stay lit at dusk (over 0.6× their daylight luma, where the grade
/// leaves about a third) or turn much warmer (R − B up by 40): the specks a warm-light mask
/// leaves on sunlit leaves. Out of the region's pixels.
fn specks(first: &[u8], last: &[u8], r: Region) -> (usize, usize) {
    let before: Vec<(usize, [f64; 3])> = pixels(first, r).collect();
    let hot = pixels(last, r)
        .zip(&before)
        .filter(|((_, p1), (_, p0))| {
            (luma(p0) > 40.0 && luma(p1) > 0.6 * luma(p0))
                || (p1[0] - p1[2]) - (p0[0] - p0[2]) > 40.0
        })
        .count();
    (hot, before.len())
}

#[test]
fn overcast_sky_turns_dusk_the_blue_mountain_is_not_sky_and_orange_trees_get_no_specks() {
    let Some(photo) = photo("aitzgorri_by_Aitzol_Berasategi.jpg") else {
        return;
    };
    let (first, last) = first_and_last(&photo);
    let skies = [(0.02, 0.01, 0.20, 0.07), (0.80, 0.01, 0.98, 0.07)];
    let mountain = (0.50, 0.25, 0.66, 0.42);
    let trees = (0.02, 0.30, 0.30, 0.55);
    let field = (0.10, 0.78, 0.90, 0.95);
    for sky in skies {
        let (a, b) = (look(&first, sky), look(&last, sky));
        eprintln!("sky {sky:?}: {a:?} -> {b:?}");
        // Dusk: deep and blue, not the mid grey a graded white sky is (the grade alone left
        // it at 0.43× its luma, chroma under half its luma).
        assert!(
            b.luma < 0.2 * a.luma,
            "the white sky turns dark: {a:?} -> {b:?}"
        );
        assert!(
            b.blue > a.blue + 20.0 && b.blue > 35.0,
            "bluer: {a:?} -> {b:?}"
        );
        assert!(b.chroma > b.luma, "a deep colour, not grey: {b:?}");
    }
    let (m0, m1) = (look(&first, mountain), look(&last, mountain));
    let (f0, f1) = (look(&first, field), look(&last, field));
    eprintln!("mountain: {m0:?} -> {m1:?}; field: {f0:?} -> {f1:?}");
    // Graded like the ground, not painted with the gradient: its hue keeps (the sky mask by
    // colour raised its violet by 17) and it darkens by the ground's ratio.
    assert!(
        m1.violet - m0.violet < 8.0,
        "the mountain turned violet: {:.1} -> {:.1}",
        m0.violet,
        m1.violet
    );
    let (mr, fr) = (m1.luma / m0.luma, f1.luma / f0.luma);
    assert!(
        (mr - fr).abs() < 0.15,
        "darkened like the ground: {mr:.2} vs {fr:.2}"
    );
    for r in [trees, (0.0, 0.2, 1.0, 0.75)] {
        let (hot, n) = specks(&first, &last, r);
        eprintln!("{r:?}: {hot} of {n} pixels lit or warmer");
        assert!(hot * 1000 <= n, "orange specks on the trees: {hot} of {n}");
    }
    // Nothing in this picture is a window: the lights mask at the 720p clip's mask size is
    // empty however the picture is scaled down (the clip's canvas is averaged, not
    // area-scaled). Sunlit tufts of two or three pixels once passed for windows.
    for flags in ["area", "bilinear"] {
        let rgb = common::picture_rgb(&photo, (1280, 720), (320, 180), flags);
        let sky = scene::sky_mask(&rgb, 320, 180);
        let lit = scene::lights_mask(&rgb, &sky, 320, 180);
        let n = lit.iter().filter(|&&v| v > 0).count();
        assert_eq!(n, 0, "{flags}: {n} pixels lit on a mountainside");
    }
}

#[test]
fn clear_sky_darkens_into_the_gradient_and_the_rock_is_not_sky() {
    let Some(photo) = photo("picosdeeuropa_by_Aitzol_Berasategi.jpg") else {
        return;
    };
    let (first, last) = first_and_last(&photo);
    let sky = (0.30, 0.01, 0.80, 0.05);
    let rock = (0.50, 0.30, 0.75, 0.55);
    let grass = (0.05, 0.80, 0.30, 0.95);
    let (s0, s1) = (look(&first, sky), look(&last, sky));
    eprintln!("sky: {s0:?} -> {s1:?}");
    assert!(s1.luma < 0.5 * s0.luma, "the sky darkens: {s0:?} -> {s1:?}");
    assert!(s1.blue > 35.0, "into the evening gradient: {s1:?}");
    let (r0, r1) = (look(&first, rock), look(&last, rock));
    let (g0, g1) = (look(&first, grass), look(&last, grass));
    eprintln!("rock: {r0:?} -> {r1:?}; grass: {g0:?} -> {g1:?}");
    assert!(
        r1.violet - r0.violet < 8.0,
        "the rock painted like sky: violet {:.1} -> {:.1}",
        r0.violet,
        r1.violet
    );
    let (rr, gr) = (r1.luma / r0.luma, g1.luma / g0.luma);
    assert!(
        (rr - gr).abs() < 0.15,
        "darkened like the ground: {rr:.2} vs {gr:.2}"
    );
}

#[test]
fn sunset_sky_turns_dusk_and_the_hills_stay_hills() {
    let Some(photo) = photo("sunset_by_Aitzol_Berasategi.jpg") else {
        return;
    };
    let (first, last) = first_and_last(&photo);
    let sky = (0.02, 0.05, 0.30, 0.30);
    let ground = (0.10, 0.80, 0.90, 0.95);
    let (s0, s1) = (look(&first, sky), look(&last, sky));
    let (g0, g1) = (look(&first, ground), look(&last, ground));
    eprintln!("sky: {s0:?} -> {s1:?}; ground: {g0:?} -> {g1:?}");
    assert!(s1.luma < 0.5 * s0.luma, "the sky darkens: {s0:?} -> {s1:?}");
    assert!(s1.blue > 35.0, "into the evening gradient: {s1:?}");
    // The gradient's lowest band is a light pink: painted on, the dark ground would brighten.
    // (Its B − R rises anyway: the grade's cool cast is most of what is left of a dark pixel.)
    assert!(
        g1.luma < 0.5 * g0.luma,
        "the ground darkens: {g0:?} -> {g1:?}"
    );
    let (hot, n) = specks(&first, &last, ground);
    assert!(hot * 1000 <= n, "specks on the ground: {hot} of {n}");
}
