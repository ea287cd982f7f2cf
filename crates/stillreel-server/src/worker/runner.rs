//! The runner: one claimed job from claim to commit, the same for every kind.
//!
//! claim (`loops.rs`) → heartbeat renewing the lease while the kind's `run` works (outside any
//! transaction, under the kind's time limit and a panic guard) → one transaction that
//! completes the job by its lease token, has the kind `record` its result, queues the
//! follow-up jobs and commits → then, from here only, the video's cached answer is dropped,
//! idle slots are woken for the follow-ups and files nothing points at are removed.
//!
//! The failure paths live here once: a lost lease records nothing (and removes the run's
//! uploads), a shutdown hands the job back, a failure is retried as the kind's policy says
//! or fails the job for good in one transaction with the kind's `fail` (the video failed, its
//! queued siblings cancelled).

use std::sync::Arc;

use futures_util::FutureExt;
use stillreel_core::JobError;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::ctx::Ctx;
use super::failure::{Failure, render_failed};
use super::kind::{AnyKind, JobCtx, Kind, Output, Ran};
use crate::db::DbError;
use crate::queue::{self, Job, NewJob};
use crate::state::Services;

/// How recording a finished job ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Completed and recorded (or put back, when the kind asked for a retry); `next` queued.
    Done { next: Vec<NewJob> },
    /// The lease (token) was no longer this worker's: nothing was written, and the run's
    /// uploads were removed.
    LeaseLost,
}

/// How recording a failed job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failed {
    /// Back in the queue, to run again after its back-off.
    Retried,
    /// Failed for good, with the kind's records (`Kind::fail`) in the same transaction.
    ForGood,
    /// The lease was no longer this worker's: nothing was written.
    LeaseLost,
}

/// Records the output of `kind`'s run of `job`, as the runner does after every run: one
/// transaction that completes the job by its lease token, records, queues the follow-ups
/// and commits. Public so tests can drive a job's settling without a renderer.
pub async fn record<K: Kind>(
    state: &Services,
    job: &Job,
    worker_id: &str,
    kind: &K,
    output: K::Output,
) -> Result<Recorded, DbError> {
    settle_done(state, job, worker_id, Box::new(Output { kind, output })).await
}

/// Records a failed run of `kind`'s `job`, as the runner does: a retry when the kind's policy
/// allows one, else the job failed for good with the kind's records in one transaction.
pub async fn fail<K: Kind>(
    state: &Services,
    job: &Job,
    worker_id: &str,
    kind: &K,
    failure: &Failure,
) -> Result<Failed, DbError> {
    settle_failure(state, job, worker_id, kind, failure).await
}

async fn settle_done<'k>(
    state: &Services,
    job: &Job,
    worker_id: &str,
    ran: Box<dyn Ran<'k> + 'k>,
) -> Result<Recorded, DbError> {
    let db = &state.db;
    let uploads = ran.uploads();
    let mut tx = db.begin().await?;
    if !queue::complete_in(&mut tx, job, worker_id).await? {
        // Dropping the transaction rolls it back.
        drop(tx);
        tracing::warn!(
            job = job.id,
            kind = job.kind.as_str(),
            "lease lost before the result was recorded; its uploads are dropped"
        );
        remove_stored(state, &uploads, "removed an orphaned upload").await;
        return Ok(Recorded::LeaseLost);
    }
    let settle = ran.record(&mut tx, state, job).await?;
    if let Some((delay, note)) = &settle.retry {
        queue::retry_completed_in(&mut tx, job, *delay, note).await?;
    }
    queue::enqueue_jobs(&mut tx, &settle.next).await?;
    tx.touch(job.video_id);
    tx.commit().await?;
    after_commit(state);
    remove_stored(
        state,
        &settle.remove,
        "removed a stored file nothing points at",
    )
    .await;
    tracing::info!(
        job = job.id,
        video = %job.video_id,
        kind = job.kind.as_str(),
        next = settle.next.len(),
        retry = settle.retry.is_some(),
        "job settled"
    );
    Ok(Recorded::Done { next: settle.next })
}

