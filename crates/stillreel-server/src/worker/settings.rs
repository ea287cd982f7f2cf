//! How the worker loops are timed and sized, from the configuration.

use std::time::Duration;

use stillreel_render::RenderConfig;

use crate::config::Config;

/// How long running renders may go on after SIGTERM before they are handed back to the queue.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// Timing of the worker loops.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Job loops in this process (`STILLREEL_WORKERS`; 0 = none).
    pub workers: usize,
    /// Loops that only run model calls (`STILLREEL_PROVIDER_CONCURRENCY`), started beside the
    /// render loops when `workers` is not 0 and the renderer has a provider role: a call
    /// waiting on a model host holds none of the `workers` render slots.
    pub model_workers: usize,
    /// Lease taken on a job (`STILLREEL_JOB_LEASE_SECS`).
    pub lease: Duration,
    /// How often a running job's lease is renewed (a third of the lease).
    pub heartbeat: Duration,
    /// How often expired leases are put back in the queue (half the lease, at most 15 s):
    /// a crashed process's jobs run again within lease + this, under a minute by default.
    pub requeue_every: Duration,
    /// Pause between polls of an empty queue.
    pub idle_poll: Duration,
    /// See [`SHUTDOWN_GRACE`].
    pub grace: Duration,
    /// Jobs of one account running at once (`STILLREEL_ACCOUNT_MAX_RUNNING`).
    pub account_max_running: usize,
    /// Wall time one job may take before it is stopped (its ffmpeg killed) and retried: the
    /// runner's per-run limit covers one ffmpeg; this covers a whole step (downloads,
    /// provider calls, several runs).
    pub job_time_limit: Duration,
}

impl WorkerSettings {
    pub fn from_config(config: &Config) -> Self {
        let lease = Duration::from_secs(config.job_lease_secs.max(3));
        WorkerSettings {
            workers: config.workers,
            model_workers: config.provider_concurrency,
            lease,
            heartbeat: lease / 3,
            requeue_every: (lease / 2).clamp(Duration::from_secs(1), Duration::from_secs(15)),
            idle_poll: Duration::from_millis(500),
            grace: SHUTDOWN_GRACE,
            account_max_running: config.limits.account_max_running,
            job_time_limit: config.limits.fetch_deadline
                + RenderConfig::default().step_time_limit * 2,
        }
    }
}
