//! Checking a rendered clip before it is accepted: its video stream's facts (read from the MP4
//! boxes in process, or by ffprobe with packets counted, nothing decoded), and a pure rule
//! comparing them with the clip's plan.
//!
//! Clips rendered on different machines are joined by stream copy, which only works when
//! every clip has the same size, codec, profile, pixel format, rate and time base, and the
//! video is only as long as planned when every clip has exactly its frames. A clip that
//! passes this check is a valid sibling of every other clip that passed it.

pub mod mp4;

use std::path::{Path, PathBuf};

use crate::ffmpeg::runner::{RenderError, Step};
use stillreel_camera::geometry::clip_plan::ClipPlan;

/// What ffprobe says about a clip's video stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipFacts {
    pub frames: u32,
    pub width: u32,
    pub height: u32,
    pub codec: String,
    pub profile: String,
    pub pix_fmt: String,
    pub frame_rate: String,
    pub time_base: String,
    /// Whether the file also has an audio stream (new clips have none).
    pub has_audio: bool,
}

/// The ffprobe that sits beside `ffmpeg` (same folder) when there is one, else `ffprobe` on
/// `PATH` (ffmpeg named bare, or a wrapper script alone in its folder).
pub fn ffprobe_beside(ffmpeg: &Path) -> PathBuf {
    match ffmpeg.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && dir.join("ffprobe").is_file() => {
            dir.join("ffprobe")
        }
        _ => PathBuf::from("ffprobe"),
    }
}

/// ffprobe's arguments for `file`: every stream's facts as JSON, packets counted.
pub fn probe_args(file: &Path) -> Vec<String> {
    [
        "-v",
        "error",
        "-count_packets",
        "-show_entries",
        "stream=codec_type,codec_name,profile,width,height,pix_fmt,r_frame_rate,time_base,nb_read_packets",
        "-of",
        "json",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([crate::ffmpeg::command::local_arg(file)])
    .collect()
}

/// ffprobe's answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("ffprobe output: {0}")]
    NotJson(String),
    #[error("no video stream")]
    NoVideo,
}

/// Why a rendered clip is not a valid sibling of the others.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClipMismatch {
    /// One fact differs from the plan (`what` is e.g. `frames`, `pixel format`).
    #[error("clip {what} is {got}, expected {expected}")]
    Differs {
        what: &'static str,
        got: String,
        expected: String,
    },
    #[error("clip has an audio stream; clips are rendered silent")]
    HasAudio,
}

/// Reads ffprobe's JSON answer.
pub fn parse_probe(json: &[u8]) -> Result<ClipFacts, ProbeError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| ProbeError::NotJson(e.to_string()))?;
    let streams = value["streams"].as_array().cloned().unwrap_or_default();
    let video = streams
        .iter()
        .find(|s| s["codec_type"] == "video")
        .ok_or(ProbeError::NoVideo)?;
    let text = |key: &str| video[key].as_str().unwrap_or_default().to_owned();
    let number = |key: &str| {
        video[key]
            .as_u64()
            .or_else(|| video[key].as_str().and_then(|s| s.parse().ok()))
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0)
    };
    Ok(ClipFacts {
        frames: number("nb_read_packets"),
        width: number("width"),
        height: number("height"),
        codec: text("codec_name"),
        profile: text("profile"),
        pix_fmt: text("pix_fmt"),
        frame_rate: text("r_frame_rate"),
        time_base: text("time_base"),
        has_audio: streams.iter().any(|s| s["codec_type"] == "audio"),
    })
}

/// The rule: a clip is accepted only with exactly its planned frames, its plan's size, and
/// the encoding every clip shares (H.264 High, yuv420p, the plan's rate, the 1/15360 time
/// base of `-video_track_timescale`), and no audio of its own. `Err` names the first mismatch.
pub fn check_clip(facts: &ClipFacts, plan: &ClipPlan) -> Result<(), ClipMismatch> {
    let rate = format!("{}/1", plan.fps);
    let expected: [(&str, String, String); 8] = [
        ("frames", plan.frames.to_string(), facts.frames.to_string()),
        ("width", plan.width.to_string(), facts.width.to_string()),
        ("height", plan.height.to_string(), facts.height.to_string()),
        ("codec", "h264".to_owned(), facts.codec.clone()),
        ("profile", "High".to_owned(), facts.profile.clone()),
        ("pixel format", "yuv420p".to_owned(), facts.pix_fmt.clone()),
        ("frame rate", rate, facts.frame_rate.clone()),
        ("time base", "1/15360".to_owned(), facts.time_base.clone()),
    ];
    for (what, expected, got) in expected {
        if expected != got {
            return Err(ClipMismatch::Differs {
                what,
                got,
                expected,
            });
        }
    }
    if facts.has_audio {
        return Err(ClipMismatch::HasAudio);
    }
    Ok(())
}

/// Reads `file`'s facts and checks them against `plan` (blocking): from its MP4 boxes
/// ([`mp4`]), or from ffprobe when the file is laid out otherwise.
pub fn probe_and_check(
    ffprobe: &Path,
    file: &Path,
    plan: &ClipPlan,
    step: Step,
) -> Result<ClipFacts, RenderError> {
    let facts = read_facts(ffprobe, file, step)?;
    check_clip(&facts, plan).map_err(|e| RenderError::Rejected {
        step,
        message: e.to_string(),
    })?;
    Ok(facts)
}