async fn settle_failure(
    state: &Services,
    job: &Job,
    worker_id: &str,
    kind: &dyn AnyKind,
    failure: &Failure,
) -> Result<Failed, DbError> {
    let db = &state.db;
    if let Some(delay) = kind.retry_in(job, failure) {
        tracing::warn!(job = job.id, kind = job.kind.as_str(), attempt = job.attempts, retry_in_secs = delay.as_secs(), error = %failure, "job failed; will retry");
        return Ok(
            if queue::fail(db, job, worker_id, &failure.to_string(), Some(delay)).await? {
                Failed::Retried
            } else {
                Failed::LeaseLost
            },
        );
    }
    let error = failure.job_error();
    // The record names the field and what to do; the log keeps what an operator needs: the
    // job, the step, the field and code stored, and ffmpeg's own words.
    tracing::warn!(
        job = job.id,
        video = %job.video_id,
        kind = job.kind.as_str(),
        step = failure.step().as_deref().unwrap_or("-"),
        code = %error.code,
        field = error.field.as_deref().unwrap_or("-"),
        stderr_tail = failure.stderr_tail().unwrap_or("-"),
        error = %failure,
        "job failed"
    );
    // One transaction: a crash can never leave the job failed and its record `in_progress`.
    let mut tx = db.begin().await?;
    if !queue::fail_for_good_in(&mut tx, job, worker_id, &failure.to_string()).await? {
        tracing::warn!(job = job.id, "lease lost while recording a failure");
        return Ok(Failed::LeaseLost);
    }
    let from_kit = crate::repo::render::kit_fields_in(&mut tx, job.video_id).await?;
    let error = super::failure::kit_error(error, &from_kit);
    let remove = kind.fail(&mut tx, job, &error).await?;
    tx.touch(job.video_id);
    tx.commit().await?;
    after_commit(state);
    // A failed video's checked photos and music are of no more use and are not kept.
    remove_stored(state, &remove, "removed a failed video's stored input").await;
    Ok(Failed::ForGood)
}

/// What follows every commit of a job's settling (whose transaction touched the job's video,
/// so the commit itself dropped the video's cached answer): this process's idle slots are
/// woken to take the jobs the settling may have queued (a prepare's clips, the last clip's
/// stitch, a webhook delivery).
fn after_commit(state: &Services) {
    state.jobs_queued.notify_waiters();
}

/// Removes stored files (best effort: a leftover is harmless, and logged).
async fn remove_stored(state: &Services, keys: &[String], note: &'static str) {
    for key in keys {
        let storage = Arc::clone(&state.storage);
        let owned = key.clone();
        let failed = match tokio::task::spawn_blocking(move || storage.delete(&owned)).await {
            Ok(Ok(())) => {
                tracing::info!(key, "{note}");
                continue;
            }
            Ok(Err(err)) => err.to_string(),
            Err(err) => err.to_string(),
        };
        tracing::warn!(key, error = %failed, "cannot remove a stored file");
    }
}

/// How the run of a job ended.
enum Outcome<'k> {
    Ran(Box<dyn Ran<'k> + 'k>),
    Failed(Failure),
    /// Another worker may own the job now: touch nothing.
    LeaseLost,
    /// Shutting down and the grace period ran out: give the job back.
    HandBack,
}

pub(super) async fn run_job(ctx: &Ctx, worker_id: &str, job: Job, stop: watch::Receiver<bool>) {
    let started = std::time::Instant::now();
    tracing::info!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), clip = job.clip_index, attempt = job.attempts, "job claimed");
    let Some(kind) = ctx.kinds.get(job.kind) else {
        // Queued by a process that runs more kinds than this one: another worker may run it.
        let note = format!("this worker does not run {:?} jobs", job.kind.as_str());
        tracing::warn!(job = job.id, "{note}");
        let delay = queue::backoff(job.attempts);
        if let Err(err) = queue::fail(&ctx.state.db, &job, worker_id, &note, Some(delay)).await {
            tracing::warn!(job = job.id, error = %err, "could not put the job back");
        }
        return;
    };
    let work_dir = ctx.scratch.job_dir(job.id, job.attempts);
    let job_ctx = JobCtx {
        state: &ctx.state,
        renderer: &ctx.renderer,
        webhooks: &ctx.webhooks,
        work_dir: &work_dir,
    };
    let outcome = run_held(ctx, worker_id, kind, &job_ctx, &job, stop).await;
    let label = match &outcome {
        Outcome::Ran(_) => "done",
        Outcome::Failed(_) => "failed",
        Outcome::LeaseLost => "lease_lost",
        Outcome::HandBack => "handed_back",
    };
    let settled = match outcome {
        Outcome::Ran(ran) => settle_done(&ctx.state, &job, worker_id, ran)
            .await
            .map(drop),
        Outcome::Failed(failure) => settle_failure(&ctx.state, &job, worker_id, kind, &failure)
            .await
            .map(drop),
        Outcome::LeaseLost => {
            tracing::warn!(job = job.id, "lease lost; another worker owns the job now");
            Ok(())
        }
        Outcome::HandBack => queue::release(&ctx.state.db, &job, worker_id)
            .await
            .map(|_| tracing::info!(job = job.id, "shutting down: job handed back to the queue")),
    };
    if let Err(err) = settled {
        // The lease runs out and the job is rescued: it will be settled by the next attempt.
        tracing::warn!(job = job.id, error = %err, "could not record the job's outcome");
    }
    let _ = tokio::fs::remove_dir_all(&work_dir).await;
    ctx.state
        .metrics
        .record_job(job.kind.as_str(), label, started.elapsed());
}

