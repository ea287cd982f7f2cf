//! The loops a worker process runs besides its jobs' own tasks: the job loops that claim
//! and run one job at a time, the lease rescuer, and (on PostgreSQL) the listener whose
//! notifications wake idle job loops early.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};

use super::ctx::Ctx;
use super::runner::run_job;
use crate::queue;

/// Listens for [`queue::NOTIFY_CHANNEL`] and wakes the idle loops. Only a hint: a lost
/// connection is reopened after a pause, and the loops keep polling meanwhile.
pub(super) async fn listen_loop(
    pool: sqlx::PgPool,
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        match sqlx::postgres::PgListener::connect_with(&pool).await {
            Ok(mut listener) => match listener.listen(queue::NOTIFY_CHANNEL).await {
                Ok(()) => loop {
                    tokio::select! {
                        note = listener.recv() => match note {
                            Ok(_) => wake.notify_waiters(),
                            Err(err) => {
                                tracing::debug!(error = %err, "job notifications interrupted");
                                break;
                            }
                        },
                        _ = stop.changed() => return,
                    }
                },
                Err(err) => tracing::debug!(error = %err, "cannot listen for job notifications"),
            },
            Err(err) => tracing::debug!(error = %err, "cannot listen for job notifications"),
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = stop.changed() => return,
        }
    }
}

pub(super) async fn rescue_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(ctx.settings.requeue_every);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        match crate::repo::sweep::expired_leases(&ctx.state.db).await {
            Ok(0) => {}
            Ok(n) => {
                ctx.state.metrics.record_lease_expiries(n);
                tracing::warn!(jobs = n, "put back jobs whose worker lease expired");
            }
            Err(err) => tracing::warn!(error = %err, "lease rescue failed"),
        }
        if let Err(err) = super::orphans::sweep(&ctx.state).await {
            tracing::warn!(error = %err, "orphan sweep failed");
        }
    }
}

/// Claims and runs jobs of `lane`, one at a time, until `stop`.
pub(super) async fn job_loop(
    ctx: Arc<Ctx>,
    mut stop: watch::Receiver<bool>,
    n: usize,
    lane: queue::Lane,
) {
    let worker_id = match lane {
        queue::Lane::Render => format!("{}/{n}", ctx.node),
        queue::Lane::Model => format!("{}/model-{n}", ctx.node),
    };
    while !*stop.borrow() {
        let cap = ctx.settings.account_max_running;
        let asked = std::time::Instant::now();
        let claimed =
            queue::claim_in_lane(&ctx.state.db, &worker_id, ctx.settings.lease, cap, lane).await;
        if let Ok(job) = &claimed {
            ctx.state
                .metrics
                .record_claim(asked.elapsed(), job.is_some());
        }
        match claimed {
            Ok(Some(job)) => run_job(&ctx, &worker_id, job, stop.clone()).await,
            Ok(None) => {
                tokio::select! {
                    () = tokio::time::sleep(ctx.settings.idle_poll) => {}
                    () = ctx.wake.notified() => {}
                    _ = stop.changed() => {}
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "claiming a job failed");
                tokio::time::sleep(ctx.settings.idle_poll * 4).await;
            }
        }
    }
}
