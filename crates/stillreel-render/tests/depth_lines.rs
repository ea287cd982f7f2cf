//! Straight lines stay straight under depth parallax, through the real clip step (prepare,
//! canvas, frames drawn in Rust, x264, ffprobe check, store), judged on the decoded last frame
//! of a v25 push-in and orbit (portrait 720p). No depth model runs in the tests: the depth
//! maps are built here as a model gives them for a room, a wall gradient with blotches inside
//! it (±4 % of the range, tens of pixels across) and pixel noise, and a near cabinet whose
//! outline is soft and wanders up to 1.5 % of the width off the photo's.
//!
//! - A synthetic photo (a textured wall, a dark sill across it, a dark mullion down it, the
//!   cabinet): per column the sill's centre (darkness-weighted) and the cabinet's top edge
//!   (its luminance crossing), per row the mullion's centre, each fitted with a straight
//!   line: the largest residual stays under 1.5 px.
//! - A real photograph (`Wine_by_Jakkub_Mede.jpg`, an interior with a glass-block window,
//!   docs/EFFECTS.md "Real photographs"): a mullion of the window, per row its position
//!   against the flat camera's frame, under 1.5 px from a straight line. Skipped with a
//!   printed reason when the photograph is missing, unless `STILLREEL_REQUIRE_PHOTOS` is set
//!   (scripts/test.sh sets it): then it fails.
//!
//! `STILLREEL_KEEP_CLIPS=<dir>` keeps the rendered clips there (the strips of
//! docs/EFFECTS.md are made from them).

mod photos;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use stillreel_camera::depth::{DepthInput, DepthPolarity};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use stillreel_render::{
    ClipJob, LocalStorage, NoObserver, PrepareJob, Renderer, Storage, StoredClip,
};

const PHOTO_NAME: &str = "Wine_by_Jakkub_Mede.jpg";

/// A renderer over a temp dir serving `photo` as `http://test.invalid/f/0`.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    renderer: Renderer,
    storage: Arc<LocalStorage>,
}

fn setup(photo: &Path) -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_path_buf();
    let (renderer, storage) = photos::photo_renderer(&root, vec![photo.to_path_buf()]);
    Setup {
        _dir: dir,
        root,
        renderer,
        storage,
    }
}

fn write_grey_png(path: &Path, width: u32, height: u32, data: &[u8]) {
    photos::write_png(path, width, height, png::ColorType::Grayscale, data);
}

