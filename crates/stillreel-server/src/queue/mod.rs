//! The render job queue, in the `jobs` table of the same database as the videos.
//!
//! Life of a job: [`enqueue_in`] (inside the transaction that creates its video, or that records
//! the step before it, so no step is ever lost between two jobs) → [`claim_in_lane`] by a
//! worker's loop of that lane ([`claim`] and [`claim_fair`] are the render lane's), which
//! takes a lease with a fresh random token → [`heartbeat`] while it works, outside any
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

mod claims;
mod job;
mod kind;
mod leases;
mod new_jobs;
mod stats;

pub use claims::{claim, claim_fair, claim_in_lane};
pub use job::Job;
pub use kind::{ClaimRank, JobKind, Lane, Makes};
pub use leases::{
    backoff, cancel_siblings_in, complete, complete_in, fail, fail_expired_in, fail_for_good_in,
    heartbeat, release, requeue_expired_in, retry_completed_in,
};
pub use new_jobs::{NOTIFY_CHANNEL, NewJob, enqueue, enqueue_in, enqueue_jobs};
pub use stats::{
    JOB_STATES, JobSummary, depth_by_kind, depth_by_state, graph_of_video, jobs_of_video,
};
