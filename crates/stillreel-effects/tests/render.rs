//! Every procedural effect rendered by real ffmpeg on a lavfi test picture, in both
//! orientations, checked with ffprobe: same size, frame count and pixel format as the input.
#![expect(clippy::unwrap_used, reason = "test")]

use std::process::Command;

use stillreel_core::{Engine, Vfx, VfxType};
use stillreel_effects::{EffectContext, Pads, effect_filter};

fn render(vfx: &Vfx, w: u32, h: u32, frames: u32) -> (u32, u32, u32) {
    let ctx = EffectContext::new(w, h, 30, frames, Engine::V25);
    let frag = effect_filter(vfx, &ctx)
        .unwrap()
        .render(&Pads {
            input: "base",
            output: "fx",
            prefix: "",
            extra: &[],
        })
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mp4");
    let graph = format!("[0:v]format=yuv420p[base];{frag}");
    let st = Command::new("ffmpeg")
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-nostdin",
            "-y",
            "-f",
            "lavfi",
            "-i",
        ])
        .arg(format!(
            "testsrc2=s={w}x{h}:r=30:d={}",
            f64::from(frames) / 30.0
        ))
        .args([
            "-filter_complex",
            &graph,
            "-map",
            "[fx]",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "{} failed: {graph}", vfx.kind());
    let probe = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=width,height,nb_read_frames,pix_fmt",
            "-of",
            "csv=p=0",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let s = String::from_utf8(probe.stdout).unwrap();
    let f: Vec<&str> = s.trim().split(',').collect();
    assert_eq!(f[2], "yuv420p");
    (
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[3].parse().unwrap(),
    )
}

fn all() -> Vec<Vfx> {
    let mut v: Vec<Vfx> = VfxType::procedural().filter_map(Vfx::plain).collect();
    v.push(
        serde_json::from_str(
            r#"{"type":"word-drop","config":{"text":"Été: 100%\\'«ok»","color":"silver"}}"#,
        )
        .unwrap(),
    );
    v
}

#[test]
fn every_effect_keeps_size_and_frame_count_in_both_orientations() {
    for vfx in all() {
        for (w, h) in [(320, 180), (180, 320)] {
            assert_eq!(render(&vfx, w, h, 45), (w, h, 45), "{} {w}x{h}", vfx.kind());
        }
    }
}