/// A repeatable value in -0.5..0.5 for lattice point `(i, j)` of layer `seed`.
fn lattice(i: i64, j: i64, seed: u64) -> f64 {
    let k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ seed.wrapping_mul(0x1656_67B1_9E37_79F9);
    let k = (k ^ (k >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((k >> 40) as f64 / f64::from(1u32 << 24)) - 0.5
}

/// Smooth value noise (bilinear between lattice values `cell` apart), in -0.5..0.5.
fn value_noise(x: f64, y: f64, cell: f64, seed: u64) -> f64 {
    let (gx, gy) = (x / cell, y / cell);
    let (i, j) = (gx.floor() as i64, gy.floor() as i64);
    let (fx, fy) = (gx - gx.floor(), gy - gy.floor());
    let s = |t: f64| t * t * (3.0 - 2.0 * t);
    let (fx, fy) = (s(fx), s(fy));
    let top = lattice(i, j, seed) * (1.0 - fx) + lattice(i + 1, j, seed) * fx;
    let bottom = lattice(i, j + 1, seed) * (1.0 - fx) + lattice(i + 1, j + 1, seed) * fx;
    top * (1.0 - fy) + bottom * fy
}

/// A plausible depth model's map of the photograph (`mw`×`mh`, brighter is nearer), in map
/// pixels (no depth model runs here): the back wall a little nearer lower down, the floor from the wall's foot (42 % of
/// the height) coming near; the loudspeaker, the table and the drum on its cushion nearer
/// still, their outlines wandering up to about 1.5 % of the width off the photo's and soft;
/// blotches (±4 % of the range, 30 px across) inside every surface, and pixel noise (±2 %).
fn model_like_map(mw: u32, mh: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((mw * mh) as usize);
    for y in 0..mh {
        for x in 0..mw {
            let (xf, yf) = (f64::from(x), f64::from(y));
            // The outlines' wander, smooth.
            let wx = xf / f64::from(mw) + 0.015 * value_noise(xf, yf, 14.0, 1);
            let wy = yf / f64::from(mh) + 0.015 * value_noise(xf, yf, 14.0, 2);
            let mut near: f64 = if wy < 0.42 {
                0.22 + 0.1 * wy
            } else {
                0.26 + 1.1 * (wy - 0.42)
            };
            if wx < 0.19 && (0.02..0.5).contains(&wy) {
                near = 0.5;
            }
            if (0.28..0.95).contains(&wx) && (0.29..0.58).contains(&wy) {
                near = near.max(0.55 + 0.1 * (wy - 0.29));
            }
            let (dx, dy) = ((wx - 0.42) / 0.36, (wy - 0.76) / 0.22);
            if dx * dx + dy * dy < 1.0 {
                near = 0.85;
            }
            near += 0.08 * value_noise(xf, yf, 30.0, 3) + 0.04 * lattice(x.into(), y.into(), 4);
            out.push((near.clamp(0.0, 1.0) * 255.0).round() as u8);
        }
    }
    out
}

/// Renders one 720p portrait v25 clip of the setup's photo with the depth map at `depth`.
async fn render(s: &Setup, name: &str, motion: CameraMotion, depth: Option<&Path>) -> StoredClip {
    let prefix = format!("t/{name}");
    let work = s.root.join(format!("work-{name}"));
    let prepared = s
        .renderer
        .prepare(
            &PrepareJob {
                key_prefix: prefix.clone(),
                images: vec![(0, "http://test.invalid/f/0".to_owned())],
                audio_url: None,
            },
            &work,
            &NoObserver,
        )
        .await
        .expect("prepared");
    let depth = depth.map(|path| {
        let key = format!("{prefix}/depth.png");
        let copy = s.root.join(format!("{name}-depth-upload.png"));
        std::fs::copy(path, &copy).expect("copy depth");
        s.storage.put(&copy, &key).expect("store depth");
        DepthInput {
            key,
            polarity: DepthPolarity::BrighterIsNearer,
        }
    });
    let job = ClipJob {
        look: stillreel_render::ClipLook {
            fit: stillreel_core::Fit::Cover,
            caption: None,
        },
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        usage: stillreel_render::ClipUse::default(),
        key_prefix: prefix,
        index: 0,
        token: None,
        input: prepared.inputs[0].clone(),
        camera_motion: motion,
        effect: None,
        orientation: Orientation::Portrait,
        resolution: Resolution::P720,
        engine: Engine::V25,
        depth,
        depth_note: None,
    };
    let clip = s
        .renderer
        .render_clip(&job, &work, &NoObserver)
        .await
        .expect("the clip renders");
    // For a look at the frames (docs/EFFECTS.md's strips): the clip kept where this names.
    if let Some(dir) = std::env::var_os("STILLREEL_KEEP_CLIPS") {
        let kept = Path::new(&dir).join(format!("{name}.mp4"));
        std::fs::copy(s.root.join("store").join(&clip.key), kept).expect("keep the clip");
    }
    clip
}

const W: usize = 720;
const H: usize = 1280;

/// Frames `wanted` of a stored clip, as luma.
fn frames(s: &Setup, clip: &StoredClip, wanted: &[usize]) -> Vec<Vec<u8>> {
    let path = s.root.join("store").join(&clip.key);
    let mut child = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(&path)
        .args(["-f", "rawvideo", "-pix_fmt", "gray", "-"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("ffmpeg");
    let mut out = child.stdout.take().expect("stdout");
    let mut kept = Vec::new();
    let mut n = 0;
    loop {
        let mut f = vec![0u8; W * H];
        if out.read_exact(&mut f).is_err() {
            break;
        }
        if wanted.contains(&n) {
            kept.push(f);
        }
        n += 1;
    }
    assert!(child.wait().expect("ffmpeg").success());
    assert_eq!(n, 150, "frames");
    kept
}

/// Least-squares line through `points` (t, position): the largest and the RMS residual.
fn straightness(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let mt = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mp = points.iter().map(|p| p.1).sum::<f64>() / n;
    let slope = points.iter().map(|p| (p.0 - mt) * (p.1 - mp)).sum::<f64>()
        / points.iter().map(|p| (p.0 - mt).powi(2)).sum::<f64>();
    let residuals: Vec<f64> = points
        .iter()
        .map(|p| (p.1 - (mp + slope * (p.0 - mt))).abs())
        .collect();
    let max = residuals.iter().copied().fold(0.0, f64::max);
    let rms = (residuals.iter().map(|r| r * r).sum::<f64>() / n).sqrt();
    (max, rms)
}

/// How far (px, sub-pixel) the profile `got` is shifted against `want` (both sampled at
/// whole positions; `got` read at `i + shift` by linear interpolation): the shift in ±8 px,
/// by 0.05 px, of least squared difference over the middle of the profiles.
fn shift_of(want: &[f64], got: &[f64]) -> f64 {
    let margin = 9;
    let read = |t: f64| {
        let i = t.floor() as usize;
        let f = t - t.floor();
        got[i] * (1.0 - f) + got[(i + 1).min(got.len() - 1)] * f
    };
    let mut best = (f64::MAX, 0.0);
    for k in -160..=160 {
        let shift = f64::from(k) * 0.05;
        let cost: f64 = (margin..want.len() - margin)
            .map(|i| (want[i] - read(i as f64 + shift)).powi(2))
            .sum();
        if cost < best.0 {
            best = (cost, shift);
        }
    }
    best.1
}

/// The edge across columns `around.0 ± 20` of `frame` per row of `ys`, as its position:
/// `around.0` plus its shift against the same edge in `flat` about `around.1` (the flat
/// camera's frame, a homography of the photo: its edge is straight whatever the photo shows
/// along it); a row's profile is the mean of 5 rows.
fn edge_columns(
    frame: &[u8],
    flat: &[u8],
    ys: &[usize],
    around: (usize, usize),
) -> Vec<(f64, f64)> {
    let profile = |f: &[u8], y: usize, at: usize| -> Vec<f64> {
        (at - 20..=at + 20)
            .map(|x| {
                (y - 2..=y + 2)
                    .map(|r| f64::from(f[r * W + x]))
                    .sum::<f64>()
                    / 5.0
            })
            .collect()
    };
    ys.iter()
        .map(|&y| {
            let shift = shift_of(&profile(flat, y, around.1), &profile(frame, y, around.0));
            (y as f64, around.0 as f64 + shift)
        })
        .collect()
}

/// The strongest edge (dark above or left, bright below or right) in `candidates`: the
/// largest summed gradient `gradient(i)`.
fn strongest(gradient: impl Fn(usize) -> f64, candidates: std::ops::Range<usize>) -> usize {
    candidates
        .max_by(|&a, &b| gradient(a).total_cmp(&gradient(b)))
        .unwrap_or(0)
}

/// The synthetic photo's luminance: a wall with a fine texture (so the guide has some), a
/// dark sill (rows 236..244) across it, a dark mullion (columns 536..544) down it, and a
/// darker cabinet (columns 80..460, from row 760 down).
fn room(x: usize, y: usize) -> u8 {
    let (xf, yf) = (x as f64, y as f64);
    let texture = 12.0 * (xf / 5.3).sin() * (yf / 6.1).cos();
    if (236..244).contains(&y) && (30..690).contains(&x) {
        return 45;
    }
    if (536..544).contains(&x) && (60..700).contains(&y) {
        return 45;
    }
    if (80..460).contains(&x) && y >= 760 {
        return (105.0 + texture).round() as u8;
    }
    (185.0 + texture).round() as u8
}

/// The synthetic room's depth map, as a model gives it: the wall far with a gradient, the
/// cabinet near with an outline wandering ±1.5 % off the photo's, blotches and pixel noise.
fn room_map(mw: u32, mh: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((mw * mh) as usize);
    for y in 0..mh {
        for x in 0..mw {
            let (xf, yf) = (f64::from(x), f64::from(y));
            let wx = xf / f64::from(mw) + 0.015 * value_noise(xf, yf, 14.0, 1) * 2.0;
            let wy = yf / f64::from(mh) + 0.015 * value_noise(xf, yf, 14.0, 2) * 2.0;
            let mut near = 0.2 + 0.15 * wy;
            if (80.0 / 720.0..460.0 / 720.0).contains(&wx) && wy >= 760.0 / 1280.0 {
                near = 0.8;
            }
            near += 0.08 * value_noise(xf, yf, 24.0, 3) + 0.04 * lattice(x.into(), y.into(), 4);
            out.push((near.clamp(0.0, 1.0) * 255.0).round() as u8);
        }
    }
    out
}

/// The darkness-weighted centre of a dark bar across `span` (pixels darker than 160 weigh by
/// how much), read by `at(i)`.
fn bar_centre(at: impl Fn(usize) -> f64, span: std::ops::Range<usize>) -> f64 {
    let (sum, weight) = span.fold((0.0, 0.0), |(s, w), i| {
        let dark = (160.0 - at(i)).max(0.0);
        (s + i as f64 * dark, w + dark)
    });
    sum / weight
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn straight_edges_stay_straight_under_depth_parallax() {
    let dir = tempfile::tempdir().expect("temp dir");
    let photo = dir.path().join("room.png");
    let pixels: Vec<u8> = (0..H)
        .flat_map(|y| (0..W).map(move |x| room(x, y)))
        .collect();
    write_grey_png(&photo, W as u32, H as u32, &pixels);
    let s = setup(&photo);
    let (mw, mh) = (288u32, 512u32);
    let map = s.root.join("room-map.png");
    write_grey_png(&map, mw, mh, &room_map(mw, mh));

    let push = render(&s, "room-push", CameraMotion::PushIn, Some(&map)).await;
    assert_eq!(push.depth_fallback, None, "the map is usable");
    let last = &frames(&s, &push, &[149])[0];
    let at = |x: usize, y: usize| f64::from(last[y * W + x]);
    // The sill: its darkest row near where the flat push puts it, then per column but where
    // the mullion crosses it (the darkest column lower down).
    let mullion_column = (300..700)
        .min_by(|&a, &b| {
            let sum = |x: usize| (400..600).map(|y| at(x, y)).sum::<f64>();
            sum(a).total_cmp(&sum(b))
        })
        .unwrap_or(0);
    let xs: Vec<usize> = (40..680)
        .step_by(2)
        .filter(|&x: &usize| x.abs_diff(mullion_column) > 24)
        .collect();
    let row = (120..320)
        .min_by(|&a, &b| {
            let sum = |y: usize| xs.iter().map(|&x| at(x, y)).sum::<f64>();
            sum(a).total_cmp(&sum(b))
        })
        .unwrap_or(0);
    let sill: Vec<(f64, f64)> = xs
        .iter()
        .map(|&x| (x as f64, bar_centre(|y| at(x, y), row - 14..row + 15)))
        .collect();
    let (sill_max, sill_rms) = straightness(&sill);
    // The cabinet's top: per column the first row (going down) darker than 145, interpolated.
    let cabinet: Vec<(f64, f64)> = (100..420)
        .step_by(2)
        .filter_map(|x| {
            let y = (560..1000).find(|&y| at(x, y) < 145.0)?;
            let (above, here) = (at(x, y - 1), at(x, y));
            Some((x as f64, y as f64 - 1.0 + (above - 145.0) / (above - here)))
        })
        .collect();
    assert!(cabinet.len() > 140, "the cabinet's top is found");
    let (cabinet_max, cabinet_rms) = straightness(&cabinet);

    let orbit = render(&s, "room-orbit", CameraMotion::OrbitLeft, Some(&map)).await;
    let last = &frames(&s, &orbit, &[149])[0];
    let at = |x: usize, y: usize| f64::from(last[y * W + x]);
    // The mullion's rows, but where it crosses the sill (darkest row of the frame there).
    let sill_row = (100..400)
        .min_by(|&a, &b| {
            let sum = |y: usize| (600..680).map(|x| at(x, y)).sum::<f64>();
            sum(a).total_cmp(&sum(b))
        })
        .unwrap_or(0);
    let ys: Vec<usize> = (100..600)
        .step_by(2)
        .filter(|&y: &usize| y.abs_diff(sill_row) > 24)
        .collect();
    let column = (400..680)
        .min_by(|&a, &b| {
            let sum = |x: usize| ys.iter().map(|&y| at(x, y)).sum::<f64>();
            sum(a).total_cmp(&sum(b))
        })
        .unwrap_or(0);
    let mullion: Vec<(f64, f64)> = ys
        .iter()
        .map(|&y| (y as f64, bar_centre(|x| at(x, y), column - 14..column + 15)))
        .collect();
    let (mullion_max, mullion_rms) = straightness(&mullion);
    eprintln!(
        "push-in: sill largest residual {sill_max:.2} px (RMS {sill_rms:.2}), cabinet top \
         {cabinet_max:.2} px (RMS {cabinet_rms:.2}); orbit-left: mullion {mullion_max:.2} px \
         (RMS {mullion_rms:.2})"
    );
    assert!(
        sill_max < 1.5,
        "push-in: the sill bends by {sill_max:.2} px"
    );
    assert!(
        cabinet_max < 1.5,
        "push-in: the cabinet's top bends by {cabinet_max:.2} px"
    );
    assert!(
        mullion_max < 1.5,
        "orbit: the mullion bends by {mullion_max:.2} px"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_photographs_mullion_stays_straight_under_an_orbit() {
    let Some(photo) = photos::photographs(&[PHOTO_NAME]).and_then(|p| p.into_iter().next()) else {
        return;
    };
    let s = setup(&photo);
    // The model's map at its usual size, the photo's aspect (2560×3837).
    let (mw, mh) = (342u32, 512u32);
    let map = s.root.join("model-like.png");
    write_grey_png(&map, mw, mh, &model_like_map(mw, mh));

    // Orbit: the mullion right of the bottle, from the top to the window's lower edge.
    let orbit = render(&s, "orbit", CameraMotion::OrbitLeft, Some(&map)).await;
    assert_eq!(orbit.depth_fallback, None);
    let flat_orbit = render(&s, "orbit-flat", CameraMotion::OrbitLeft, None).await;
    let (last, flat) = (
        &frames(&s, &orbit, &[149])[0],
        &frames(&s, &flat_orbit, &[149])[0],
    );
    let bottom = strongest(
        |y| {
            (450..700)
                .map(|x| f64::from(flat[(y + 1) * W + x]) - f64::from(flat[(y - 1) * W + x]))
                .sum()
        },
        40..260,
    );
    let ys: Vec<usize> = (24..bottom - 14).step_by(2).collect();
    let column_in = |f: &[u8], near: usize| {
        strongest(
            |x| {
                ys.iter()
                    .map(|&y| f64::from(f[y * W + x + 1]) - f64::from(f[y * W + x - 1]))
                    .sum()
            },
            near - 40..near + 40,
        )
    };
    let flat_column = column_in(flat, 535);
    let column = column_in(last, flat_column);
    let (orbit_max, orbit_rms) =
        straightness(&edge_columns(last, flat, &ys, (column, flat_column)));
    eprintln!(
        "photograph, orbit-left: mullion at column {column} (rows {}..{}): largest residual \
         {orbit_max:.2} px, RMS {orbit_rms:.2}",
        ys[0],
        ys[ys.len() - 1]
    );
    assert!(
        orbit_max < 1.5,
        "orbit: the mullion bends by {orbit_max:.2} px"
    );
    // The push-in too, for a look (STILLREEL_KEEP_CLIPS): the window's lower edge is a soft
    // band in the photo, not a line to measure (the synthetic photo's sill is measured).
    let push = render(&s, "push", CameraMotion::PushIn, Some(&map)).await;
    assert_eq!(push.depth_fallback, None, "the map is usable");
}
