//! [`ProviderError`]: why a model call failed, in words that name the role's model ("the depth
//! model did not answer within 120 s"), with the code the render failure carries. Every
//! message is safe to show: hosts' texts pass through `http::safe_message` first.

use std::fmt;

use stillreel_core::VfxType;

/// Why a provider call failed. The message is safe to show (no URLs or tokens).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    NotConfigured(VfxType),
    /// The generative engine's clip role is not configured (any more) on this renderer.
    ClipNotConfigured,
    TimedOut(u64),
    Unreachable,
    /// A non-2xx answer; `code` is the provider's own error code when it sent one.
    Refused {
        status: u16,
        code: Option<String>,
        message: String,
    },
    /// A 2xx answer that does not follow the protocol, or an answer the role cannot use.
    Invalid(String),
    /// The host refused the call for the account's quota, credit or billing limit.
    Quota,
    /// The host or the model refused the picture or the prompt under its content policy.
    ContentPolicy,
    /// The model ran and failed (or its prediction was canceled, or its output was gone before
    /// it was downloaded); the message is the host's, without addresses or keys.
    ModelFailed(String),
    /// A rate limit or a busy self-hosted model (429, Cog's 409) that outlasted the call's
    /// time limit; the job is retried later.
    Busy,
    /// The model cannot serve at all until its operator acts: a Cog container whose setup
    /// failed or that is defunct (`state`), with the container's own error text.
    Unavailable {
        state: String,
        message: String,
    },
}

impl ProviderError {
    /// The message with `subject` (`the depth model`) as the one that failed.
    pub fn describe(&self, subject: &str) -> String {
        match self {
            ProviderError::NotConfigured(kind) => {
                format!("no generative provider is configured for {kind}")
            }
            ProviderError::ClipNotConfigured => {
                "no clip model provider is configured for ai_engine generative".to_owned()
            }
            ProviderError::TimedOut(secs) => format!("{subject} did not answer within {secs} s"),
            ProviderError::Unreachable => format!("{subject} could not be reached"),
            ProviderError::Refused {
                status,
                code,
                message,
            } => {
                let code = code
                    .as_deref()
                    .map(|c| format!(", {c}"))
                    .unwrap_or_default();
                format!("{subject} refused the call ({status}{code}): {message}")
            }
            ProviderError::Invalid(why) => format!("{subject} sent an answer it cannot use: {why}"),
            ProviderError::Quota => format!(
                "{subject}'s host refused the call: the account's quota or billing limit is reached"
            ),
            ProviderError::ContentPolicy => {
                format!("{subject}'s host refused the picture under its content policy")
            }
            ProviderError::ModelFailed(why) => format!("{subject} failed: {why}"),
            ProviderError::Busy => format!("{subject} stayed busy past its time limit"),
            ProviderError::Unavailable { state, message } => {
                format!("{subject} is unavailable ({state}): {message}")
            }
        }
    }

    /// Worth retrying later: timeouts, connection failures, 429 and 5xx, a busy host.
    pub fn is_transient(&self) -> bool {
        match self {
            ProviderError::TimedOut(_) | ProviderError::Unreachable | ProviderError::Busy => true,
            ProviderError::Refused { status, .. } => *status == 429 || *status >= 500,
            ProviderError::NotConfigured(_)
            | ProviderError::ClipNotConfigured
            | ProviderError::Invalid(_)
            | ProviderError::Quota
            | ProviderError::ContentPolicy
            | ProviderError::ModelFailed(_)
            | ProviderError::Unavailable { .. } => false,
        }
    }

    /// The render failure code (docs/API-DESIGN.md#render-failures): the refusals an operator
    /// acts on differently have their own, the rest are `render_failed`.
    pub fn code(&self) -> &'static str {
        match self {
            ProviderError::Quota => "provider_quota",
            ProviderError::ContentPolicy => "provider_content_refused",
            ProviderError::ModelFailed(_) => "provider_failed",
            ProviderError::Unavailable { .. } => "provider_unavailable",
            _ => "render_failed",
        }
    }
}

/// Without a role at hand: "the model provider".
impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe("the model provider"))
    }
}

impl std::error::Error for ProviderError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_subject_and_codes_follow_the_case() {
        let e = ProviderError::Refused {
            status: 422,
            code: None,
            message: "input_image: Field required".into(),
        };
        assert_eq!(
            e.describe("the depth model"),
            "the depth model refused the call (422): input_image: Field required"
        );
        let down = ProviderError::Unavailable {
            state: "setup failed".into(),
            message: "RuntimeError: no weights".into(),
        };
        assert_eq!(
            down.describe("the staging model"),
            "the staging model is unavailable (setup failed): RuntimeError: no weights"
        );
        assert_eq!(down.code(), "provider_unavailable");
        assert!(!down.is_transient());
        assert_eq!(
            ProviderError::TimedOut(5).to_string(),
            "the model provider did not answer within 5 s"
        );
        assert!(ProviderError::TimedOut(3).is_transient());
        assert!(!ProviderError::Invalid("x".into()).is_transient());
    }
}
