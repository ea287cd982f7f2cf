//! Which input made a failed ffmpeg run fail. A run that reads the user's files (a picture, the
//! music, a template's logo, a model's answer, the clips of a combine) can fail because one of
//! them cannot be read, or because of us. Once it has failed, each [`Suspect`] is decoded on
//! its own ([`decode_args`]); the first that does not decode is named on the record with a
//! message that says what to do ([`fault_message`]). A run that succeeds pays nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::failure::{InputFault, JobFailure};
use crate::ffmpeg::runner::{RenderError, Step};
use stillreel_core::media::{MediaClass, MediaFormat};

/// An input of a failed run that may be the cause.
#[derive(Debug, Clone)]
pub(crate) struct Suspect {
    /// The request field it came from (`audio_url`, `video_clip_uuids[1]`, ...).
    pub field: String,
    pub fault: InputFault,
    /// The local file (absolute, or relative to the run's work dir).
    pub path: PathBuf,
    /// The demuxer to force (`None`: an MP4 of ours or a model's, read as `mov`).
    pub format: Option<MediaFormat>,
}

impl Suspect {
    pub fn picture(
        field: impl Into<String>,
        path: impl Into<PathBuf>,
        format: MediaFormat,
    ) -> Self {
        Suspect {
            field: field.into(),
            fault: InputFault::Picture,
            path: path.into(),
            format: Some(format),
        }
    }

    pub fn music(field: impl Into<String>, path: impl Into<PathBuf>, format: MediaFormat) -> Self {
        Suspect {
            field: field.into(),
            fault: InputFault::Music,
            path: path.into(),
            format: Some(format),
        }
    }

    pub fn video(field: impl Into<String>, fault: InputFault, path: impl Into<PathBuf>) -> Self {
        Suspect {
            field: field.into(),
            fault,
            path: path.into(),
            format: None,
        }
    }
}

/// What the user is told for an input of `fault` at `field` that failed with `reason`.
pub fn fault_message(fault: InputFault, field: &str, reason: &str) -> String {
    match fault {
        InputFault::Picture => format!(
            "the picture at {field} could not be decoded ({reason}); upload a complete JPEG, PNG or WebP file"
        ),
        InputFault::Music => format!(
            "the music at {field} could not be decoded as audio ({reason}); upload an MP3, M4A or OGG file"
        ),
        InputFault::Clip => format!(
            "the clip at {field} could not be read ({reason}); render its picture again with create_video and combine the new clip's uuid"
        ),
        InputFault::ModelOutput => format!(
            "the model's answer for {field} could not be decoded ({reason}); try again, or ask the operator to check the model"
        ),
    }
}

/// ffmpeg's arguments that decode `file` alone (forced to `format`'s demuxer, or `mov`) and
/// throw the result away: a picture's one frame, at most 10 s of a sound or a clip.
pub fn decode_args(file: &Path, format: Option<MediaFormat>) -> Vec<String> {
    let (demuxer, class) = match format {
        Some(f) => (f.ffmpeg_demuxer(), Some(f.class())),
        None => ("mov", None),
    };
    let mut args: Vec<String> = [
        "-v",
        "error",
        "-nostdin",
        "-timelimit",
        "30",
        "-protocol_whitelist",
        "file",
        "-f",
        demuxer,
        "-i",
    ]
    .map(str::to_owned)
    .into();
    args.push(file.to_string_lossy().into_owned());
    let tail: &[&str] = match class {
        Some(MediaClass::Image) => &["-map", "0:v:0", "-frames:v", "1"],
        Some(MediaClass::Audio) => &["-map", "0:a:0", "-t", "10"],
        None => &["-map", "0:v:0", "-t", "10"],
    };
    args.extend(tail.iter().map(|s| (*s).to_owned()));
    args.extend(["-f", "null", "-"].map(str::to_owned));
    args
}

