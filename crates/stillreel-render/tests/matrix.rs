//! Every procedural effect and every camera motion renders through the real clip command at
//! 720p and 1080p in both orientations (ffprobe: size, pixel format, frame count).
//!
//! To keep the CPU bounded each run is cut to its first 15 frames (`-frames:v`) and encoded
//! `ultrafast`: the whole graph (stills computed once, masks) and the camera's frames are
//! still built and run at full size. Full-length frame counts are checked by `stillreel-effects`' tests and the
//! pipeline tests.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use stillreel_camera::draw::warp::{Canvas, write_frames};
use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;
use stillreel_core::{Engine, Orientation, Resolution, Vfx, VfxType};
use stillreel_render::ffmpeg::command::{
    Encoding, StillInput, canvas_command, clip_command, clip_context,
};
use stillreel_render::ffmpeg::runner::{Runner, Step};
use stillreel_render::steps::masks::{Follow, add_mask_input};
use stillreel_render::vfx_stage;

const FRAMES: &str = "15";

fn effects() -> Vec<Vfx> {
    let mut v: Vec<Vfx> = VfxType::procedural().filter_map(Vfx::plain).collect();
    v.push(
        serde_json::from_str(
            r#"{"type":"word-drop","config":{"text":"Château Ørsted","color":"gold"}}"#,
        )
        .expect("vfx"),
    );
    v
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/house-colonial.jpg")
}

/// Renders one truncated clip; returns (width, height, frames, pix_fmt).
fn render(dir: &Path, name: &str, plan: &ClipPlan, vfx: Option<&Vfx>) -> (u64, u64, u64, String) {
    let mut effect = vfx.map(|v| {
        vfx_stage(v)
            .filter(&clip_context(plan, 0))
            .expect("effect builds")
    });
    let still = StillInput {
        path: sample(),
        format: MediaFormat::Jpeg,
        orientation: ExifOrientation(1),
    };
    let encoding = Encoding {
        preset: "ultrafast".into(),
        crf: 28,
    };
    let out = dir.join(name);
    // The clip as the clip step makes it: the canvas by ffmpeg, the camera's frames drawn in
    // Rust and piped to the encoder (which stops after FRAMES; the rest of the pipe is refused).
    let runner = Runner::new("ffmpeg", Duration::from_secs(300));
    let canvas_file = dir.join(format!("{name}.yuv"));
    runner
        .run(
            Step::Clip(0),
            &canvas_command(
                plan,
                &still,
                stillreel_render::ffmpeg::command::CanvasFraming::Cover { position: 0.5 },
                &canvas_file,
            ),
            dir,
            &mut |_| {},
        )
        .expect("canvas");
    let bytes = std::fs::read(&canvas_file).expect("canvas file");
    let _ = std::fs::remove_file(&canvas_file);
    let canvas = Canvas::from_yuv420p(plan.width, plan.height, &bytes).expect("canvas size");
    if let Some(fx) = effect.as_mut() {
        add_mask_input(fx, &canvas, plan, Follow::Camera, 0, dir).expect("masks");
    }
    let mut cmd = clip_command(plan, effect.as_ref(), &encoding, &out);
    let at = cmd
        .args
        .iter()
        .position(|a| a == "-frames:v")
        .expect("frames arg");
    cmd.args[at + 1] = FRAMES.to_owned();
    if let Err(e) = runner.run_fed(Step::Clip(0), &cmd, dir, &mut |_| {}, &mut |stdin| {
        write_frames(plan, &canvas, None, 1, stdin)
    }) {
        panic!("{name}: {e}");
    }
    let p = common::probe(&out);
    let v = common::stream(&p, "video");
    let facts = (
        v["width"].as_u64().expect("w"),
        v["height"].as_u64().expect("h"),
        common::num(&v["nb_read_frames"]) as u64,
        v["pix_fmt"].as_str().unwrap_or_default().to_owned(),
    );
    let _ = std::fs::remove_file(&out);
    facts
}

#[test]
fn every_effect_and_motion_at_every_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut jobs: Vec<(String, ClipPlan, Option<Vfx>)> = Vec::new();
    let motions = [
        Motion::PushIn,
        Motion::PushOut,
        Motion::OrbitLeft,
        Motion::OrbitRight,
    ];
    for resolution in [Resolution::P720, Resolution::P1080] {
        for orientation in [Orientation::Landscape, Orientation::Portrait] {
            let tag = format!("{resolution}-{orientation}");
            // Every motion without an effect, then every effect on a motion taken in turn.
            for m in motions {
                let plan = ClipPlan::new(orientation, resolution, Engine::V25, m);
                jobs.push((format!("{tag}-{m:?}.mp4"), plan, None));
            }
            for (i, vfx) in effects().into_iter().enumerate() {
                let plan = ClipPlan::new(orientation, resolution, Engine::V25, motions[i % 4]);
                jobs.push((format!("{tag}-{}.mp4", vfx.kind()), plan, Some(vfx)));
            }
        }
    }
    let queue = Mutex::new(jobs.into_iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let next = queue.lock().expect("queue").next();
                    let Some((name, plan, vfx)) = next else { break };
                    let got = render(dir.path(), &name, &plan, vfx.as_ref());
                    let want = (
                        u64::from(plan.width),
                        u64::from(plan.height),
                        15,
                        "yuv420p".to_owned(),
                    );
                    if got != want {
                        failures
                            .lock()
                            .expect("failures")
                            .push(format!("{name}: {got:?} != {want:?}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("failures");
    assert!(failures.is_empty(), "{failures:#?}");
}
