//! Depth-aware motions through the real clip step (prepare, canvas, frames drawn in Rust, x264,
//! ffprobe check, store), judged on the decoded frames. The photo is a synthetic 1280×720 texture
//! (a fine pattern with no flat runs, dark vertical lines every 64 px), so the canvas is the
//! photo itself; the depth maps are synthetic: a floor gradient, two planes, a step edge.

mod photos;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use stillreel_camera::depth::{DepthInput, DepthPolarity};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use stillreel_render::{
    ClipJob, JobFailure, LocalStorage, NoObserver, PrepareJob, Renderer, Storage, StoredClip,
};

const W: usize = 1280;
const H: usize = 720;

/// Texture luma at a pixel: 70..=230, never flat over more than 2 px; dark lines (40) 3 px
/// wide at x = 64k + 30..33.
fn texture(x: usize, y: usize) -> u8 {
    if x % 64 >= 30 && x % 64 < 33 {
        return 40;
    }
    let (xf, yf) = (x as f64, y as f64);
    let v = 150.0
        + 50.0
            * (xf * std::f64::consts::TAU / 7.3).sin()
            * (yf * std::f64::consts::TAU / 9.1).cos()
        + 25.0 * ((xf + 2.0 * yf) * std::f64::consts::TAU / 23.0).sin();
    v.round() as u8
}

/// A renderer over a temp dir, the photo and the depth map in place.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    renderer: Renderer,
    storage: Arc<LocalStorage>,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_path_buf();
    let photo = root.join("photo.png");
    let pixels: Vec<u8> = (0..H)
        .flat_map(|y| (0..W).map(move |x| texture(x, y)))
        .collect();
    photos::write_png(
        &photo,
        W as u32,
        H as u32,
        png::ColorType::Grayscale,
        &pixels,
    );
    let (renderer, storage) = photos::photo_renderer(&root, vec![photo]);
    Setup {
        _dir: dir,
        root,
        renderer,
        storage,
    }
}

/// A depth map (8-bit grey, `mw`×`mh`) from a nearness function of the frame position (0..1).
fn depth_png(path: &Path, mw: u32, mh: u32, near: impl Fn(f64, f64) -> u8) {
    let data: Vec<u8> = (0..mh)
        .flat_map(|y| {
            let near = &near;
            (0..mw).map(move |x| {
                near(
                    (f64::from(x) + 0.5) / f64::from(mw),
                    (f64::from(y) + 0.5) / f64::from(mh),
                )
            })
        })
        .collect();
    photos::write_png(path, mw, mh, png::ColorType::Grayscale, &data);
}

/// Renders one 720p v25 clip with the depth map at `depth` (if any); the stored clip's path.
async fn render(
    s: &Setup,
    name: &str,
    motion: CameraMotion,
    depth: Option<&Path>,
) -> Result<PathBuf, JobFailure> {
    let clip = render_stored(s, name, motion, depth).await?;
    Ok(s.root.join("store").join(clip.key))
}

/// Like [`render`], the stored clip.
async fn render_stored(
    s: &Setup,
    name: &str,
    motion: CameraMotion,
    depth: Option<&Path>,
) -> Result<StoredClip, JobFailure> {
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
        .await?;
    let depth = depth.map(|path| {
        let key = format!("{prefix}/depth.png");
        // `put` moves its file in: hand it a copy.
        let copy = s.root.join(format!("{name}-depth-upload.png"));
        std::fs::copy(path, &copy).expect("copy depth");
        s.storage.put(&copy, &key).expect("store depth");
        DepthInput {
            key,
            polarity: DepthPolarity::BrighterIsNearer,
        }
    });
    let job = ClipJob {
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        look: Default::default(),
        usage: stillreel_render::ClipUse::default(),
        key_prefix: prefix,
        index: 0,
        token: None,
        input: prepared.inputs[0].clone(),
        camera_motion: motion,
        effect: None,
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        depth,
        depth_note: None,
    };
    s.renderer.render_clip(&job, &work, &NoObserver).await
}

