//! The render job queue, in the `jobs` table of the same database as the videos.
//!
//! Life of a job: [`enqueue_in`] (inside the transaction that creates its video, or that records
//! the step before it, so no step is ever lost between two jobs) → [`claim`] by a worker,
//! which takes a lease with a fresh random token → [`heartbeat`] while it works, outside any
//! transaction → [`complete`] or [`fail`], each applied only if the job is still held under
//! that worker **and that token**. A worker that dies stops renewing its lease;
//! the sweep (`repo::sweep`) puts such jobs back (or fails them after `max_attempts`). Work is
//! therefore at-least-once: a job may run twice, so job handlers must be idempotent; the
//! token makes sure only the current claim's result is recorded.
//!
//! A `create_video` video is a graph of jobs: prepare → one clip job per image → stitch →
//! branding (`repo::graph` records each step; the step's kind, in `worker/kinds/`, queues the
//! next in the same transaction).
//!
//! Claiming is one atomic `UPDATE ... RETURNING`. On PostgreSQL the account and then its job
//! are chosen in `MATERIALIZED` CTEs with `FOR UPDATE SKIP LOCKED`, so concurrent workers
//! skip each other's rows instead of waiting, and the planner cannot inline the subquery and
//! lock more rows than the `LIMIT` (see `claim_postgres!`). On SQLite the claim runs in a `BEGIN IMMEDIATE` transaction: SQLite
//! has one writer at a time, so the select-then-update cannot interleave.
//!
//! Claiming is also fair across accounts: a job is taken only while its account has fewer
//! than the per-account cap running, and among runnable jobs the account with the fewest
//! running goes first, so one account's burst of slow jobs cannot hold every worker while
//! another account waits. Short jobs that finish a started video (stitch, branding, webhook
//! deliveries) come next, whoever they belong to; among the long ones (clips, prepares,
//! combines) the account served longest ago goes first (round robin), so an account's
//! retries and older queued jobs do not take every turn of a single worker either; within an
//! account, started videos finish first (see `runnable!`). The account is the video's; a job
//! without one counts as nobody's and is never held back. On PostgreSQL the claim locks the
//! chosen account's row and reads its running count (kept by triggers) under that lock, so
//! two workers can never both take an account's last free place, while claims of different
//! accounts do not wait for each other.

use std::time::Duration;

use uuid::Uuid;

mod claims;
mod kind;
mod leases;
mod new_jobs;
mod stats;

pub use claims::{claim, claim_fair, claim_in_lane};
pub use kind::{ClaimRank, JobKind, Lane, Makes};
pub use leases::{
    backoff, cancel_siblings_in, complete, complete_in, fail, fail_expired_in, fail_for_good_in,
    heartbeat, release, requeue_expired_in, retry_completed_in,
};
pub use new_jobs::{NewJob, enqueue, enqueue_in, enqueue_jobs};
pub use stats::{JobSummary, depth_by_kind, depth_by_state, graph_of_video, jobs_of_video};

/// States of a job; `/metrics` reports the queue depth by state. `cancelled`: a sibling of a
/// clip that failed for good, never to run.
pub const JOB_STATES: &[&str] = &["queued", "running", "done", "failed", "cancelled"];

/// The PostgreSQL channel [`enqueue`] notifies: a hint for idle workers to poll now. Polling
/// stays the truth (a notification can be missed while a listener reconnects).
pub const NOTIFY_CHANNEL: &str = "stillreel_jobs";

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub video_id: Uuid,
    pub kind: JobKind,
    /// The clip the job works on (a clip job renders it).
    pub clip_index: Option<usize>,
    /// Attempts so far, this one included.
    pub attempts: i32,
    pub max_attempts: i32,
    /// Millisecond timestamp at which the lease runs out unless renewed.
    pub lease_expires_at: i64,
    /// The random token of this claim. Every write for the job matches on it (and on the
    /// worker id), so a worker whose lease was taken over can never complete the job, even
    /// when the new claim is its own namesake's.
    pub token: String,
}

#[derive(sqlx::FromRow)]
struct JobRow {
    id: i64,
    video_id: Uuid,
    kind: String,
    clip_index: Option<i32>,
    attempts: i32,
    max_attempts: i32,
    lease_expires_at: Option<i64>,
    lease_token: Option<String>,
    claim_rank: i16,
    makes: Option<String>,
    lane: String,
}

impl From<JobRow> for Job {
    fn from(row: JobRow) -> Self {
        Job {
            id: row.id,
            video_id: row.video_id,
            kind: JobKind::from_stored(&row.kind, row.claim_rank, row.makes.as_deref(), &row.lane),
            clip_index: row.clip_index.and_then(|i| usize::try_from(i).ok()),
            attempts: row.attempts,
            max_attempts: row.max_attempts,
            lease_expires_at: row.lease_expires_at.unwrap_or_default(),
            token: row.lease_token.unwrap_or_default(),
        }
    }
}

/// `d` in milliseconds, saturating.
fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
