//! The camera's drawing alone, without the encoder: draws a clip's 150 frames of a photo
//! flat and over a depth map, into nothing, and prints milliseconds per frame for each
//! (`PARTS=draw bench/render.sh`), and the map's preparation with and without the smoothing
//! under the photo's edges. Interleaved, median of ROUNDS.
//!
//!   cargo run --release -p stillreel-render --example draw_frames -- \
//!     PHOTO DEPTH.png [WxH] [motion] [ROUNDS]

#![expect(clippy::print_stdout, reason = "the figures are the output")]

use std::process::Command;
use std::time::Instant;

use stillreel_camera::depth::{DepthField, DepthMap};
use stillreel_camera::draw::warp::{Canvas, draw_threads, write_frames};
use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion, Pace};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::Engine;
use stillreel_core::media::sniff;
use stillreel_render::ffmpeg::command::{StillInput, canvas_command};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let photo = args.first().expect("PHOTO");
    let depth = std::fs::read(args.get(1).expect("DEPTH.png")).expect("read the depth map");
    let size = args.get(2).map_or("1280x720", String::as_str);
    let motion = match args.get(3).map_or("push-in", String::as_str) {
        "push-out" => Motion::PushOut,
        "orbit-left" => Motion::OrbitLeft,
        "orbit-right" => Motion::OrbitRight,
        _ => Motion::PushIn,
    };
    let rounds: usize = args.get(4).map_or(5, |r| r.parse().expect("ROUNDS"));
    let (w, h) = size.split_once('x').expect("WxH");
    let (w, h): (u32, u32) = (w.parse().expect("W"), h.parse().expect("H"));
    let plan = ClipPlan {
        width: w,
        height: h,
        fps: 30,
        frames: 150,
        engine: Engine::V25,
        motion,
        pace: Pace::Engine,
    };
    // The canvas exactly as the clip step makes it: its own ffmpeg command, into a temp file.
    let bytes = std::fs::read(photo).expect("read the photo");
    let still = StillInput {
        path: photo.into(),
        format: sniff(&bytes).expect("a picture"),
        orientation: ExifOrientation::read(&bytes),
    };
    let raw_path = std::env::temp_dir().join(format!("draw-frames-{}.yuv", std::process::id()));
    let run = Command::new("ffmpeg")
        .args(
            &canvas_command(
                &plan,
                &still,
                stillreel_render::ffmpeg::command::CanvasFraming::Cover { position: 0.5 },
                &raw_path,
            )
            .args,
        )
        .output()
        .expect("ffmpeg");
    assert!(
        run.status.success(),
        "the canvas run failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let raw = std::fs::read(&raw_path).expect("canvas bytes");
    std::fs::remove_file(&raw_path).ok();
    let canvas = Canvas::from_yuv420p(w, h, &raw).expect("canvas");
    let map = DepthMap::from_png(&depth).expect("depth map");
    // The map's preparation, once per clip: without and with the smoothing under the photo's
    // edges (the guide made from the canvas included), median of ROUNDS.
    let (mut plain_ms, mut edges_ms) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        std::hint::black_box(DepthField::prepare(&map, (w, h), None));
        plain_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        std::hint::black_box(DepthField::prepare(&map, (w, h), Some(&canvas.guide())));
        edges_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "prepare {size} plain_ms={:.1} under_edges_ms={:.1}",
        median(plain_ms),
        median(edges_ms)
    );
    let field = DepthField::prepare(&map, (w, h), Some(&canvas.guide()));
    let threads = draw_threads();
    let (mut flat, mut bent) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for (with_depth, out) in [(false, &mut flat), (true, &mut bent)] {
            let t = Instant::now();
            write_frames(
                &plan,
                &canvas,
                with_depth.then_some(&field),
                threads,
                &mut std::io::sink(),
            )
            .expect("draw");
            out.push(t.elapsed().as_secs_f64() * 1000.0 / f64::from(plan.frames));
        }
    }
    let (f, b) = (median(flat), median(bent));
    println!(
        "draw {size} {motion:?} threads={threads} flat_ms_per_frame={f:.3} depth_ms_per_frame={b:.3} depth/flat={:.2}",
        b / f
    );
}
