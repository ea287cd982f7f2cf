//! Completion webhooks, the pure part: events, their Standard Webhooks signatures, signing
//! secrets, and the verdict on a delivery attempt under the retry schedule. No SQL and no
//! HTTP here, so the queue, the repository and the worker can all name it.
//!
//! Life of an event: `repo::webhooks::record_event` (inside the transaction that settles a
//! video or its branded render: one `webhook_deliveries` row and its delivery job, or nothing
//! when the request named no `webhook_url`) → a worker claims the job and runs its attempt
//! (`worker/kinds/webhook.rs`) → the kind's `record` records the answer
//! (`repo::webhooks::record_attempt_in`, judged by [`judge`]) and either completes the job or
//! puts it back with the next delay of the retry schedule. Every attempt of one event carries
//! the same `webhook-id` and the same body, so a receiver can drop duplicates; only
//! `webhook-timestamp` (and so the signature) changes.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use stillreel_render::FetchError;

use crate::queue::{ClaimRank, JobKind};

/// Prefix of a signing secret, as the specification writes them.
pub const SECRET_PREFIX: &str = "whsec_";
/// How long a rotated-out secret keeps signing, so receivers can switch without a gap.
pub const PREVIOUS_SECRET_GRACE: Duration = Duration::from_secs(24 * 3600);
/// The whole of one attempt: connecting, sending and reading the answer.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);
/// The most of a receiver's answer that is read (then dropped).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// What happened to a video or its branded render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    VideoCompleted,
    VideoFailed,
    BrandingCompleted,
    BrandingFailed,
}

impl Event {
    /// The event's `type` in the body.
    pub const fn type_name(self) -> &'static str {
        match self {
            Event::VideoCompleted => "video.completed",
            Event::VideoFailed => "video.failed",
            Event::BrandingCompleted => "branding.completed",
            Event::BrandingFailed => "branding.failed",
        }
    }

    /// The outbox row's `subject`: each subject settles once, so it has at most one event.
    pub const fn subject(self) -> &'static str {
        match self {
            Event::VideoCompleted | Event::VideoFailed => "video",
            Event::BrandingCompleted | Event::BrandingFailed => "branding",
        }
    }

    /// The kind of the job that delivers the event.
    pub const fn job_kind(self) -> JobKind {
        match self {
            Event::VideoCompleted | Event::VideoFailed => VIDEO_WEBHOOK,
            Event::BrandingCompleted | Event::BrandingFailed => BRANDING_WEBHOOK,
        }
    }
}

/// Deliver the webhook event of a settled video (run by `worker/kinds/webhook.rs`; declared
/// here, where an event names the job that delivers it, since the repository queues it).
pub const VIDEO_WEBHOOK: JobKind = JobKind::new("video_webhook", ClaimRank::Finishing);
/// Deliver the webhook event of a settled branded render.
pub const BRANDING_WEBHOOK: JobKind = JobKind::new("branding_webhook", ClaimRank::Finishing);

/// The outbox subject a delivery job works on (`None` for a job that delivers nothing).
pub fn subject_of(kind: JobKind) -> Option<&'static str> {
    if kind == VIDEO_WEBHOOK {
        Some("video")
    } else if kind == BRANDING_WEBHOOK {
        Some("branding")
    } else {
        None
    }
}

/// The system gave no randomness to make a secret from. The repository, which stores the
/// secret, turns it into its own error (`repo::webhooks`).
#[derive(Debug, thiserror::Error)]
#[error("no randomness: {0}")]
pub struct NoRandomness(getrandom::Error);

/// A fresh signing secret: `whsec_` and the base64 of 32 random bytes.
pub fn generate_secret() -> Result<String, NoRandomness> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(NoRandomness)?;
    Ok(format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes)))
}

