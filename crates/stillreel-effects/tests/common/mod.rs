//! What the render crate does for an effect that reads scene masks, done here for ffmpeg runs
//! over a still that does not move: the masks computed from the picture the clip shows, repeated
//! for every frame of the mask stream, as one more raw input.
#![expect(clippy::unwrap_used, reason = "test")]

use std::path::Path;
use std::process::Command;

use stillreel_effects::{EffectGraph, scene};

/// The ffmpeg input arguments of `graph`'s mask stream (none if it reads no masks), computed
/// from `picture` cover-cropped to `w`×`h` (an all-dark mask without a picture), written into
/// `dir`.
pub fn mask_input(
    graph: &EffectGraph,
    picture: Option<&Path>,
    (w, h): (u32, u32),
    fps: u32,
    frames: u32,
    dir: &Path,
) -> Vec<String> {
    let Some(stream) = &graph.masks else {
        return Vec::new();
    };
    let (qw, qh) = (stream.width as usize, stream.height as usize);
    let frame = match picture {
        Some(p) => scene::masks(
            &stream.kinds,
            &picture_rgb(p, (w, h), (qw, qh), "area"),
            qw,
            qh,
        ),
        None => vec![0; qw * qh * stream.kinds.len()],
    };
    let path = dir.join("masks.gray");
    std::fs::write(&path, frame.repeat(stream.frames(frames) as usize)).unwrap();
    vec![
        "-f".into(),
        "rawvideo".into(),
        "-pix_fmt".into(),
        "gray".into(),
        "-video_size".into(),
        format!("{qw}x{}", qh * stream.kinds.len()),
        "-framerate".into(),
        format!("{fps}/{}", stream.step),
        "-i".into(),
        path.to_string_lossy().into_owned(),
    ]
}

/// `picture` cover-cropped to `w`×`h`, then scaled to `qw`×`qh` with the scaler `flags`, as RGB.
pub fn picture_rgb(
    picture: &Path,
    (w, h): (u32, u32),
    (qw, qh): (usize, usize),
    flags: &str,
) -> Vec<u8> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-nostdin", "-i"])
        .arg(picture)
        .args([
            "-vf",
            &format!(
                "scale={w}:{h}:force_original_aspect_ratio=increase,crop={w}:{h},\
                 scale={qw}:{qh}:flags={flags}"
            ),
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), qw * qh * 3, "one RGB frame");
    out.stdout
}
