//! Completion webhooks: events signed per the Standard Webhooks specification, written to an
//! outbox in the transaction that settles a video or its branded render, and delivered by
//! jobs of the render queue with retries.
//!
//! Life of an event: [`record_event`] (inside the settling transaction: one
//! `webhook_deliveries` row and its delivery job, or nothing when the request named no
//! `webhook_url`) → a worker claims the job and runs [`attempt`] → [`settle`] records the
//! answer and either completes the job or puts it back with the next delay of the retry
//! schedule. Every attempt of one event carries the same `webhook-id` and the same body, so a
//! receiver can drop duplicates; only `webhook-timestamp` (and so the signature) changes.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use stillreel_render::{FetchError, Fetcher};
use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx, rfc3339};
use crate::queue::{self, Job, JobKind};

/// Prefix of a signing secret, as the specification writes them.
pub const SECRET_PREFIX: &str = "whsec_";
/// How long a rotated-out secret keeps signing, so receivers can switch without a gap.
pub const PREVIOUS_SECRET_GRACE: Duration = Duration::from_secs(24 * 3600);
/// The whole of one attempt: connecting, sending and reading the answer.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(15);
/// The most of a receiver's answer that is read (then dropped).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// `max_attempts` of a delivery job. The delivery itself decides when to give up (from the
/// retry schedule); this only bounds a job whose worker keeps dying mid-attempt.
const JOB_MAX_ATTEMPTS: i32 = 100;

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
    const fn subject(self) -> &'static str {
        match self {
            Event::VideoCompleted | Event::VideoFailed => "video",
            Event::BrandingCompleted | Event::BrandingFailed => "branding",
        }
    }

    const fn job_kind(self) -> JobKind {
        match self {
            Event::VideoCompleted | Event::VideoFailed => JobKind::VideoWebhook,
            Event::BrandingCompleted | Event::BrandingFailed => JobKind::BrandingWebhook,
        }
    }
}

/// The outbox subject a delivery job works on.
fn subject_of(kind: JobKind) -> Option<&'static str> {
    match kind {
        JobKind::VideoWebhook => Some("video"),
        JobKind::BrandingWebhook => Some("branding"),
        _ => None,
    }
}

/// A fresh signing secret: `whsec_` and the base64 of 32 random bytes.
pub fn generate_secret() -> Result<String, DbError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|err| DbError::Corrupt(format!("no randomness: {err}")))?;
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

/// Writes `event` of `video` to the outbox and queues its delivery, inside the settling
/// transaction `tx`. Does nothing when the video has no `webhook_url`, or when this subject
/// already has its event (a job that runs twice). Returns whether an event was recorded.
pub async fn record_event(tx: &mut Tx, video: Uuid, event: Event) -> Result<bool, DbError> {
    let now = now_ms();
    let message_id = format!("msg_{}", Uuid::now_v7().simple());
    let inserted = on_tx!(&mut *tx, conn => sqlx::query(
        "INSERT INTO webhook_deliveries (video_id, subject, event_type, message_id, url, event_at,
                                         status, attempts, created_at, updated_at)
         SELECT id, $2, $3, $4, webhook_url, $5, 'pending', 0, $5, $5
         FROM videos WHERE id = $1 AND webhook_url IS NOT NULL
         ON CONFLICT DO NOTHING",
    )
    .bind(video)
    .bind(event.subject())
    .bind(event.type_name())
    .bind(&message_id)
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected());
    if inserted == 0 {
        return Ok(false);
    }
    queue::enqueue_with_max_attempts(tx, video, event.job_kind(), JOB_MAX_ATTEMPTS).await?;
    Ok(true)
}

/// Stores the request's `webhook_url` on a video being created, inside its transaction.
pub async fn set_url(tx: &mut Tx, video: Uuid, url: &str) -> Result<(), DbError> {
    on_tx!(tx, conn => sqlx::query("UPDATE videos SET webhook_url = $1 WHERE id = $2")
        .bind(url)
        .bind(video)
        .execute(conn)
        .await
        .map(drop)?);
    Ok(())
}