/// One `v1,<base64>` signature of `{id}.{timestamp}.{body}` with `secret`; `None` when the
/// secret is not `whsec_` + base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = STANDARD.decode(secret.strip_prefix(SECRET_PREFIX)?).ok()?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header: one signature per secret, space-separated (receivers
/// accept the message when any of them verifies).
pub fn signature_header(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|s| sign(s, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How one attempt ended.
#[derive(Debug, Clone)]
pub enum AttemptResult {
    /// The event was already delivered or given up on (a job that runs twice): nothing sent.
    Settled,
    /// The receiver answered with this status.
    Answered { status: u16, message_id: String },
    /// No answer: a timeout, a refused connection, an address that may not be called.
    NoAnswer {
        error: FetchError,
        message_id: String,
    },
    /// The event cannot be sent at all (the account has no signing secret).
    Unsendable { reason: String, message_id: String },
}

/// What a delivery's outcome is called in logs and in `/metrics`.
pub const OUTCOMES: &[&str] = &["delivered", "retry", "gone", "failed"];

/// The verdict on an attempt, given the retry schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `pending`, `delivered` or `failed`.
    pub status: &'static str,
    /// One of [`OUTCOMES`].
    pub outcome: &'static str,
    /// When to try again (only for `retry`).
    pub retry_in: Option<Duration>,
    pub last_status: Option<u16>,
    pub error: Option<String>,
}

/// Decides what attempt number `attempts` (1-based, this one included) leads to: any 2xx is
/// delivered, `410 Gone` stops, an address that may not be called stops, anything else is
/// tried again after the schedule's next delay until the schedule runs out.
pub fn judge(result: &AttemptResult, attempts: u32, schedule: &[Duration]) -> Option<Verdict> {
    let next = usize::try_from(attempts)
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| schedule.get(i).copied());
    let again = |last_status: Option<u16>, error: String| match next {
        Some(delay) => Verdict {
            status: "pending",
            outcome: "retry",
            retry_in: Some(delay),
            last_status,
            error: Some(error),
        },
        None => Verdict {
            status: "failed",
            outcome: "failed",
            retry_in: None,
            last_status,
            error: Some(format!("{error}; no attempts left")),
        },
    };
    Some(match result {
        AttemptResult::Settled => return None,
        AttemptResult::Answered { status, .. } if (200..300).contains(status) => Verdict {
            status: "delivered",
            outcome: "delivered",
            retry_in: None,
            last_status: Some(*status),
            error: None,
        },
        AttemptResult::Answered { status: 410, .. } => Verdict {
            status: "failed",
            outcome: "gone",
            retry_in: None,
            last_status: Some(410),
            error: Some("the receiver answered 410 Gone".to_owned()),
        },
        AttemptResult::Answered { status, .. } => {
            again(Some(*status), format!("the receiver answered {status}"))
        }
        AttemptResult::NoAnswer { error, .. } if !error.transient => Verdict {
            status: "failed",
            outcome: "failed",
            retry_in: None,
            last_status: None,
            error: Some(error.message.clone()),
        },
        AttemptResult::NoAnswer { error, .. } => again(None, error.message.clone()),
        AttemptResult::Unsendable { reason, .. } => Verdict {
            status: "failed",
            outcome: "failed",
            retry_in: None,
            last_status: None,
            error: Some(reason.clone()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specifications_test_vector() {
        let signature = sign(
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1_649_367_553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
        );
        assert_eq!(
            signature.as_deref(),
            Some("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=")
        );
    }

    /// The vector of the specification's JavaScript, Go and PHP reference libraries.
    #[test]
    fn the_reference_libraries_test_vector() {
        let signature = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(
            signature.as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }

    #[test]
    fn two_secrets_give_two_signatures() {
        let a = generate_secret().expect("randomness");
        let b = generate_secret().expect("randomness");
        assert!(a.starts_with("whsec_") && a.len() == 6 + 44, "{a}");
        assert_ne!(a, b);
        let header = signature_header(&[&a, &b], "msg_1", 7, b"{}");
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(Some(parts[0]), sign(&a, "msg_1", 7, b"{}").as_deref());
        assert_eq!(Some(parts[1]), sign(&b, "msg_1", 7, b"{}").as_deref());
        assert_eq!(signature_header(&["not a secret"], "m", 1, b""), "");
        assert_eq!(sign("whsec_!!!", "m", 1, b""), None);
    }

    #[test]
    fn verdicts_follow_the_rules() {
        let schedule = [Duration::from_secs(5), Duration::from_secs(300)];
        let answered = |status| AttemptResult::Answered {
            status,
            message_id: "m".into(),
        };
        let ok = judge(&answered(204), 1, &schedule).expect("verdict");
        assert_eq!((ok.status, ok.outcome), ("delivered", "delivered"));
        let gone = judge(&answered(410), 1, &schedule).expect("verdict");
        assert_eq!((gone.status, gone.outcome), ("failed", "gone"));
        let first = judge(&answered(500), 1, &schedule).expect("verdict");
        assert_eq!(first.retry_in, Some(Duration::from_secs(5)));
        let second = judge(&answered(302), 2, &schedule).expect("verdict");
        assert_eq!(second.retry_in, Some(Duration::from_secs(300)));
        let last = judge(&answered(500), 3, &schedule).expect("verdict");
        assert_eq!((last.status, last.retry_in), ("failed", None));
        assert_eq!(judge(&AttemptResult::Settled, 1, &schedule), None);
    }
}