/// `file`'s facts (blocking): from its MP4 boxes ([`mp4`]) in process, or, when the file is
/// laid out otherwise (or is no MP4 at all), from ffprobe, whose failure is the error.
pub fn read_facts(ffprobe: &Path, file: &Path, step: Step) -> Result<ClipFacts, RenderError> {
    match std::fs::read(file)
        .ok()
        .and_then(|data| mp4::clip_facts(&data))
    {
        Some(facts) => Ok(facts),
        None => run_ffprobe(ffprobe, file, step),
    }
}

/// Fails unless the finished video `file` reads as one (its MP4 boxes, or ffprobe:
/// [`read_facts`]) with frames of a size, so a file cut short (a full disk, a killed run) is
/// never stored for a record to call complete. On a blocking thread.
pub(crate) async fn check_finished(
    ffmpeg: &Path,
    file: PathBuf,
    step: Step,
) -> Result<(), RenderError> {
    let ffprobe = ffprobe_beside(ffmpeg);
    let facts = tokio::task::spawn_blocking(move || read_facts(&ffprobe, &file, step))
        .await
        .map_err(|e| crate::ffmpeg::runner::io_error(step, e))?;
    let unreadable = |why: String| RenderError::Rejected {
        step,
        message: format!("the finished video does not read: {why}"),
    };
    match facts {
        Ok(f) if f.frames > 0 && f.width > 0 && f.height > 0 => Ok(()),
        Ok(f) => Err(unreadable(format!(
            "{} frames of {}x{}",
            f.frames, f.width, f.height
        ))),
        // The disk filling up is said as such; anything else is a broken file.
        Err(e) if e.is_out_of_space() => Err(e),
        Err(e) => Err(unreadable(e.to_string())),
    }
}

/// ffprobe's facts of `file` (blocking).
pub fn run_ffprobe(ffprobe: &Path, file: &Path, step: Step) -> Result<ClipFacts, RenderError> {
    let out = ffprobe_output(ffprobe, &probe_args(file), None, step)?;
    parse_probe(&out).map_err(|e| RenderError::Io {
        step,
        message: e.to_string(),
    })
}

/// Runs ffprobe with `args` (in `dir`, when given) and answers its standard output; a failed
/// run is [`RenderError::Failed`] with its stderr (blocking).
pub(crate) fn ffprobe_output(
    ffprobe: &Path,
    args: &[String],
    dir: Option<&Path>,
    step: Step,
) -> Result<Vec<u8>, RenderError> {
    let mut command = std::process::Command::new(ffprobe);
    command.args(args).stdin(std::process::Stdio::null());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command
        .output()
        .map_err(|source| RenderError::Spawn { step, source })?;
    if !out.status.success() {
        return Err(RenderError::Failed {
            step,
            status: out.status,
            stderr_tail: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use stillreel_core::{Engine, Orientation, Resolution};

    use super::*;
    use stillreel_camera::geometry::clip_plan::Motion;

    fn plan() -> ClipPlan {
        ClipPlan::new(
            Orientation::Landscape,
            Resolution::P720,
            Engine::V25,
            Motion::PushIn,
        )
    }

    fn facts() -> ClipFacts {
        ClipFacts {
            frames: 150,
            width: 1280,
            height: 720,
            codec: "h264".into(),
            profile: "High".into(),
            pix_fmt: "yuv420p".into(),
            frame_rate: "30/1".into(),
            time_base: "1/15360".into(),
            has_audio: false,
        }
    }

    #[test]
    fn a_standard_clip_passes_and_each_mismatch_fails() {
        assert_eq!(check_clip(&facts(), &plan()), Ok(()));
        type Break = fn(&mut ClipFacts);
        let broken: [(Break, &str); 6] = [
            (|f| f.frames = 149, "frames is 149"),
            (|f| f.width = 1920, "width is 1920"),
            (|f| f.profile = "Main".into(), "profile is Main"),
            (|f| f.frame_rate = "25/1".into(), "frame rate is 25/1"),
            (|f| f.time_base = "1/30".into(), "time base"),
            (|f| f.has_audio = true, "audio"),
        ];
        for (breaks, says) in broken {
            let mut f = facts();
            breaks(&mut f);
            let err = check_clip(&f, &plan()).expect_err(says).to_string();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn parses_ffprobe_json() {
        let json = br#"{"streams":[{"codec_name":"h264","profile":"High","codec_type":"video",
            "width":1280,"height":720,"pix_fmt":"yuv420p","r_frame_rate":"30/1",
            "time_base":"1/15360","nb_read_packets":"150"}]}"#;
        assert_eq!(parse_probe(json), Ok(facts()));
        assert_eq!(parse_probe(br#"{"streams":[]}"#), Err(ProbeError::NoVideo));
        assert!(matches!(parse_probe(b"no"), Err(ProbeError::NotJson(_))));
    }

    #[test]
    fn ffprobe_is_found_beside_ffmpeg() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ffmpeg = dir.path().join("ffmpeg");
        assert_eq!(ffprobe_beside(&ffmpeg), Path::new("ffprobe"), "none there");
        std::fs::write(dir.path().join("ffprobe"), b"").expect("write");
        assert_eq!(ffprobe_beside(&ffmpeg), dir.path().join("ffprobe"));
        assert_eq!(ffprobe_beside(Path::new("ffmpeg")), Path::new("ffprobe"));
    }
}
