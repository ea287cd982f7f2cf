//! [`JobFailure`]: why a video, combine or branding job failed, as the worker stores it on the
//! record (docs/API-DESIGN.md#render-failures). Sits above the errors it wraps ([`FetchError`],
//! [`RenderError`], [`ProviderError`]), so none of them imports it. An input that arrived but
//! cannot be used is told apart from our own faults by the `blame` module.

pub mod blame;

use crate::ffmpeg::runner::RenderError;
use crate::media::fetch::FetchError;
use stillreel_providers::{ProviderError, Role};

/// What a video that failed for a full disk says (code `insufficient_storage`).
pub const OUT_OF_SPACE_MESSAGE: &str = "the server is out of disk space; try again later";

/// What kind of input made a run fail (found by the `blame` module): it decides the code and
/// the advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFault {
    /// A picture (`image_url`, a template image) that does not decode.
    Picture,
    /// Music (`audio_url`) that does not decode as audio.
    Music,
    /// A combined clip whose stored file is gone or cannot be read.
    Clip,
    /// A model provider's answer (a clip, a picture) that does not decode.
    ModelOutput,
}

impl InputFault {
    /// The wire code (docs/API-DESIGN.md#render-failures).
    pub const fn code(self) -> &'static str {
        match self {
            InputFault::Picture | InputFault::Music => "media_unsupported",
            InputFault::Clip => "clip_unavailable",
            InputFault::ModelOutput => "provider_failed",
        }
    }
}

/// Why a video (or combine) job failed, ready to store as the record's `error`
/// (`{code, message, field}`) plus what the queue needs to decide on a retry.
#[derive(Debug, thiserror::Error)]
pub enum JobFailure {
    /// A media download failed; `field` is e.g. `image_inputs[2].image_url` or `audio_url`.
    #[error("{}", field_line(field, &error.message))]
    Media { field: String, error: FetchError },
    /// ffmpeg or a file step failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A model call failed; `field` is `image_inputs[i].vfx` (the clip's effect) or
    /// `image_inputs[i]` (its depth map, its generated clip); `role` names the model in the
    /// message (`None`: no role serves the request).
    #[error("{field}: {}", error.describe(role_subject(*role)))]
    Provider {
        field: String,
        role: Option<Role>,
        error: ProviderError,
    },
    /// An input arrived but ffmpeg cannot read it: a picture or music that does not decode,
    /// a model's answer that does not, a combined clip whose file is gone or broken
    /// (the `blame` module). `message` says what to do; `cause` (step, stderr) is for the log.
    #[error("{field}: {message} ({cause})")]
    Input {
        field: String,
        fault: InputFault,
        message: String,
        cause: RenderError,
    },
}

impl JobFailure {
    /// The wire code (docs/API-DESIGN.md#render-failures).
    pub fn code(&self) -> &'static str {
        match self {
            JobFailure::Media { error, .. } => error.code(),
            JobFailure::Provider { error, .. } => error.code(),
            JobFailure::Input { fault, .. } => fault.code(),
            JobFailure::Render(e) if e.is_out_of_space() => "insufficient_storage",
            JobFailure::Render(_) => "render_failed",
        }
    }

    /// The request field at fault, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            JobFailure::Media { field, .. }
            | JobFailure::Provider { field, .. }
            | JobFailure::Input { field, .. } => Some(field),
            JobFailure::Render(_) => None,
        }
    }

    /// The step that failed, when a render step did (for the log line).
    pub fn step(&self) -> Option<crate::ffmpeg::runner::Step> {
        match self {
            JobFailure::Render(e) | JobFailure::Input { cause: e, .. } => Some(e.step()),
            _ => None,
        }
    }

    /// The tail of ffmpeg's stderr, when ffmpeg ran (for the log line, never the record).
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            JobFailure::Render(e) | JobFailure::Input { cause: e, .. } => e.stderr_tail(),
            _ => None,
        }
    }

    /// A message for the user. Render failures are not detailed (the stderr tail belongs in
    /// the job's log, see [`RenderError::stderr_tail`]), but a full disk is told as such.
    pub fn user_message(&self) -> String {
        match self {
            JobFailure::Media { error, .. } => error.message.clone(),
            JobFailure::Render(RenderError::TimedOut { .. }) => {
                "the render took too long and was stopped".to_owned()
            }
            JobFailure::Render(e) if e.is_out_of_space() => OUT_OF_SPACE_MESSAGE.to_owned(),
            JobFailure::Render(_) => "the video could not be rendered".to_owned(),
            JobFailure::Provider { error, role, .. } => error.describe(role_subject(*role)),
            JobFailure::Input { message, .. } => message.clone(),
        }
    }

    /// Whether the queue should retry the job later (with backoff, at most 3 times).
    pub fn is_transient(&self) -> bool {
        match self {
            JobFailure::Media { error, .. } => error.transient,
            // A spawn failure or full disk may pass; a deterministic ffmpeg failure will not,
            // unless it was the disk filling up.
            JobFailure::Render(
                RenderError::Spawn { .. }
                | RenderError::Io { .. }
                | RenderError::Cancelled { .. }
                | RenderError::Rejected { .. },
            ) => true,
            JobFailure::Render(e) => e.is_out_of_space(),
            JobFailure::Provider { error, .. } => error.is_transient(),
            JobFailure::Input { .. } => false,
        }
    }
}

/// Who a provider failure names: the role's model, or the provider in general.
fn role_subject(role: Option<Role>) -> &'static str {
    role.map_or("the model provider", Role::subject)
}

/// `field: message`, or the message alone when it already starts with the field (size and
/// deadline messages name it themselves).
fn field_line(field: &str, message: &str) -> String {
    if message.starts_with(field) {
        message.to_owned()
    } else {
        format!("{field}: {message}")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    use super::*;
    use crate::ffmpeg::runner::{Step, io_error};

    fn failed(stderr_tail: &str) -> JobFailure {
        JobFailure::Render(RenderError::Failed {
            step: Step::Stitch,
            status: ExitStatus::from_raw(1 << 8),
            stderr_tail: stderr_tail.to_owned(),
        })
    }

    #[test]
    fn a_full_disk_fails_the_video_as_insufficient_storage() {
        let enospc =
            JobFailure::Render(io_error(Step::Store, std::io::Error::from_raw_os_error(28)));
        let ffmpeg = failed(
            "[out#0/mp4 @ 0x5f] Error muxing a packet\nav_interleaved_write_frame(): No space left on device",
        );
        for full in [enospc, ffmpeg] {
            assert_eq!(full.code(), "insufficient_storage", "{full}");
            assert_eq!(full.user_message(), OUT_OF_SPACE_MESSAGE);
            assert_eq!(full.field(), None);
            assert!(full.is_transient(), "{full}");
        }
        let other = failed("Invalid data found when processing input");
        assert_eq!(other.code(), "render_failed");
        assert_eq!(other.user_message(), "the video could not be rendered");
        assert!(!other.is_transient());
        let denied =
            JobFailure::Render(io_error(Step::Store, std::io::Error::from_raw_os_error(13)));
        assert_eq!(denied.code(), "render_failed");
    }
}
