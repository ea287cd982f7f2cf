//! Webhook deliveries: one job per event (`repo::webhooks::record_event` queues it), each
//! run one attempt. `run` reads the outbox row, builds the body on the first attempt, signs
//! it and POSTs it; `record` writes the answer on the outbox row and completes the job, or
//! puts it back for the retry schedule's next delay. Two kinds, one per subject (the video,
//! its branded render), alike but for their names.

use stillreel_render::Fetcher;

use crate::db::{Db, DbError, Tx, now_ms, rfc3339};
use crate::queue::{Job, JobKind};
use crate::repo::{videos, webhooks};
use crate::state::Services;
use crate::webhook::{
    ATTEMPT_TIMEOUT, AttemptResult, BRANDING_WEBHOOK, MAX_ANSWER_BYTES, VIDEO_WEBHOOK,
    signature_header, subject_of,
};
use crate::worker::failure::Failure;
use crate::worker::kind::{JobCtx, Kind, Settle};

/// Delivers a settled video's event (`video.completed`, `video.failed`).
#[derive(Debug, Clone, Copy)]
pub struct VideoWebhook;

/// Delivers a settled branded render's event (`branding.completed`, `branding.failed`).
#[derive(Debug, Clone, Copy)]
pub struct BrandingWebhook;

/// The two kinds differ only in their name (which names their outbox subject).
macro_rules! delivery_kind {
    ($kind:ty, $name:expr) => {
        impl Kind for $kind {
            const KIND: JobKind = $name;

            type Output = AttemptResult;

            async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<AttemptResult, Failure> {
                let public_url = &ctx.state.config.public_url;
                Ok(attempt(ctx.db(), ctx.webhooks, public_url, job).await?)
            }

            async fn record(
                &self,
                tx: &mut Tx,
                state: &Services,
                job: &Job,
                output: AttemptResult,
            ) -> Result<Settle, DbError> {
                record(tx, state, job, &output).await
            }
        }
    };
}

delivery_kind!(VideoWebhook, VIDEO_WEBHOOK);
delivery_kind!(BrandingWebhook, BRANDING_WEBHOOK);

/// Records a delivery attempt on its outbox row; the job completes, or runs again after the
/// schedule's next delay. One log line per attempt, with the video id and the `webhook-id`.
async fn record(
    tx: &mut Tx,
    state: &Services,
    job: &Job,
    result: &AttemptResult,
) -> Result<Settle, DbError> {
    let schedule = &state.config.webhook_retry_schedule;
    let Some((attempt, verdict)) =
        webhooks::record_attempt_in(tx, job.video_id, job.kind, result, schedule).await?
    else {
        return Ok(Settle::done());
    };
    let message_id = match result {
        AttemptResult::Answered { message_id, .. }
        | AttemptResult::NoAnswer { message_id, .. }
        | AttemptResult::Unsendable { message_id, .. } => message_id.as_str(),
        AttemptResult::Settled => "",
    };
    state.metrics.record_webhook(verdict.outcome);
    tracing::info!(
        video = %job.video_id,
        webhook_id = message_id,
        kind = job.kind.as_str(),
        attempt,
        outcome = verdict.outcome,
        http_status = verdict.last_status,
        retry_in_secs = verdict.retry_in.map(|d| d.as_secs()),
        error = verdict.error.as_deref(),
        "webhook delivery attempt"
    );
    Ok(Settle {
        retry: verdict
            .retry_in
            .map(|delay| (delay, verdict.error.clone().unwrap_or_default())),
        ..Settle::done()
    })
}

/// Makes one delivery attempt for a claimed delivery job: builds the body on the first
/// attempt (the record exactly as `get_video` answers it, fixed from then on), signs it with
/// the account's secret (and the previous one during its grace period) and POSTs it.
async fn attempt(
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
                match videos::get_video(db, row.account_id, job.video_id, public_url).await? {
                    Some(record) => record,
                    // Deleted since its event: nothing left to tell.
                    None => return Ok(AttemptResult::Settled),
                };
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
