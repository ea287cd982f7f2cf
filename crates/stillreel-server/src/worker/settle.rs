//! Recording how a job ended, each write only while the job's lease is provably this
//! worker's: a step's result with its job's completion, a retry with back-off, a failure
//! for good, a webhook delivery's answer; and removing the uploads of steps whose lease was
//! lost.

use std::sync::Arc;

use uuid::Uuid;

use super::Ctx;
use super::job::{Done, Outcome};
use crate::db::{Db, DbError};
use crate::queue::{self, Job};
use crate::repo::graph::{self, ClipRecorded};
use crate::repo::render as repo;
use crate::repo::webhooks;
use crate::webhook::AttemptResult;

/// Removes a stored file no record points at (the upload of a step whose lease was lost).
async fn remove_orphan(ctx: &Ctx, key: &str) {
    if remove_stored(ctx, key).await {
        tracing::info!(key, "removed an orphaned upload");
    }
}

/// Removes a stored file; `false` (logged) when the storage refused.
async fn remove_stored(ctx: &Ctx, key: &str) -> bool {
    let storage = Arc::clone(&ctx.state.storage);
    let owned = key.to_owned();
    let failed = match tokio::task::spawn_blocking(move || storage.delete(&owned)).await {
        Ok(Ok(())) => return true,
        Ok(Err(err)) => err.to_string(),
        Err(err) => err.to_string(),
    };
    tracing::warn!(key, error = %failed, "cannot remove a stored file");
    false
}

/// Records how the job ended, each write only while the lease is provably ours.
pub(super) async fn settle(
    ctx: &Ctx,
    worker_id: &str,
    job: &Job,
    outcome: Outcome,
) -> Result<(), DbError> {
    let db = &ctx.db;
    match outcome {
        Outcome::LeaseLost => {
            tracing::warn!(job = job.id, "lease lost; another worker owns the job now");
            Ok(())
        }
        Outcome::HandBack => {
            queue::release(db, job, worker_id).await?;
            tracing::info!(job = job.id, "shutting down: job handed back to the queue");
            Ok(())
        }
        Outcome::Webhook(result) => settle_webhook(ctx, worker_id, job, &result).await,
        Outcome::Done(done) => settle_done(ctx, worker_id, job, done).await,
        Outcome::Failed(failure) => {
            if !queue::heartbeat(db, job, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before recording a failure");
                return Ok(());
            }
            if failure.is_transient() && job.attempts < job.max_attempts {
                let delay = queue::backoff(job.attempts);
                tracing::warn!(job = job.id, attempt = job.attempts, retry_in_secs = delay.as_secs(), error = %failure, "job failed; will retry");
                queue::fail(db, job, worker_id, &failure.to_string(), Some(delay)).await?;
                return Ok(());
            }
            tracing::warn!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), error = %failure, "job failed");
            let error = failure.job_error();
            // One transaction: a crash can never leave the job failed and its record
            // `in_progress`, and a failed step cancels its video's queued siblings with it.
            // (A delivery whose database access keeps failing has no record: its event
            // stays pending.)
            if !repo::fail_job_for_good(db, job, worker_id, &failure.to_string(), &error).await? {
                tracing::warn!(job = job.id, "lease lost while recording a failure");
                return Ok(());
            }
            // The video failed: the customer's checked photos and music are of no more use
            // and are not kept (best effort, like after a stitch).
            for key in graph::prepared_keys(db, job.video_id).await? {
                remove_stored(ctx, &key).await;
            }
            Ok(())
        }
    }
}

