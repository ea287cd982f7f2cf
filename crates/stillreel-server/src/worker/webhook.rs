//! The work of a delivery job: one attempt to deliver a webhook event. It reads the outbox
//! row, builds the body on the first attempt, signs it and POSTs it; the worker's settling
//! then records the answer (`repo::webhooks::record_attempt`) and completes or retries the job.

use stillreel_render::Fetcher;

use crate::db::{Db, DbError, now_ms, rfc3339};
use crate::queue::Job;
use crate::repo::webhooks;
use crate::webhook::{
    ATTEMPT_TIMEOUT, AttemptResult, MAX_ANSWER_BYTES, signature_header, subject_of,
};

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
    let Some(row) = webhooks::delivery(db, job.video_id, subject).await? else {
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
            webhooks::keep_payload(db, job.video_id, subject, body).await?
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
