//! Prints the ffmpeg argument lists the renderer builds, for reading and for running by hand:
//! `cargo run -p stillreel-render --example print_commands -- [push-in|push-out|orbit-left|orbit-right] [v24|v25] [exif]`
#![expect(clippy::print_stdout, reason = "the output is the point")]

use std::path::Path;

use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;
use stillreel_core::{Engine, Orientation, Resolution};
use stillreel_render::ffmpeg::command::{self, Encoding, StillInput};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let motion = match args.first().map(String::as_str) {
        Some("push-out") => Motion::PushOut,
        Some("orbit-left") => Motion::OrbitLeft,
        Some("orbit-right") => Motion::OrbitRight,
        _ => Motion::PushIn,
    };
    let engine = if args.get(1).map(String::as_str) == Some("v24") {
        Engine::V24
    } else {
        Engine::V25
    };
    let orientation = ExifOrientation(args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1));
    let plan = ClipPlan::new(Orientation::Landscape, Resolution::P720, engine, motion);
    let still = StillInput {
        path: "image-000.jpg".into(),
        format: MediaFormat::Jpeg,
        orientation,
    };
    let canvas = command::canvas_command(
        &plan,
        &still,
        command::CanvasFraming::Cover { position: 0.5 },
        Path::new("canvas-000.yuv"),
    );
    println!(
        "# canvas (the still, cover-cropped, one raw frame)\nffmpeg {}",
        quote(&canvas.args)
    );
    let clip = command::clip_command(
        &plan,
        None,
        &Encoding::default(),
        Path::new("render-000.mp4"),
    );
    println!(
        "# clip (the camera's frames, drawn by stillreel_camera::draw::warp, on standard input)\nffmpeg {}",
        quote(&clip.args)
    );
    let reference = stillreel_render::ffmpeg::reference::reference_clip_command(
        &plan,
        &still,
        None,
        &Encoding::default(),
        Path::new("reference-000.mp4"),
    );
    println!(
        "# the previous renderer's clip (perspective), the reference for comparisons\nffmpeg {}",
        quote(&reference.args)
    );
    let stitch = command::stitch_command(
        Path::new("clips.ffconcat"),
        750,
        30,
        None,
        Path::new("video.mp4"),
    );
    println!("# stitch\nffmpeg {}", quote(&stitch.args));
}

fn quote(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:+=".contains(c))
            {
                a.clone()
            } else {
                format!("'{a}'")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