/// Records a finished step. The graph's steps record their result and complete their job in
/// one transaction that checks the lease token; a step whose lease was lost leaves an
/// upload nobody points at, which is removed.
async fn settle_done(ctx: &Ctx, worker_id: &str, job: &Job, done: Done) -> Result<(), DbError> {
    let db = &ctx.db;
    let kind = job.kind.as_str();
    match done {
        Done::Prepared(prepared) => {
            if !graph::finish_prepare(db, job, worker_id, &prepared).await? {
                tracing::warn!(job = job.id, "lease lost before prepare was recorded");
                return Ok(());
            }
        }
        Done::Clip { clip_id, clip } => {
            let motion = clip.motion.map(|m| m.as_camera_motion());
            match graph::finish_clip(db, job, worker_id, clip_id, &clip.key, motion).await? {
                ClipRecorded::Recorded { stitch_enqueued } => {
                    tracing::info!(job = job.id, video = %job.video_id, clip = clip.index, stitch_enqueued, "clip recorded");
                }
                ClipRecorded::AlreadyRecorded => remove_orphan(ctx, &clip.key).await,
                ClipRecorded::LeaseLost => {
                    tracing::warn!(
                        job = job.id,
                        clip = clip.index,
                        "lease lost before the clip was recorded; its upload is dropped"
                    );
                    remove_orphan(ctx, &clip.key).await;
                    return Ok(());
                }
            }
        }
        Done::Stitched(video) => {
            if !graph::finish_stitch(db, job, worker_id, &video.key).await? {
                tracing::warn!(
                    job = job.id,
                    "lease lost before the video was recorded; its upload is dropped"
                );
                remove_orphan(ctx, &video.key).await;
                return Ok(());
            }
            // The checked inputs served their purpose: nothing reads them once the video is
            // stitched (branding starts from the video). Best effort: a leftover is harmless.
            for key in graph::prepared_keys(db, job.video_id).await? {
                remove_stored(ctx, &key).await;
            }
        }
        Done::Combined(_) | Done::Branded(_) | Done::Nothing { .. } => {
            // A last heartbeat proves the lease is ours and keeps it for a whole lease more:
            // nobody can rescue the job while the result is written.
            if !queue::heartbeat(db, job, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before completion; result dropped");
                return Ok(());
            }
            match done {
                Done::Combined(video) => {
                    repo::complete_video(db, job.video_id, &video.key).await?;
                    enqueue_branding(db, job.video_id).await?;
                }
                Done::Branded(video) => {
                    repo::complete_branding(db, job.video_id, &video.key).await?;
                }
                // Already complete (an earlier attempt died before closing its job): make
                // sure the branded render was queued.
                Done::Nothing { branding: true } => enqueue_branding(db, job.video_id).await?,
                _ => {}
            }
            queue::complete(db, job, worker_id).await?;
        }
    }
    tracing::info!(job = job.id, video = %job.video_id, kind, "job complete");
    Ok(())
}

/// Records a delivery attempt and completes its job, or puts it back for the schedule's
/// next delay. One log line per attempt, with the video id and the `webhook-id`.
async fn settle_webhook(
    ctx: &Ctx,
    worker_id: &str,
    job: &Job,
    result: &AttemptResult,
) -> Result<(), DbError> {
    let db = &ctx.db;
    let schedule = &ctx.state.config.webhook_retry_schedule;
    let Some((attempt, verdict)) =
        webhooks::record_attempt(db, job.video_id, job.kind, result, schedule).await?
    else {
        queue::complete(db, job, worker_id).await?;
        return Ok(());
    };
    let message_id = match result {
        AttemptResult::Answered { message_id, .. }
        | AttemptResult::NoAnswer { message_id, .. }
        | AttemptResult::Unsendable { message_id, .. } => message_id.as_str(),
        AttemptResult::Settled => "",
    };
    ctx.state.metrics.record_webhook(verdict.outcome);
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
    match verdict.retry_in {
        Some(delay) => {
            queue::fail(
                db,
                job,
                worker_id,
                verdict.error.as_deref().unwrap_or(""),
                Some(delay),
            )
            .await?;
        }
        None => {
            queue::complete(db, job, worker_id).await?;
        }
    }
    Ok(())
}

/// Queues the branded render of a complete video that asked for one, unless already queued.
async fn enqueue_branding(db: &Db, video_id: Uuid) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    graph::enqueue_branding_in(&mut tx, video_id).await?;
    tx.commit().await
}
