//! The webhook outbox's SQL: an event written with its delivery job inside the settling
//! transaction, a new video's `webhook_url`, the delivery a worker's attempt reads, the body
//! kept from the first attempt, and each attempt's answer. What an event is and how an answer
//! is judged is `crate::webhook`'s, which holds no SQL.

use std::time::Duration;

use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx};
use crate::queue::{self, JobKind, NewJob};
use crate::webhook::{AttemptResult, Event, NoRandomness, Verdict, judge, subject_of};

/// `max_attempts` of a delivery job. The delivery itself decides when to give up (from the
/// retry schedule); this only bounds a job whose worker keeps dying mid-attempt.
const JOB_MAX_ATTEMPTS: i32 = 100;

/// A signing secret is made to be stored (`repo::accounts`): a failure to make one is the
/// store's failure, as when the secret was made here.
impl From<NoRandomness> for DbError {
    fn from(err: NoRandomness) -> Self {
        DbError::NoRandomness(err.to_string())
    }
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
    queue::enqueue_jobs(
        tx,
        &[NewJob::new(video, event.job_kind()).with_max_attempts(JOB_MAX_ATTEMPTS)],
    )
    .await?;
    Ok(true)
}

/// One outbox row with what signing it needs: its account's secrets.
#[derive(sqlx::FromRow)]
pub struct DeliveryRow {
    pub event_type: String,
    pub message_id: String,
    pub url: String,
    pub event_at: i64,
    /// The body, once the first attempt built it.
    pub payload: Option<String>,
    pub status: String,
    pub account_id: Uuid,
    pub webhook_secret: Option<String>,
    pub webhook_secret_previous: Option<String>,
    pub webhook_secret_previous_until: Option<i64>,
}

// By hand: the account's secrets stay out of any log line that prints a row.
impl std::fmt::Debug for DeliveryRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeliveryRow")
            .field("event_type", &self.event_type)
            .field("message_id", &self.message_id)
            .field("url", &self.url)
            .field("event_at", &self.event_at)
            .field("status", &self.status)
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

/// The delivery of `video`'s `subject` event, with its account's secrets; `None` when there
/// is none.
pub async fn delivery(db: &Db, video: Uuid, subject: &str) -> Result<Option<DeliveryRow>, DbError> {
    Ok(on_db!(db, pool => sqlx::query_as(
        "SELECT d.event_type, d.message_id, d.url, d.event_at, d.payload, d.status,
                v.account_id, a.webhook_secret, a.webhook_secret_previous,
                a.webhook_secret_previous_until
         FROM webhook_deliveries d
         JOIN videos v ON v.id = d.video_id
         JOIN accounts a ON a.id = v.account_id
         WHERE d.video_id = $1 AND d.subject = $2",
    )
    .bind(video)
    .bind(subject)
    .fetch_optional(pool)
    .await?))
}

/// Stores `body` as the delivery's body unless it has one, and returns the body it keeps:
/// every attempt of an event sends the first body ever built, and a concurrent attempt may
/// have stored one.
pub async fn keep_payload(
    db: &Db,
    video: Uuid,
    subject: &str,
    body: String,
) -> Result<String, DbError> {
    let sql = "UPDATE webhook_deliveries SET payload = COALESCE(payload, $1)
               WHERE video_id = $2 AND subject = $3 RETURNING payload";
    let stored: Option<String> = match db {
        Db::Sqlite { write, .. } => {
            sqlx::query_scalar(sql)
                .bind(&body)
                .bind(video)
                .bind(subject)
                .fetch_one(write)
                .await?
        }
        Db::Postgres(pool) => {
            sqlx::query_scalar(sql)
                .bind(&body)
                .bind(video)
                .bind(subject)
                .fetch_one(pool)
                .await?
        }
    };
    Ok(stored.unwrap_or(body))
}

/// Records an attempt on its outbox row inside `tx` (the transaction that settles its delivery
/// job): one more attempt, the answer, the new status. Returns the attempt count, this one
/// included, and the verdict; `None` when there is nothing to record (no such delivery, or
/// one already settled).
pub async fn record_attempt_in(
    tx: &mut Tx,
    video: Uuid,
    kind: JobKind,
    result: &AttemptResult,
    schedule: &[Duration],
) -> Result<Option<(u32, Verdict)>, DbError> {
    let Some(subject) = subject_of(kind) else {
        return Ok(None);
    };
    let attempts: Option<i32> = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT attempts FROM webhook_deliveries WHERE video_id = $1 AND subject = $2",
    )
    .bind(video)
    .bind(subject)
    .fetch_optional(conn)
    .await?);
    let Some(attempts) = attempts else {
        return Ok(None);
    };
    let attempts = u32::try_from(attempts).unwrap_or(0).saturating_add(1);
    let Some(verdict) = judge(result, attempts, schedule) else {
        return Ok(None);
    };
    on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE webhook_deliveries
         SET attempts = attempts + 1, status = $1, last_status = $2, last_error = $3, updated_at = $4
         WHERE video_id = $5 AND subject = $6 AND status = 'pending'",
    )
    .bind(verdict.status)
    .bind(verdict.last_status.map(i32::from))
    .bind(verdict.error.as_deref())
    .bind(now_ms())
    .bind(video)
    .bind(subject)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(Some((attempts, verdict)))
}
