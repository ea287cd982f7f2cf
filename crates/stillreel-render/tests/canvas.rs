//! The canvas made in process (`still_canvas`) against the ffmpeg canvas run it replaces
//! (`command::canvas_command`, run by real ffmpeg): the same part of the photo, turned the
//! same way, in the same colours, on the bundled samples and on generated stills of the kinds
//! a listing photo comes as (grey, 16-bit, with alpha, every EXIF turn, portrait frames).

mod common;

use std::path::{Path, PathBuf};

use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion};
use stillreel_camera::input::ExifOrientation;
use stillreel_camera::input::canvas::canvas_yuv420p;
use stillreel_core::media::MediaFormat;
use stillreel_core::{Engine, Orientation, Resolution};
use stillreel_render::ffmpeg::command::{StillInput, canvas_command};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// ffmpeg's canvas of `path` for `plan`, as the clip step made it before.
fn ffmpeg_canvas(plan: &ClipPlan, path: &Path, format: MediaFormat, turn: u8) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let still = StillInput {
        path: path.to_path_buf(),
        format,
        orientation: ExifOrientation(turn),
    };
    let cmd = canvas_command(
        plan,
        &still,
        stillreel_render::ffmpeg::command::CanvasFraming::Cover { position: 0.5 },
        Path::new("canvas.yuv"),
    );
    let out = std::process::Command::new("ffmpeg")
        .args(&cmd.args)
        .current_dir(dir.path())
        .output()
        .expect("run ffmpeg");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(dir.path().join("canvas.yuv")).expect("canvas")
}

/// PSNR over every byte of two yuv420p frames (ffmpeg's `psnr` average weighs planes by size
/// the same way).
fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let mse = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.len() as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-10)).log10()
}

/// Both canvases of each case; the cases under 45 dB (the samples measure 46.8 to 58 dB: the
/// chroma is averaged rather than resampled, and the two Lanczos kernels round differently).
fn compare(cases: &[(PathBuf, MediaFormat, u8, Orientation, Resolution)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (path, format, turn, orientation, resolution) in cases {
        let plan = ClipPlan::new(*orientation, *resolution, Engine::V25, Motion::PushIn);
        let bytes = std::fs::read(path).expect("still");
        let ours = canvas_yuv420p(
            &bytes,
            *format,
            ExifOrientation(*turn),
            plan.width,
            plan.height,
            stillreel_core::Fit::Cover,
        )
        .unwrap_or_else(|| panic!("{} is made in process", path.display()))
        .frame;
        let theirs = ffmpeg_canvas(&plan, path, *format, *turn);
        let db = psnr(&ours, &theirs);
        let name = path.file_name().expect("a file").to_string_lossy();
        eprintln!("{name} turn {turn} {orientation:?} {resolution:?}: {db:.1} dB");
        if db < 45.0 {
            failures.push(format!(
                "{name} turn {turn} {orientation:?} {resolution:?}: {db:.1} dB"
            ));
        }
    }
    failures
}

#[test]
fn the_samples_canvas_is_ffmpegs() {
    use MediaFormat::{Jpeg, Png};
    use Orientation::{Landscape, Portrait};
    let cases = [
        (
            sample("house-colonial.jpg"),
            Jpeg,
            1,
            Landscape,
            Resolution::P720,
        ),
        (
            sample("house-colonial.jpg"),
            Jpeg,
            1,
            Landscape,
            Resolution::P1080,
        ),
        (
            sample("house-colonial.jpg"),
            Jpeg,
            1,
            Portrait,
            Resolution::P720,
        ),
        (
            sample("house-bungalow.jpg"),
            Jpeg,
            1,
            Landscape,
            Resolution::P720,
        ),
        (
            sample("house-townhouse-portrait.jpg"),
            Jpeg,
            1,
            Landscape,
            Resolution::P720,
        ),
        (
            sample("house-farm-exif-rotated.jpg"),
            Jpeg,
            6,
            Landscape,
            Resolution::P720,
        ),
        (
            sample("living-room.png"),
            Png,
            1,
            Landscape,
            Resolution::P720,
        ),
        (
            sample("living-room.png"),
            Png,
            1,
            Portrait,
            Resolution::P1080,
        ),
        (sample("headshot.jpg"), Jpeg, 1, Landscape, Resolution::P720),
    ];
    let failures = compare(&cases);
    assert!(failures.is_empty(), "below 45 dB: {failures:?}");
}

#[test]
fn every_exif_turn_is_ffmpegs() {
    // Orientation only changes which way the picture is read; one photo under every tag.
    let cases: Vec<_> = (1..=8)
        .map(|turn| {
            (
                sample("house-colonial.jpg"),
                MediaFormat::Jpeg,
                turn,
                Orientation::Landscape,
                Resolution::P720,
            )
        })
        .collect();
    let failures = compare(&cases);
    assert!(failures.is_empty(), "below 45 dB: {failures:?}");
}

#[test]
fn grey_sixteen_bit_and_transparent_stills_are_ffmpegs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let made = |name: &str, pix_fmt: &str| {
        let path = dir.path().join(name);
        common::ffmpeg(&[
            "-i",
            sample("house-bungalow.jpg").to_str().expect("utf-8 path"),
            "-pix_fmt",
            pix_fmt,
            "-frames:v",
            "1",
            path.to_str().expect("utf-8 path"),
        ]);
        path
    };
    let cases = [
        (
            made("grey.jpg", "gray"),
            MediaFormat::Jpeg,
            1,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            made("deep.png", "rgb48be"),
            MediaFormat::Png,
            1,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            made("grey.png", "gray"),
            MediaFormat::Png,
            1,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            made("alpha.png", "rgba"),
            MediaFormat::Png,
            8,
            Orientation::Landscape,
            Resolution::P720,
        ),
        (
            made("full.jpg", "yuvj444p"),
            MediaFormat::Jpeg,
            3,
            Orientation::Portrait,
            Resolution::P720,
        ),
    ];
    let failures = compare(&cases);
    assert!(failures.is_empty(), "below 45 dB: {failures:?}");
}