#[derive(sqlx::FromRow)]
struct DeliveryRow {
    event_type: String,
    message_id: String,
    url: String,
    event_at: i64,
    payload: Option<String>,
    status: String,
    account_id: Uuid,
    webhook_secret: Option<String>,
    webhook_secret_previous: Option<String>,
    webhook_secret_previous_until: Option<i64>,
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

/// Makes one delivery attempt for a claimed delivery job: builds the body on the first
/// attempt (the record exactly as `get_video` answers it, fixed from then on), signs it with
/// the account's secret (and the previous one during its grace period) and POSTs it.
pub async fn attempt(
    db: &Db,
    fetcher: &Fetcher,
    public_url: &str,
    job: &Job,
) -> Result<AttemptResult, DbError> {
    let Some(subject) = subject_of(job.kind) else {
        return Ok(AttemptResult::Settled);
    };
    let row: Option<DeliveryRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT d.event_type, d.message_id, d.url, d.event_at, d.payload, d.status,
                v.account_id, a.webhook_secret, a.webhook_secret_previous,
                a.webhook_secret_previous_until
         FROM webhook_deliveries d
         JOIN videos v ON v.id = d.video_id
         JOIN accounts a ON a.id = v.account_id
         WHERE d.video_id = $1 AND d.subject = $2",
    )
    .bind(job.video_id)
    .bind(subject)
    .fetch_optional(pool)
    .await?);
    let Some(row) = row else {
        return Ok(AttemptResult::Settled);
    };
    if row.status != "pending" {
        return Ok(AttemptResult::Settled);
    }
    let message_id = row.message_id.clone();
    let payload = match row.payload {
        Some(p) => p,
        None => {
            let record =
                crate::repo::videos::get_video(db, row.account_id, job.video_id, public_url)
                    .await?
                    .ok_or_else(|| DbError::Corrupt(format!("video {} vanished", job.video_id)))?;
            let body = serde_json::json!({
                "type": row.event_type,
                "timestamp": rfc3339(row.event_at),
                "data": record,
            })
            .to_string();
            // Keep the first body ever built: a concurrent attempt may have stored one.
            let sql = "UPDATE webhook_deliveries SET payload = COALESCE(payload, $1)
                       WHERE video_id = $2 AND subject = $3 RETURNING payload";
            let stored: Option<String> = match db {
                Db::Sqlite { write, .. } => {
                    sqlx::query_scalar(sql)
                        .bind(&body)
                        .bind(job.video_id)
                        .bind(subject)
                        .fetch_one(write)
                        .await?
                }
                Db::Postgres(pool) => {
                    sqlx::query_scalar(sql)
                        .bind(&body)
                        .bind(job.video_id)
                        .bind(subject)
                        .fetch_one(pool)
                        .await?
                }
            };
            stored.unwrap_or(body)
        }
    };
    let now = now_ms();
    let mut secrets: Vec<&str> = row.webhook_secret.as_deref().into_iter().collect();
    if row
        .webhook_secret_previous_until
        .is_some_and(|until| until > now)
    {
        secrets.extend(row.webhook_secret_previous.as_deref());
    }
    let timestamp = now / 1000;
    let signature = signature_header(&secrets, &message_id, timestamp, payload.as_bytes());
    if signature.is_empty() {
        return Ok(AttemptResult::Unsendable {
            reason:
                "the account has no webhook secret (run `stillreel accounts rotate-webhook-secret`)"
                    .to_owned(),
            message_id,
        });
    }
    let timestamp_text = timestamp.to_string();
    let headers = [
        ("content-type", "application/json"),
        ("webhook-id", message_id.as_str()),
        ("webhook-timestamp", timestamp_text.as_str()),
        ("webhook-signature", signature.as_str()),
    ];
    Ok(
        match fetcher
            .post(
                &row.url,
                &headers,
                payload.as_bytes(),
                ATTEMPT_TIMEOUT,
                MAX_ANSWER_BYTES,
            )
            .await
        {
            Ok(answer) => AttemptResult::Answered {
                status: answer.status,
                message_id,
            },
            Err(error) => AttemptResult::NoAnswer { error, message_id },
        },
    )
}

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

/// Records an attempt on its outbox row: one more attempt, the answer, the new status.
/// Returns the attempt count, this one included.
pub async fn record_attempt(
    db: &Db,
    video: Uuid,
    kind: JobKind,
    result: &AttemptResult,
    schedule: &[Duration],
) -> Result<Option<(u32, Verdict)>, DbError> {
    let Some(subject) = subject_of(kind) else {
        return Ok(None);
    };
    let attempts: Option<i32> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT attempts FROM webhook_deliveries WHERE video_id = $1 AND subject = $2",
    )
    .bind(video)
    .bind(subject)
    .fetch_optional(pool)
    .await?);
    let Some(attempts) = attempts else {
        return Ok(None);
    };
    let attempts = u32::try_from(attempts).unwrap_or(0).saturating_add(1);
    let Some(verdict) = judge(result, attempts, schedule) else {
        return Ok(None);
    };
    let sql = "UPDATE webhook_deliveries
               SET attempts = attempts + 1, status = $1, last_status = $2, last_error = $3, updated_at = $4
               WHERE video_id = $5 AND subject = $6 AND status = 'pending'";
    let last_status = verdict.last_status.map(i32::from);
    match db {
        Db::Sqlite { write, .. } => {
            sqlx::query(sql)
                .bind(verdict.status)
                .bind(last_status)
                .bind(verdict.error.as_deref())
                .bind(now_ms())
                .bind(video)
                .bind(subject)
                .execute(write)
                .await?;
        }
        Db::Postgres(pool) => {
            sqlx::query(sql)
                .bind(verdict.status)
                .bind(last_status)
                .bind(verdict.error.as_deref())
                .bind(now_ms())
                .bind(video)
                .bind(subject)
                .execute(pool)
                .await?;
        }
    }
    db.invalidate_video(video);
    Ok(Some((attempts, verdict)))
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
