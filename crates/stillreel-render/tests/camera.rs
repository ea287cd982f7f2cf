//! The camera's frames drawn in Rust against the previous renderer (ffmpeg's `perspective`
//! with per-frame expressions, kept as `command::reference_clip_graph`): the same frames
//! before encoding, compared pixel by pixel on the bundled samples (PSNR, every frame).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use stillreel_camera::draw::warp::{Canvas, draw_threads, frame_bytes, write_frames};
use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;
use stillreel_core::{Engine, Orientation, Resolution};
use stillreel_render::ffmpeg::command::{StillInput, canvas_command};
use stillreel_render::ffmpeg::reference::reference_clip_graph;
use stillreel_render::ffmpeg::runner::{Runner, Step};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// The still as the clip step sees it (format and EXIF tag read from the file).
fn still(name: &str) -> StillInput {
    let path = sample(name);
    let bytes = std::fs::read(&path).expect("sample");
    let format = match path.extension().and_then(|e| e.to_str()) {
        Some("png") => MediaFormat::Png,
        Some("webp") => MediaFormat::Webp,
        _ => MediaFormat::Jpeg,
    };
    StillInput {
        path,
        format,
        orientation: ExifOrientation::read(&bytes),
    }
}

/// The clip's canvas, made by the clip step's own ffmpeg command.
fn canvas(plan: &ClipPlan, still: &StillInput, dir: &Path) -> Canvas {
    let runner = Runner::new("ffmpeg", Duration::from_secs(120));
    let file = dir.join("canvas.yuv");
    runner
        .run(
            Step::Clip(0),
            &canvas_command(
                plan,
                still,
                stillreel_render::ffmpeg::command::CanvasFraming::Cover { position: 0.5 },
                &file,
            ),
            dir,
            &mut |_| {},
        )
        .expect("canvas");
    Canvas::from_yuv420p(
        plan.width,
        plan.height,
        &std::fs::read(&file).expect("canvas file"),
    )
    .expect("canvas size")
}

/// PSNR (dB) of one frame against another, all three planes.
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    let sse: u64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| u64::from(x.abs_diff(y)).pow(2))
        .sum();
    if sse == 0 {
        return f64::INFINITY;
    }
    let mse = sse as f64 / a.len() as f64;
    10.0 * (255.0f64 * 255.0 / mse).log10()
}

/// Takes our frames as they are written and compares each with the reference's next frame.
///
/// The reference is one frame ahead: `perspective` numbers its input frames from 1 (`in` is
/// 1 on the first frame), so the previous renderer showed the plan's frame `n + 1` as frame
/// `n` and the plan's last frame twice. Our frame 0 (the plan's first) has no counterpart and
/// is skipped; ours `n + 1` is compared with theirs `n`.
struct Compare<R: Read> {
    reference: R,
    ours: Vec<u8>,
    theirs: Vec<u8>,
    size: usize,
    skipped_first: bool,
    psnr: Vec<f64>,
}

impl<R: Read> std::io::Write for Compare<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let take = buf.len().min(self.size - self.ours.len());
        self.ours.extend_from_slice(&buf[..take]);
        if self.ours.len() == self.size {
            if self.skipped_first {
                self.reference.read_exact(&mut self.theirs)?;
                self.psnr.push(psnr(&self.ours, &self.theirs));
            }
            self.skipped_first = true;
            self.ours.clear();
        }
        Ok(take)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Per-frame PSNR of our frames against the reference graph's (streamed from ffmpeg).
fn frame_psnr(plan: &ClipPlan, still: &StillInput, canvas: &Canvas) -> Vec<f64> {
    let graph = reference_clip_graph(plan, still.orientation, None);
    let mut child = Command::new("ffmpeg")
        .args([
            "-nostdin",
            "-v",
            "error",
            "-f",
            still.format.ffmpeg_demuxer(),
            "-noautorotate",
            "-framerate",
            "30",
            "-i",
        ])
        .arg(&still.path)
        .args([
            "-filter_complex",
            &graph,
            "-map",
            "[v]",
            "-frames:v",
            &plan.frames.to_string(),
            "-f",
            "rawvideo",
            "-pix_fmt",
            "yuv420p",
            "-",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("ffmpeg");
    let size = frame_bytes(plan.width, plan.height);
    let mut compare = Compare {
        reference: child.stdout.take().expect("stdout"),
        ours: Vec::with_capacity(size),
        theirs: vec![0; size],
        size,
        skipped_first: false,
        psnr: Vec::new(),
    };
    write_frames(plan, canvas, None, draw_threads(), &mut compare).expect("frames compared");
    // The reference's last frame repeats its last but one (the plan's last frame, twice).
    let last = compare.theirs.clone();
    compare
        .reference
        .read_exact(&mut compare.theirs)
        .expect("last reference frame");
    assert_eq!(last, compare.theirs, "the reference holds its last frame");
    assert!(child.wait().expect("ffmpeg").success());
    assert_eq!(compare.psnr.len(), plan.frames as usize - 1);
    compare.psnr
}

#[test]
fn frames_match_the_previous_renderer_on_the_samples() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Every sample (JPEG, PNG, WebP, portrait, EXIF-rotated) with one motion each, and every
    // motion on one sample; both engines; a portrait and a 1080p frame.
    let cases = [
        (
            "house-colonial.jpg",
            Motion::PushIn,
            Engine::V25,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            "house-colonial.jpg",
            Motion::PushOut,
            Engine::V24,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            "house-colonial.jpg",
            Motion::OrbitLeft,
            Engine::V25,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            "house-colonial.jpg",
            Motion::OrbitRight,
            Engine::V25,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            "house-bungalow.jpg",
            Motion::PushIn,
            Engine::V24,
            Orientation::Landscape,
            Resolution::P1080,
        ),
        (
            "living-room.png",
            Motion::OrbitLeft,
            Engine::V25,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            "house-modern.webp",
            Motion::PushOut,
            Engine::V25,
            Orientation::Portrait,
            Resolution::P720,
        ),
        (
            "house-townhouse-portrait.jpg",
            Motion::OrbitRight,
            Engine::V25,
            Orientation::Portrait,
            Resolution::P720,
        ),
        (
            "house-farm-exif-rotated.jpg",
            Motion::PushIn,
            Engine::V25,
            Orientation::Landscape,
            Resolution::P720,
        ),
    ];
    let mut failures = Vec::new();
    for (name, motion, engine, orientation, resolution) in cases {
        let plan = ClipPlan::new(orientation, resolution, engine, motion);
        let still = still(name);
        let canvas = canvas(&plan, &still, dir.path());
        let psnr = frame_psnr(&plan, &still, &canvas);
        let lowest = psnr.iter().copied().fold(f64::INFINITY, f64::min);
        eprintln!(
            "{name} {motion:?} {engine:?} {orientation} {resolution}: lowest frame PSNR {lowest:.1} dB"
        );
        if lowest < 35.0 {
            failures.push(format!("{name} {motion:?}: {lowest:.1} dB"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
