//! Adding jobs: the only SQL that writes a jobs row.

use uuid::Uuid;

use super::kind::JobKind;
use crate::db::{Backend, Batch, DbError, Tx, now_ms};

/// The PostgreSQL channel [`enqueue`] notifies: a hint for idle workers to poll now. Polling
/// stays the truth (a notification can be missed while a listener reconnects).
pub const NOTIFY_CHANNEL: &str = "stillreel_jobs";

/// Tells idle workers on PostgreSQL that a job was queued (delivered at commit, dropped on
/// rollback). Nothing on SQLite: one process, polling is enough.
fn notify_in(batch: &mut Batch) {
    batch
        .statement_on(Backend::Postgres, "SELECT pg_notify(?, '')")
        .bind(NOTIFY_CHANNEL);
}

/// A job to add to the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewJob {
    pub video_id: Uuid,
    pub kind: JobKind,
    /// The clip a job works on (a clip job renders it).
    pub clip_index: Option<usize>,
    /// The attempt limit; `None`: the table's default (3).
    pub max_attempts: Option<i32>,
}

impl NewJob {
    pub fn new(video_id: Uuid, kind: JobKind) -> Self {
        Self {
            video_id,
            kind,
            clip_index: None,
            max_attempts: None,
        }
    }

    /// This job, working on clip `index` of its video.
    pub fn for_clip(self, index: usize) -> Self {
        Self {
            clip_index: Some(index),
            ..self
        }
    }

    /// With its own attempt limit (webhook deliveries retry on their own schedule).
    pub fn with_max_attempts(self, max_attempts: i32) -> Self {
        Self {
            max_attempts: Some(max_attempts),
            ..self
        }
    }
}

/// Adds `jobs`, runnable from `now`, to `batch`: the jobs rows (one multi-row insert for the
/// jobs with the default attempt limit) and the wake-up for idle workers. Every job of the
/// service is queued through here, whether in a new video's batch or by a step that queues
/// the next ones, so this is the only SQL that writes a jobs row.
pub fn enqueue_in(batch: &mut Batch, jobs: &[NewJob], now: i64) {
    let row = |batch: &mut Batch, job: &NewJob| {
        batch
            .bind(job.video_id)
            .bind(job.kind.as_str())
            .bind(Some(i32::from(job.kind.claim_rank().value())))
            .bind(job.kind.makes().stored())
            .bind(job.kind.lane().stored())
            .bind(job.clip_index.map(|i| i32::try_from(i).unwrap_or(i32::MAX)));
    };
    let (limited, default): (Vec<&NewJob>, Vec<&NewJob>) =
        jobs.iter().partition(|job| job.max_attempts.is_some());
    if !default.is_empty() {
        batch.statement(
            "INSERT INTO jobs (video_id, kind, claim_rank, makes, lane, clip_index, state, run_after,
                               created_at, updated_at)
             VALUES ",
        );
        for (n, job) in default.into_iter().enumerate() {
            batch.sql(if n == 0 { "" } else { ", " });
            batch.sql("(?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)");
            row(batch, job);
            batch.bind(now).bind(now).bind(now);
        }
    }
    for job in limited {
        batch.statement(
            "INSERT INTO jobs (video_id, kind, claim_rank, makes, lane, clip_index, state,
                               max_attempts, run_after, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)",
        );
        row(batch, job);
        batch.bind(job.max_attempts).bind(now).bind(now).bind(now);
    }
    if !jobs.is_empty() {
        notify_in(batch);
    }
}

/// Adds `jobs` inside `tx`, in one round trip on SQLite.
pub async fn enqueue_jobs(tx: &mut Tx, jobs: &[NewJob]) -> Result<(), DbError> {
    let mut batch = Batch::new();
    enqueue_in(&mut batch, jobs, now_ms());
    batch.run(tx).await
}

/// Adds a runnable job for `video_id` inside `tx`.
pub async fn enqueue(tx: &mut Tx, video_id: Uuid, kind: JobKind) -> Result<(), DbError> {
    enqueue_jobs(tx, &[NewJob::new(video_id, kind)]).await
}