/// The reason ffmpeg gave, for a person: the first line a demuxer or decoder wrote
/// (`[mp3 @ 0x...] ...`, without that prefix), else the last line, without the local path.
pub fn reason_from(stderr: &str, file: &Path) -> String {
    let path = file.to_string_lossy();
    let lines = || stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    let from_decoder = lines()
        .find_map(|l| l.strip_prefix('[').and_then(|l| l.split_once("] ")))
        .map(|(_, rest)| rest);
    let line = from_decoder.or_else(|| lines().next_back()).unwrap_or("");
    let line = line.replace(path.as_ref(), "the file");
    let line = line.trim_start_matches("the file: ").trim();
    match line {
        "" => "ffmpeg cannot read it".to_owned(),
        l if l.chars().count() > 160 => l.chars().take(160).collect::<String>() + "...",
        l => l.to_owned(),
    }
}

/// Characters of the check's stderr kept for the log.
const TAIL_CHARS: usize = 2000;

/// Decodes `suspect` alone (blocking): the failed run when it does not decode. A check that
/// cannot start is no verdict on the input, so it passes.
fn decode_alone(
    ffmpeg: &Path,
    dir: &Path,
    suspect: &Suspect,
    step: Step,
) -> Result<(), RenderError> {
    let Ok(out) = Command::new(ffmpeg)
        .args(decode_args(&suspect.path, suspect.format))
        .stdin(std::process::Stdio::null())
        .current_dir(dir)
        .output()
    else {
        return Ok(());
    };
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let skip = stderr.chars().count().saturating_sub(TAIL_CHARS);
    Err(RenderError::Failed {
        step,
        status: out.status,
        stderr_tail: stderr.chars().skip(skip).collect(),
    })
}

/// The reason `error` gives about the file at `path`, for a person.
pub(crate) fn reason_of(error: &RenderError, path: &Path) -> String {
    match error {
        RenderError::Failed { stderr_tail, .. } | RenderError::TimedOut { stderr_tail, .. } => {
            reason_from(stderr_tail, path)
        }
        RenderError::Io { message, .. } | RenderError::Rejected { message, .. } => {
            message.replace(path.to_string_lossy().as_ref(), "the file")
        }
        other => other.to_string(),
    }
}

/// `failure` with its cause named: when it is a failed ffmpeg run, the first of `suspects`
/// that does not decode alone becomes a [`JobFailure::Input`] (the failed run stays its
/// cause, for the log); otherwise `failure` as it is, our own fault (blocking).
pub(crate) fn blame(
    ffmpeg: &Path,
    dir: &Path,
    suspects: &[Suspect],
    failure: JobFailure,
) -> JobFailure {
    let JobFailure::Render(cause @ RenderError::Failed { .. }) = failure else {
        return failure;
    };
    if cause.is_out_of_space() {
        // The disk, not an input: no decode to run.
        return JobFailure::Render(cause);
    }
    for suspect in suspects {
        if let Err(check) = decode_alone(ffmpeg, dir, suspect, cause.step()) {
            return input_failure(suspect, &reason_of(&check, &suspect.path), cause);
        }
    }
    JobFailure::Render(cause)
}

/// [`blame`] on a blocking thread.
pub(crate) async fn blame_async(
    ffmpeg: &Path,
    dir: &Path,
    suspects: Vec<Suspect>,
    failure: JobFailure,
) -> JobFailure {
    if suspects.is_empty()
        || !matches!(failure, JobFailure::Render(ref e @ RenderError::Failed { .. }) if !e.is_out_of_space())
    {
        return failure;
    }
    let (ffmpeg, dir) = (ffmpeg.to_path_buf(), dir.to_path_buf());
    let step = failure.step().unwrap_or(Step::Store);
    match tokio::task::spawn_blocking(move || blame(&ffmpeg, &dir, &suspects, failure)).await {
        Ok(named) => named,
        Err(e) => JobFailure::Render(RenderError::Io {
            step,
            message: format!("the failure's cause could not be looked for: {e}"),
        }),
    }
}

