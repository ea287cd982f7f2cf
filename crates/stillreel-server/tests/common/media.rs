//! What a test reads of the media a server made: the stored file behind a URL, the stored
//! model answers of a role, ffprobe's facts of a file and the mean colour of a decoded frame.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::TestApp;

/// The stored file behind one of the server's file URLs.
pub fn stored(app: &TestApp, url: &str) -> PathBuf {
    let key = url
        .strip_prefix(&format!("{}/files/", app.base))
        .unwrap_or_else(|| panic!("{url} is not a stored file"));
    app.state.storage.local_path(key).expect("local storage")
}

/// The stored model answers of `role` (`private/generated/<role>/` in the data directory).
pub fn stored_answers(app: &TestApp, role: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    walk(app.db_guard.dir.path(), &mut all);
    let marker = format!("generated/{role}/");
    all.retain(|p| p.to_string_lossy().contains(&marker));
    all
}

/// ffprobe's first video stream of a file, with its frames counted.
pub fn probe(path: &Path) -> Value {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-of",
            "json",
        ])
        .arg(path)
        .output()
        .expect("ffprobe");
    assert!(out.status.success(), "ffprobe {}", path.display());
    let all: Value = serde_json::from_slice(&out.stdout).expect("json");
    let streams = all["streams"].as_array().expect("streams").clone();
    let mut video = streams
        .iter()
        .find(|s| s["codec_type"] == "video")
        .expect("a video stream")
        .clone();
    video["has_audio"] = Value::Bool(streams.iter().any(|s| s["codec_type"] == "audio"));
    video
}

/// The mean RGB of frame 75 of a stored clip, decoded by ffmpeg.
pub fn middle_rgb(path: &Path) -> [f64; 3] {
    frame_rgb(path, "scale=64:36")
}

/// The mean RGB of frame 75 of a stored clip after the filter `region` (a crop, a scale).
pub fn frame_rgb(path: &Path, region: &str) -> [f64; 3] {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args([
            "-vf",
            &format!("select=eq(n\\,75),{region}"),
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-",
        ])
        .output()
        .expect("ffmpeg");
    assert!(out.status.success() && !out.stdout.is_empty(), "decoded");
    let mut sum = [0.0; 3];
    for px in out.stdout.chunks(3) {
        for c in 0..3 {
            sum[c] += f64::from(px[c]);
        }
    }
    sum.map(|s| s / (out.stdout.len() / 3) as f64)
}
