//! [`JobFailure`]: why a video, combine or branding job failed, as the worker stores it on the
//! record (docs/API-DESIGN.md#render-failures). Sits above the errors it wraps ([`FetchError`],
//! [`RenderError`], [`ProviderError`]), so none of them imports it.

use crate::depth::DepthError;
use crate::fetch::FetchError;
use crate::provider::ProviderError;
use crate::runner::RenderError;

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
    Provider { field: String, error: ProviderError },
    /// A clip's depth map cannot be used (not a grey PNG, colourised, another aspect ratio
    /// than the photo's); `field` is `image_inputs[i]`. The clip fails rather than move wrongly.
    #[error("{field}: {error}")]
    Depth { field: String, error: DepthError },
}

impl JobFailure {
    /// The wire code (docs/API-DESIGN.md#render-failures).
    pub fn code(&self) -> &'static str {
        match self {
            JobFailure::Media { error, .. } => error.code(),
            JobFailure::Provider { error, .. } => error.code(),
            JobFailure::Render(_) | JobFailure::Depth { .. } => "render_failed",
        }
    }

    /// The request field at fault, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            JobFailure::Media { field, .. }
            | JobFailure::Provider { field, .. }
            | JobFailure::Depth { field, .. } => Some(field),
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
            JobFailure::Depth { error, .. } => error.to_string(),
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
            JobFailure::Depth { .. } => false,
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