/// Fails unless `suspect` decodes alone: for inputs whose fault a run would not show (ffmpeg
/// draws a template without the logo it cannot decode, and exits 0).
pub(crate) async fn check_decodes(
    ffmpeg: &Path,
    dir: &Path,
    suspect: Suspect,
    step: Step,
) -> Result<(), JobFailure> {
    let (ffmpeg, dir) = (ffmpeg.to_path_buf(), dir.to_path_buf());
    let checked = tokio::task::spawn_blocking(move || {
        decode_alone(&ffmpeg, &dir, &suspect, step).map_err(|e| (suspect, e))
    })
    .await
    .map_err(|e| JobFailure::Render(crate::ffmpeg::runner::io_error(step, e)))?;
    checked.map_err(|(suspect, e)| input_failure(&suspect, &reason_of(&e, &suspect.path), e))
}

/// The failure of `suspect`, which failed with `reason`, naming `cause` for the log.
pub(crate) fn input_failure(suspect: &Suspect, reason: &str, cause: RenderError) -> JobFailure {
    JobFailure::Input {
        field: suspect.field.clone(),
        fault: suspect.fault,
        message: fault_message(suspect.fault, &suspect.field, reason),
        cause,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_has_its_code_and_advice() {
        let rows = [
            (
                InputFault::Picture,
                "media_unsupported",
                "upload a complete JPEG, PNG or WebP",
            ),
            (
                InputFault::Music,
                "media_unsupported",
                "upload an MP3, M4A or OGG",
            ),
            (
                InputFault::Clip,
                "clip_unavailable",
                "combine the new clip's uuid",
            ),
            (InputFault::ModelOutput, "provider_failed", "try again"),
        ];
        for (fault, code, advice) in rows {
            assert_eq!(fault.code(), code);
            let message = fault_message(fault, "image_inputs[2].image_url", "bad data");
            assert!(message.contains("image_inputs[2].image_url"), "{message}");
            assert!(message.contains("(bad data)"), "{message}");
            assert!(message.contains(advice), "{message}");
        }
    }

    #[test]
    fn decode_args_force_the_demuxer_and_read_only_files() {
        let args = decode_args(Path::new("music.mp3"), Some(MediaFormat::Mp3));
        let joined = args.join(" ");
        assert!(
            joined.contains("-protocol_whitelist file -f mp3 -i music.mp3 -map 0:a:0 -t 10"),
            "{joined}"
        );
        assert!(joined.ends_with("-f null -"), "{joined}");
        let args = decode_args(Path::new("logo.png"), Some(MediaFormat::Png));
        assert!(
            args.join(" ")
                .contains("-f png_pipe -i logo.png -map 0:v:0 -frames:v 1")
        );
        let args = decode_args(Path::new("clip-001.mp4"), None);
        assert!(args.join(" ").contains("-f mov -i clip-001.mp4 -map 0:v:0"));
    }

    #[test]
    fn the_reason_is_the_decoders_line_without_prefix_or_path() {
        let stderr = "[mp3 @ 0x5607] Failed to read frame size: Could not seek to 21023.\n\
                      /tmp/job/music.mp3: Invalid argument\n";
        assert_eq!(
            reason_from(stderr, Path::new("/tmp/job/music.mp3")),
            "Failed to read frame size: Could not seek to 21023."
        );
        assert_eq!(
            reason_from(
                "/tmp/job/music.mp3: Invalid data found\n",
                Path::new("/tmp/job/music.mp3")
            ),
            "Invalid data found"
        );
        let stderr = "[png @ 0x5618] inflate returned error -3\n";
        assert_eq!(
            reason_from(stderr, Path::new("x.png")),
            "inflate returned error -3"
        );
        assert_eq!(reason_from("\n", Path::new("x")), "ffmpeg cannot read it");
    }
}