/// Runs the kind's work while a heartbeat keeps the lease, until it ends, the lease is lost,
/// or a shutdown's grace period runs out.
async fn run_held<'k>(
    ctx: &Ctx,
    worker_id: &str,
    kind: &'k dyn AnyKind,
    job_ctx: &'k JobCtx<'k>,
    job: &'k Job,
    mut stop: watch::Receiver<bool>,
) -> Outcome<'k> {
    let (lost_tx, lost_rx) = tokio::sync::oneshot::channel::<()>();
    let heartbeat = {
        let db = ctx.state.db.clone();
        let (held, owner, lease, every) = (
            job.clone(),
            worker_id.to_owned(),
            ctx.settings.lease,
            ctx.settings.heartbeat,
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                match queue::heartbeat(&db, &held, &owner, lease).await {
                    Ok(true) => {}
                    Ok(false) => {
                        let _ = lost_tx.send(());
                        return;
                    }
                    Err(err) => tracing::warn!(job = held.id, error = %err, "heartbeat failed"),
                }
            }
        })
    };
    // Aborts the heartbeat however this function is left, a panic included: a heartbeat that
    // outlived its job would keep a dead job's lease alive forever.
    let _heartbeat = AbortOnDrop(heartbeat);
    let grace = ctx.settings.grace;
    let limit = kind.time_limit(ctx.settings.job_time_limit);
    let work = guarded(job.id, async {
        // Dropping the run at the limit drops its runner guard, which kills its ffmpeg.
        match tokio::time::timeout(limit, kind.run(job_ctx, job)).await {
            Ok(Ok(ran)) => Outcome::Ran(ran),
            Ok(Err(failure)) => Outcome::Failed(failure),
            Err(_) => Outcome::Failed(Failure::TimedOut(limit)),
        }
    });
    tokio::select! {
        outcome = work => outcome,
        _ = lost_rx => Outcome::LeaseLost,
        () = async move {
            let _ = stop.wait_for(|s| *s).await;
            tokio::time::sleep(grace).await;
        } => Outcome::HandBack,
    }
}

/// Runs a job's work so that a panic in it (a bug, never input: but a bug must cost one job,
/// not a worker slot) fails the job like any permanent failure.
async fn guarded<'k>(job_id: i64, work: impl Future<Output = Outcome<'k>>) -> Outcome<'k> {
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(job = job_id, panic = %what, "the job panicked; failing it");
            Outcome::Failed(Failure::Permanent(panicked()))
        })
}

fn panicked() -> JobError {
    render_failed("the video could not be rendered")
}

/// Aborts a task when dropped.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_panicking_job_fails_without_taking_the_slot_down() {
        let outcome = guarded(7, async { panic!("a bug in a job") }).await;
        match outcome {
            Outcome::Failed(failure) => {
                assert!(!failure.is_transient(), "a panic is not retried");
                assert_eq!(failure.job_error().code, "render_failed");
            }
            _ => panic!("a panic must end as a failed job"),
        }
        // The same slot runs the next job normally.
        assert!(matches!(
            guarded(8, async { Outcome::HandBack }).await,
            Outcome::HandBack
        ));
    }

    #[tokio::test]
    async fn the_heartbeat_stops_with_its_job_even_on_a_panic() {
        let beats = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&beats);
        let heartbeat = AbortOnDrop(tokio::spawn(async move {
            loop {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }));
        // The guard is dropped while a panic unwinds through the job's scope.
        let outcome = guarded(9, async move {
            let _heartbeat = heartbeat;
            tokio::time::sleep(Duration::from_millis(30)).await;
            panic!("a bug while the heartbeat runs");
        })
        .await;
        assert!(matches!(outcome, Outcome::Failed(_)));
        tokio::time::sleep(Duration::from_millis(20)).await;
        let after_abort = beats.load(Ordering::SeqCst);
        assert!(after_abort > 0, "the heartbeat ran while the job did");
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(
            beats.load(Ordering::SeqCst),
            after_abort,
            "the heartbeat kept beating after its job panicked"
        );
    }
}
