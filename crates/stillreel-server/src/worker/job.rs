//! One claimed job from claim to record: the heartbeat that keeps its lease while the work
//! runs, the per-job time limit, the panic guard, the shutdown hand-back. The work itself is
//! dispatched in `steps.rs`; the outcome (`outcome.rs`) is recorded by `settle.rs`.

use futures_util::FutureExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::Ctx;
use super::outcome::{Failure, Outcome, render_failed};
#[cfg(test)]
use super::outcome::Done;
use super::settle::settle;
use super::steps::process;
use crate::queue::{self, Job};

pub(super) async fn run_job(ctx: &Ctx, worker_id: &str, job: Job, mut stop: watch::Receiver<bool>) {
    let started = std::time::Instant::now();
    tracing::info!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), clip = job.clip_index, attempt = job.attempts, "job claimed");
    let (lost_tx, lost_rx) = tokio::sync::oneshot::channel::<()>();
    let heartbeat = {
        let db = ctx.db.clone();
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
    let heartbeat = AbortOnDrop(heartbeat);
    let work_dir = ctx.scratch.job_dir(job.id, job.attempts);
    let grace = ctx.settings.grace;
    let limit = ctx.settings.job_time_limit;
    let work = guarded(job.id, async {
        // Dropping the step at the limit drops its runner guard, which kills its ffmpeg.
        tokio::time::timeout(limit, process(ctx, &job, &work_dir))
            .await
            .unwrap_or(Outcome::Failed(Failure::TimedOut(limit)))
    });
    let outcome = tokio::select! {
        outcome = work => outcome,
        _ = lost_rx => Outcome::LeaseLost,
        () = async move {
            let _ = stop.wait_for(|s| *s).await;
            tokio::time::sleep(grace).await;
        } => Outcome::HandBack,
    };
    drop(heartbeat);
    let label = outcome_label(&outcome);
    if let Err(err) = settle(ctx, worker_id, &job, outcome).await {
        // The lease runs out and the job is rescued: it will be settled by the next attempt.
        tracing::warn!(job = job.id, error = %err, "could not record the job's outcome");
    }
    let _ = tokio::fs::remove_dir_all(&work_dir).await;
    ctx.state
        .metrics
        .record_job(job.kind.as_str(), label, started.elapsed());
}

/// How a job ended, for `stillreel_job_duration_seconds`.
fn outcome_label(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Done(_) | Outcome::Webhook(_) => "done",
        Outcome::Failed(_) => "failed",
        Outcome::LeaseLost => "lease_lost",
        Outcome::HandBack => "handed_back",
    }
}

/// Runs a job's work so that a panic in it (a bug, never input: but a bug must cost one job,
/// not a worker slot) fails the job like any permanent failure.
async fn guarded(job_id: i64, work: impl Future<Output = Outcome>) -> Outcome {
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
            Outcome::Failed(Failure::Permanent(render_failed(
                "the video could not be rendered",
            )))
        })
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
            guarded(8, async {
                Outcome::Done(Done::Nothing { branding: false })
            })
            .await,
            Outcome::Done(Done::Nothing { branding: false })
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
