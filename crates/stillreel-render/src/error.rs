//! The errors of this crate: [`FetchError`] for getting media, [`RenderError`] for running
//! ffmpeg, and [`JobFailure`], which the worker stores on a video (CONTRACT §6).

use std::process::ExitStatus;

/// Which CONTRACT §6 code a media problem maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaErrorKind {
    /// Could not be downloaded: refused address, DNS, connection, timeout, HTTP error, redirects.
    Unreachable,
    /// Over the byte limit, or an image whose header declares too many pixels.
    TooLarge,
    /// Not one of the accepted image or audio formats (by content).
    Unsupported,
}

impl MediaErrorKind {
    /// The wire code.
    pub const fn code(self) -> &'static str {
        match self {
            MediaErrorKind::Unreachable => "media_unreachable",
            MediaErrorKind::TooLarge => "media_too_large",
            MediaErrorKind::Unsupported => "media_unsupported",
        }
    }
}

/// A failed media download.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct FetchError {
    pub kind: MediaErrorKind,
    /// Worth retrying later (timeouts, 5xx, 429, connection failures); permanent otherwise.
    pub transient: bool,
    /// A sentence for the user; names the URL's host, never internal paths.
    pub message: String,
}

impl FetchError {
    pub(crate) fn permanent(kind: MediaErrorKind, message: impl Into<String>) -> Self {
        FetchError {
            kind,
            transient: false,
            message: message.into(),
        }
    }

    pub(crate) fn transient(kind: MediaErrorKind, message: impl Into<String>) -> Self {
        FetchError {
            kind,
            transient: true,
            message: message.into(),
        }
    }

    /// The wire code (`media_unreachable`, `media_too_large`, `media_unsupported`).
    pub const fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// The step of a render that ran ffmpeg (or prepared for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Clip(usize),
    Stitch,
    Combine,
    Prepare,
    Store,
    /// The branded render (intro, speed ramp, outro) of a finished video.
    Brand,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Clip(i) => write!(f, "clip {i}"),
            Step::Stitch => f.write_str("stitch"),
            Step::Combine => f.write_str("combine"),
            Step::Prepare => f.write_str("prepare"),
            Step::Store => f.write_str("store"),
            Step::Brand => f.write_str("branding"),
        }
    }
}

/// A failed ffmpeg run or render step. Carries what an operator needs to see why.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// ffmpeg ran and exited unsuccessfully.
    #[error("ffmpeg failed at {step} ({status}): {stderr_tail}")]
    Failed {
        step: Step,
        status: ExitStatus,
        stderr_tail: String,
    },
    /// ffmpeg ran past the wall-time limit and was killed.
    #[error("ffmpeg at {step} exceeded {limit_secs} s and was killed; last output: {stderr_tail}")]
    TimedOut {
        step: Step,
        limit_secs: u64,
        stderr_tail: String,
    },
    /// The render was given up (its job's lease was lost, or the server is stopping) and
    /// ffmpeg was killed. Never stored: the job is settled by whoever owns it now.
    #[error("ffmpeg at {step} was stopped: the render was given up")]
    Cancelled { step: Step },
    /// ffmpeg could not be started (missing binary, permissions).
    #[error("could not start ffmpeg at {step}: {source}")]
    Spawn { step: Step, source: std::io::Error },
    /// A file operation around the run (work dir, concat list, storage) failed.
    #[error("{step}: {message}")]
    Io { step: Step, message: String },
    /// The effect stage could not build its filters.
    #[error("effect for {step}: {message}")]
    Effect { step: Step, message: String },
    /// ffmpeg succeeded but its output failed the check of [`crate::probe::check_clip`]
    /// (wrong frame count, size or encoding): it is not joined to its siblings.
    #[error("{step} rejected: {message}")]
    Rejected { step: Step, message: String },
}

impl RenderError {
    /// The step that failed.
    pub fn step(&self) -> Step {
        match self {
            RenderError::Failed { step, .. }
            | RenderError::TimedOut { step, .. }
            | RenderError::Cancelled { step }
            | RenderError::Spawn { step, .. }
            | RenderError::Io { step, .. }
            | RenderError::Effect { step, .. }
            | RenderError::Rejected { step, .. } => *step,
        }
    }

    /// The tail of ffmpeg's stderr, when ffmpeg ran.
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            RenderError::Failed { stderr_tail, .. } | RenderError::TimedOut { stderr_tail, .. } => {
                Some(stderr_tail)
            }
            _ => None,
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
    /// The generative provider failed for a clip's vfx; `field` is `image_inputs[i].vfx`.
    #[error("{field}: {error}")]
    Provider {
        field: String,
        error: crate::provider::ProviderError,
    },
}

impl JobFailure {
    /// The wire code of CONTRACT §6.
    pub fn code(&self) -> &'static str {
        match self {
            JobFailure::Media { error, .. } => error.code(),
            JobFailure::Render(_) | JobFailure::Provider { .. } => "render_failed",
        }
    }

    /// The request field at fault, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            JobFailure::Media { field, .. } | JobFailure::Provider { field, .. } => Some(field),
            JobFailure::Render(_) => None,
        }
    }

    /// A message for the user. Render failures are not detailed (the stderr tail belongs in
    /// the job's log, see [`RenderError::stderr_tail`]).
    pub fn user_message(&self) -> String {
        match self {
            JobFailure::Media { error, .. } => error.message.clone(),
            JobFailure::Render(RenderError::TimedOut { .. }) => {
                "the render took too long and was stopped".to_owned()
            }
            JobFailure::Render(_) => "the video could not be rendered".to_owned(),
            JobFailure::Provider { error, .. } => error.to_string(),
        }
    }

    /// Whether the queue should retry the job later (with backoff, at most 3 times).
    pub fn is_transient(&self) -> bool {
        match self {
            JobFailure::Media { error, .. } => error.transient,
            // A spawn failure or full disk may pass; a deterministic ffmpeg failure will not.
            JobFailure::Render(
                RenderError::Spawn { .. }
                | RenderError::Io { .. }
                | RenderError::Cancelled { .. }
                | RenderError::Rejected { .. },
            ) => true,
            JobFailure::Render(_) => false,
            JobFailure::Provider { error, .. } => error.is_transient(),
        }
    }
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