/// Every frame's luma, in order.
fn frames(path: &Path) -> Vec<Vec<u8>> {
    let mut child = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args(["-f", "rawvideo", "-pix_fmt", "gray", "-"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("ffmpeg");
    let mut out = child.stdout.take().expect("stdout");
    let mut all = Vec::new();
    loop {
        let mut f = vec![0u8; W * H];
        if out.read_exact(&mut f).is_err() {
            break;
        }
        all.push(f);
    }
    assert!(child.wait().expect("ffmpeg").success());
    assert_eq!(all.len(), 150);
    all
}

/// Where the 48×48 block of `from` centred at `(cx, cy)` is found in `to`, searched within
/// `reach` px of `guess`: the displacement `(dx, dy)` of least absolute difference.
fn track(
    from: &[u8],
    to: &[u8],
    (cx, cy): (usize, usize),
    guess: (i64, i64),
    reach: i64,
) -> (i64, i64) {
    let half = 24i64;
    let mut best = (u64::MAX, 0, 0);
    for dy in guess.1 - reach..=guess.1 + reach {
        for dx in guess.0 - reach..=guess.0 + reach {
            let mut sad = 0u64;
            for y in -half..half {
                for x in -half..half {
                    let (sx, sy) = (cx as i64 + x, cy as i64 + y);
                    let (tx, ty) = (sx + dx, sy + dy);
                    let a = from[sy as usize * W + sx as usize];
                    let b = to[ty as usize * W + tx as usize];
                    sad += u64::from(a.abs_diff(b));
                }
            }
            if sad < best.0 {
                best = (sad, dx, dy);
            }
        }
    }
    (best.1, best.2)
}

/// Follows the first frame's block at `start` through every frame; returns its total move and
/// the largest step between two consecutive frames there (px, whole pixels).
fn follow(frames: &[Vec<u8>], start: (usize, usize)) -> ((i64, i64), i64) {
    let mut at = (0, 0);
    let mut largest = 0;
    for pair in frames.windows(2) {
        let here = (
            (start.0 as i64 + at.0) as usize,
            (start.1 as i64 + at.1) as usize,
        );
        let (dx, dy) = track(&pair[0], &pair[1], here, (0, 0), 4);
        largest = largest.max(dx.abs().max(dy.abs()));
        at = track(&frames[0], &pair[1], start, at, 3);
    }
    (at, largest)
}

/// The widest streak in columns `xs` over rows `ys`: the longest run of neighbouring columns
/// that are nearly the same column (mean difference under 2 grey levels, where the texture
/// differs by tens). A smear repeats one column of the picture; a stretch only thins the
/// differences.
fn widest_streak(frame: &[u8], ys: std::ops::Range<usize>, xs: std::ops::Range<usize>) -> usize {
    let rows = ys.len() as f64;
    let (mut run, mut widest) = (0, 0);
    for x in xs {
        let diff: f64 = ys
            .clone()
            .map(|y| f64::from(frame[y * W + x + 1].abs_diff(frame[y * W + x])))
            .sum::<f64>()
            / rows;
        if diff < 2.0 {
            run += 1;
            widest = widest.max(run);
        } else {
            run = 0;
        }
    }
    widest
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn depth_moves_near_parts_against_far_ones_without_tearing() {
    let s = setup();
    let floor = s.root.join("floor.png");
    // A floor gradient (far at the top, near at the bottom), at another size than the photo.
    depth_png(&floor, 320, 180, |_, y| (y * 255.0) as u8);
    let step = s.root.join("step.png");
    // A step edge: left half near, right half far.
    depth_png(&step, 640, 360, |x, _| if x < 0.5 { 230 } else { 20 });
    let planes = s.root.join("planes.png");
    // Two planes: a near box low on the left over a far background.
    depth_png(&planes, 1280, 720, |x, y| {
        if (0.15..0.6).contains(&x) && y > 0.55 {
            240
        } else {
            30
        }
    });

    // Orbit over the floor: lower rows (near) travel further than upper rows (far).
    let orbit = frames(
        &render(&s, "orbit-floor", CameraMotion::OrbitLeft, Some(&floor))
            .await
            .expect("orbit"),
    );
    let (far, far_step) = follow(&orbit, (640, 120));
    let (near, near_step) = follow(&orbit, (640, 600));
    let flat = frames(
        &render(&s, "orbit-flat", CameraMotion::OrbitLeft, None)
            .await
            .expect("flat"),
    );
    let (flat_far, _) = follow(&flat, (640, 120));
    let (flat_near, _) = follow(&flat, (640, 600));
    eprintln!("orbit floor: far {far:?} near {near:?}; flat: {flat_far:?} {flat_near:?}");
    assert!(
        (near.0 - far.0) as f64 >= 0.02 * W as f64,
        "near {near:?} far {far:?}"
    );
    assert!(
        (flat_near.0 - flat_far.0).abs() <= 2,
        "a flat orbit moves rows alike"
    );
    assert!(
        far_step <= 2 && near_step <= 2,
        "steps {far_step} {near_step}"
    );

    // Dolly with two planes: the near box grows faster than the far background.
    let dolly = frames(
        &render(&s, "dolly", CameraMotion::PushIn, Some(&planes))
            .await
            .expect("dolly"),
    );
    let (near, near_step) = follow(&dolly, (330, 600));
    let (far, far_step) = follow(&dolly, (330, 150));
    eprintln!("dolly planes: near {near:?} far {far:?}");
    assert!(
        (far.0 - near.0) as f64 >= 0.02 * W as f64,
        "near parts move out faster: near {near:?} far {far:?}"
    );
    assert!(near_step <= 2 && far_step <= 2);
    // The first frame is the photo itself (the canvas of a 1280×720 photo).
    let photo: Vec<u8> = (0..H)
        .flat_map(|y| (0..W).map(move |x| texture(x, y)))
        .collect();
    let diff: f64 = dolly[0]
        .iter()
        .zip(&photo)
        .map(|(&a, &b)| f64::from(a.abs_diff(b)))
        .sum::<f64>()
        / photo.len() as f64;
    assert!(diff < 3.0, "first frame differs from the photo by {diff}");

    // Step edge, orbit: no holes, no smeared streaks at the edge; straight verticals away
    // from it.
    let edge = frames(
        &render(&s, "edge", CameraMotion::OrbitRight, Some(&step))
            .await
            .expect("edge"),
    );
    for (n, f) in edge.iter().enumerate().step_by(10) {
        // A hole would be black (the texture stays above 40): no 3×3 patch under 16.
        let hole = (1..H - 1).any(|y| {
            (1..W - 1).any(|x| (0..3).all(|j| (0..3).all(|i| f[(y + j - 1) * W + x + i - 1] < 16)))
        });
        assert!(!hole, "frame {n}: a hole");
        let streak = widest_streak(f, 300..420, 540..740);
        assert!(
            streak <= 3,
            "frame {n}: a streak {streak} px wide at the depth edge"
        );
        // A dark line in the far region (right of the edge): its x per row fits a straight line.
        let darkest = |y: usize, xs: std::ops::Range<usize>| {
            let row = &f[y * W..(y + 1) * W];
            xs.min_by_key(|&x| row[x]).unwrap_or(0)
        };
        // Lines are 64 px apart in the photo, up to about 75 in a zoomed frame.
        let mid = darkest(360, 980..1080);
        let xs: Vec<(f64, f64)> = (100..620)
            .step_by(4)
            .map(|y| {
                // The line's centre: darkness-weighted over 3 px either side of its darkest.
                let at = darkest(y, mid - 12..mid + 13);
                let (sum, weight) = (at - 3..=at + 3).fold((0.0, 0.0), |(s, w), x| {
                    let dark = f64::from(255 - f[y * W + x]);
                    (s + x as f64 * dark, w + dark)
                });
                (y as f64, sum / weight)
            })
            .collect();
        let n_ = xs.len() as f64;
        let (my, mx) = (
            xs.iter().map(|p| p.0).sum::<f64>() / n_,
            xs.iter().map(|p| p.1).sum::<f64>() / n_,
        );
        let slope = xs.iter().map(|p| (p.0 - my) * (p.1 - mx)).sum::<f64>()
            / xs.iter().map(|p| (p.0 - my).powi(2)).sum::<f64>();
        let worst = xs
            .iter()
            .map(|p| (p.1 - (mx + slope * (p.0 - my))).abs())
            .fold(0.0, f64::max);
        assert!(worst <= 1.5, "frame {n}: a vertical bends by {worst} px");
    }
}

/// A depth map the camera cannot use falls back to the flat camera: the clip completes, is
/// the flat clip frame for frame, and says why (`StoredClip::depth_fallback`, the clip
/// record's note).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_depth_map_falls_back_to_the_flat_camera() {
    let s = setup();
    let colour = s.root.join("colour.png");
    let data: Vec<u8> = (0..64 * 36)
        .flat_map(|i| [(i % 256) as u8, 40, 200])
        .collect();
    photos::write_png(&colour, 64, 36, png::ColorType::Rgb, &data);
    let square = s.root.join("square.png");
    depth_png(&square, 100, 100, |_, y| (y * 255.0) as u8);
    let jpeg = s.root.join("depth.jpg");
    std::fs::write(&jpeg, b"\xff\xd8\xff\xe0 not a png").expect("write");
    let flat = s.root.join("flat.png");
    depth_png(&flat, 320, 180, |_, _| 131);
    let garbled = s.root.join("garbled.png");
    depth_png(&garbled, 320, 180, |x, y| {
        let k = ((x * 320.0) as u64 * 2_654_435_761) ^ ((y * 180.0) as u64 * 40_503);
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
    });
    let inverted = s.root.join("inverted.png");
    depth_png(&inverted, 320, 180, |_, y| ((1.0 - y) * 255.0) as u8);
    let plain = frames(
        &render(&s, "plain", CameraMotion::PushIn, None)
            .await
            .expect("flat clip"),
    );
    for (name, path, says) in [
        ("colour", &colour, "colourised"),
        ("square", &square, "aspect ratio"),
        ("jpeg", &jpeg, "not a PNG"),
        ("flat", &flat, "flat"),
        ("garbled", &garbled, "garbled"),
        ("inverted", &inverted, "inverted"),
    ] {
        let clip = render_stored(&s, name, CameraMotion::PushIn, Some(path))
            .await
            .expect("an unusable map does not fail the clip");
        let why = clip.depth_fallback.clone().unwrap_or_default();
        assert!(why.contains(says), "{name}: {why:?}");
        let drawn = frames(&s.root.join("store").join(&clip.key));
        for (n, (a, b)) in drawn.iter().zip(&plain).enumerate().step_by(37) {
            let diff = a
                .iter()
                .zip(b)
                .map(|(&p, &q)| f64::from(p.abs_diff(q)))
                .sum::<f64>()
                / a.len() as f64;
            assert!(
                diff < 0.5,
                "{name}: frame {n} differs from the flat clip's by {diff}"
            );
        }
    }
}
