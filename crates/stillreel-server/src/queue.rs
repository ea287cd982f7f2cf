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
//! branding (`repo::graph` records each step and queues the next in one transaction).
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

use crate::db::{Backend, Batch, Db, DbError, Tx, now_ms, on_tx};

/// What a job does. A `create_video` video is a small graph of jobs (see `docs/RENDER.md`):
/// [`JobKind::Prepare`] → one [`JobKind::Clip`] per image → [`JobKind::Stitch`] →
/// [`JobKind::Branding`]. Any worker takes any job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// The single render job of before the job graph; a queued one runs as a prepare.
    Render,
    /// Fetch and check every input of a video once and store the checked copies.
    Prepare,
    /// Render one clip (its index in `Job::clip_index`) from its stored input.
    Clip,
    /// Join a video's clips, in index order, and mix its music or silence.
    Stitch,
    /// Join the existing clips of a `combine_video_clips` video.
    Combine,
    /// Render the branded version of a completed video.
    Branding,
    /// Deliver the webhook event of a settled video (`webhook.rs`).
    VideoWebhook,
    /// Deliver the webhook event of a settled branded render.
    BrandingWebhook,
}

impl JobKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            JobKind::Render => "render",
            JobKind::Prepare => "prepare",
            JobKind::Clip => "clip",
            JobKind::Stitch => "stitch",
            JobKind::Combine => "combine",
            JobKind::Branding => "branding",
            JobKind::VideoWebhook => "video_webhook",
            JobKind::BrandingWebhook => "branding_webhook",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "render" => Some(JobKind::Render),
            "prepare" => Some(JobKind::Prepare),
            "clip" => Some(JobKind::Clip),
            "stitch" => Some(JobKind::Stitch),
            "combine" => Some(JobKind::Combine),
            "branding" => Some(JobKind::Branding),
            "video_webhook" => Some(JobKind::VideoWebhook),
            "branding_webhook" => Some(JobKind::BrandingWebhook),
            _ => None,
        }
    }
}

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
    /// The clip a [`JobKind::Clip`] job renders.
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
}

impl TryFrom<JobRow> for Job {
    type Error = DbError;
    fn try_from(row: JobRow) -> Result<Self, DbError> {
        Ok(Job {
            id: row.id,
            video_id: row.video_id,
            kind: JobKind::parse(&row.kind)
                .ok_or_else(|| DbError::Corrupt(format!("job kind {:?}", row.kind)))?,
            clip_index: row.clip_index.and_then(|i| usize::try_from(i).ok()),
            attempts: row.attempts,
            max_attempts: row.max_attempts,
            lease_expires_at: row.lease_expires_at.unwrap_or_default(),
            token: row.lease_token.unwrap_or_default(),
        })
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A fresh lease token: 128 random bits in hex, usable inside a storage key.
fn new_token() -> String {
    Uuid::new_v4().simple().to_string()
}

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
    /// The clip a [`JobKind::Clip`] job renders.
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

    /// The job of clip `index` of `video_id`.
    pub fn clip(video_id: Uuid, index: usize) -> Self {
        Self {
            clip_index: Some(index),
            ..Self::new(video_id, JobKind::Clip)
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
            .bind(job.clip_index.map(|i| i32::try_from(i).unwrap_or(i32::MAX)));
    };
    let (limited, default): (Vec<&NewJob>, Vec<&NewJob>) =
        jobs.iter().partition(|job| job.max_attempts.is_some());
    if !default.is_empty() {
        batch.statement(
            "INSERT INTO jobs (video_id, kind, clip_index, state, run_after, created_at, updated_at)
             VALUES ",
        );
        for (n, job) in default.into_iter().enumerate() {
            batch.sql(if n == 0 { "" } else { ", " });
            batch.sql("(?, ?, ?, 'queued', ?, ?, ?)");
            row(batch, job);
            batch.bind(now).bind(now).bind(now);
        }
    }
    for job in limited {
        batch.statement(
            "INSERT INTO jobs (video_id, kind, clip_index, state, max_attempts, run_after,
                               created_at, updated_at)
             VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)",
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

/// [`enqueue`] with its own attempt limit (webhook deliveries retry on their own schedule).
pub async fn enqueue_with_max_attempts(
    tx: &mut Tx,
    video_id: Uuid,
    kind: JobKind,
    max_attempts: i32,
) -> Result<(), DbError> {
    enqueue_jobs(
        tx,
        &[NewJob::new(video_id, kind).with_max_attempts(max_attempts)],
    )
    .await
}

/// Running jobs per account, and the first runnable job of an account under `$4`, fewest
/// running first. Then the short jobs that finish a started video (stitch, branding, webhook
/// deliveries); then the account served longest ago (round robin: [`TAKE_TURN`] stamps the
/// account at each claim); within an account clips before prepares and combines, the older
/// video first, a video's clips in index order. SQLite's claim; PostgreSQL's
/// (`claim_postgres!`) takes the same order in two indexed steps. A macro so the statement
/// stays a literal.
macro_rules! runnable {
    () => {
        "
    WITH running AS (
        SELECT v.account_id, COUNT(*) AS n
        FROM jobs r JOIN videos v ON v.id = r.video_id
        WHERE r.state = 'running'
        GROUP BY v.account_id
    )
    SELECT j.id FROM jobs j
    LEFT JOIN videos jv ON jv.id = j.video_id
    LEFT JOIN accounts ja ON ja.id = jv.account_id
    LEFT JOIN running ON running.account_id = jv.account_id
    WHERE j.state = 'queued' AND j.run_after <= $3 AND COALESCE(running.n, 0) < $4
    ORDER BY COALESCE(running.n, 0),
             CASE j.kind WHEN 'clip' THEN 1 WHEN 'prepare' THEN 1 WHEN 'render' THEN 1
                         WHEN 'combine' THEN 1 ELSE 0 END,
             COALESCE(ja.last_claim_at, 0),
             CASE j.kind WHEN 'clip' THEN 1 WHEN 'prepare' THEN 2 WHEN 'render' THEN 2
                         WHEN 'combine' THEN 2 ELSE 0 END,
             jv.created_at, COALESCE(j.clip_index, 0), j.run_after, j.id
    LIMIT 1"
    };
}

const CLAIM_SQLITE: &str = concat!(
    "UPDATE jobs
     SET state = 'running', attempts = attempts + 1, lease_owner = $1, lease_expires_at = $2,
         lease_token = $5, updated_at = $3
     WHERE id = (",
    runnable!(),
    ")
     RETURNING id, video_id, kind, clip_index, attempts, max_attempts, lease_expires_at, lease_token"
);

/// The PostgreSQL claim, in the same order as [`runnable!`] but in two steps that each walk an
/// index (migration `0006_claim_by_account.sql`): first the account (fewest running, one with
/// a finishing job waiting, served longest ago), its row locked for the statement's
/// transaction; then that account's next job in job order. The account's counts are kept by
/// triggers, so `jobs_running < $4` read under the row lock is exact: two claims can never
/// both take an account's last free place, and claims of different accounts run side by
/// side. `$lock` is `SKIP LOCKED` for the first try (take another account than the one a claim
/// in flight holds) and empty for the second (wait for it: when every account with work is
/// held, waiting briefly beats going back to sleep with work in the queue).
macro_rules! claim_postgres {
    ($lock:literal) => {
        concat!(
            "WITH acct AS MATERIALIZED (
                SELECT a.id FROM accounts a
                WHERE a.jobs_queued > 0 AND a.jobs_running < $4
                  AND EXISTS (SELECT 1 FROM jobs q WHERE q.account_id = a.id
                              AND q.state = 'queued' AND q.run_after <= $3)
                ORDER BY a.jobs_running,
                         NOT EXISTS (SELECT 1 FROM jobs f WHERE f.account_id = a.id
                                     AND f.state = 'queued' AND f.claim_rank = 0
                                     AND f.run_after <= $3),
                         COALESCE(a.last_claim_at, 0), a.id
                LIMIT 1
                FOR UPDATE ",
            $lock,
            "), next AS MATERIALIZED (
                SELECT j.id FROM jobs j JOIN acct ON j.account_id = acct.id
                WHERE j.state = 'queued' AND j.run_after <= $3
                ORDER BY j.claim_rank, j.video_created_at, j.clip_index, j.run_after, j.id
                LIMIT 1
                FOR UPDATE OF j SKIP LOCKED
            )
            UPDATE jobs
            SET state = 'running', attempts = jobs.attempts + 1, lease_owner = $1,
                lease_expires_at = $2, lease_token = $5, updated_at = $3
            FROM next
            WHERE jobs.id = next.id
            RETURNING jobs.id, jobs.video_id, jobs.kind, jobs.clip_index, jobs.attempts,
                      jobs.max_attempts, jobs.lease_expires_at, jobs.lease_token"
        )
    };
}

const CLAIM_POSTGRES_SKIP: &str = claim_postgres!("SKIP LOCKED");
const CLAIM_POSTGRES_WAIT: &str = claim_postgres!("");

/// Stamps the claimed job's account with the claim time, in the claim's transaction, so the
/// next claim serves another account first (SQLite; on PostgreSQL a trigger does it).
const TAKE_TURN: &str = "UPDATE accounts SET last_claim_at = $1
     WHERE id = (SELECT account_id FROM videos WHERE id = $2)";

/// Takes the next runnable job for `worker_id` with a lease of `lease`, or `None` when the
/// queue has nothing runnable. Commits at once: the work happens outside any transaction.
/// No per-account cap; see [`claim_fair`].
pub async fn claim(db: &Db, worker_id: &str, lease: Duration) -> Result<Option<Job>, DbError> {
    claim_fair(db, worker_id, lease, usize::MAX).await
}

/// Like [`claim`], taking only jobs of accounts with fewer than `per_account` running and
/// preferring the account with the fewest running (see the module doc).
pub async fn claim_fair(
    db: &Db,
    worker_id: &str,
    lease: Duration,
    per_account: usize,
) -> Result<Option<Job>, DbError> {
    let now = now_ms();
    let expires = now.saturating_add(ms(lease));
    let cap = i64::try_from(per_account).unwrap_or(i64::MAX);
    let token = new_token();
    let row: Option<JobRow> = match db {
        Db::Sqlite { write, .. } => {
            let mut tx = write.begin_with("BEGIN IMMEDIATE").await?;
            let row: Option<JobRow> = sqlx::query_as(CLAIM_SQLITE)
                .bind(worker_id)
                .bind(expires)
                .bind(now)
                .bind(cap)
                .bind(&token)
                .fetch_optional(&mut *tx)
                .await?;
            if let Some(row) = &row {
                sqlx::query(TAKE_TURN)
                    .bind(now)
                    .bind(row.video_id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            row
        }
        Db::Postgres(pool) => {
            let mut tx = pool.begin().await?;
            // A claim need not wait for its WAL flush. If the database crashes before the
            // flush, the claim is lost: the job is back as it was (queued), and the worker's
            // first heartbeat or its completion, which must match this claim's token, finds it
            // gone and drops the work, as after a lost lease. Nothing else is written in this
            // transaction, and every later synchronous commit flushes it anyway. That halves
            // the fsyncs of a claim + completion.
            sqlx::query("SET LOCAL synchronous_commit = off")
                .execute(&mut *tx)
                .await?;
            let mut row = None;
            // Both tries in one transaction: an idle poll costs one round of BEGIN/COMMIT.
            for claim in [CLAIM_POSTGRES_SKIP, CLAIM_POSTGRES_WAIT] {
                row = sqlx::query_as(claim)
                    .bind(worker_id)
                    .bind(expires)
                    .bind(now)
                    .bind(cap)
                    .bind(&token)
                    .fetch_optional(&mut *tx)
                    .await?;
                if row.is_some() {
                    break;
                }
            }
            tx.commit().await?;
            row
        }
    };
    row.map(Job::try_from).transpose()
}

/// Runs one statement on the writer and returns the number of rows it changed.
macro_rules! write {
    ($db:expr, $query:expr) => {{
        let result = match $db {
            Db::Sqlite { write, .. } => $query.execute(write).await?.rows_affected(),
            Db::Postgres(pool) => $query.execute(pool).await?.rows_affected(),
        };
        result
    }};
}

/// The condition every write for a held job carries: still running, under this claim.
const HELD: &str = "state = 'running' AND lease_owner = $3 AND lease_token = $4";

/// Renews the lease of `job`, which `worker_id` claimed. `false`: the lease was lost (expired
/// and requeued or taken by another claim): stop working on the job.
pub async fn heartbeat(
    db: &Db,
    job: &Job,
    worker_id: &str,
    lease: Duration,
) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = write!(
        db,
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE jobs SET lease_expires_at = $1, updated_at = $5
             WHERE id = $2 AND {HELD} AND lease_expires_at >= $5"
        )))
        .bind(now.saturating_add(ms(lease)))
        .bind(job.id)
        .bind(worker_id)
        .bind(&job.token)
        .bind(now)
    );
    Ok(changed == 1)
}

/// Marks `job` done, if `worker_id` still holds it under its claim. `false`: the lease was lost.
pub async fn complete(db: &Db, job: &Job, worker_id: &str) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    let done = complete_in(&mut tx, job, worker_id).await?;
    tx.commit().await?;
    Ok(done)
}

/// [`complete`] inside `tx`, beside the writes that record the job's result: they commit
/// only together. `false`: the lease was lost (roll back).
pub async fn complete_in(tx: &mut Tx, job: &Job, worker_id: &str) -> Result<bool, DbError> {
    let changed = on_tx!(tx, conn => sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL,
             updated_at = $1
         WHERE id = $2 AND {HELD}"
    )))
    .bind(now_ms())
    .bind(job.id)
    .bind(worker_id)
    .bind(&job.token)
    .execute(conn)
    .await?
    .rows_affected());
    Ok(changed == 1)
}

/// Records a failed attempt, if `worker_id` still holds the job. With `retry_after` and
/// attempts left, the job runs again after that delay; otherwise it is `failed` for good.
/// `false`: the lease was lost.
pub async fn fail(
    db: &Db,
    job: &Job,
    worker_id: &str,
    error: &str,
    retry_after: Option<Duration>,
) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = match retry_after {
        Some(delay) => write!(
            db,
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE jobs
                 SET state = CASE WHEN attempts < max_attempts THEN 'queued' ELSE 'failed' END,
                     run_after = $1, last_error = $5, lease_owner = NULL, lease_expires_at = NULL,
                     lease_token = NULL, updated_at = $6
                 WHERE id = $2 AND {HELD}"
            )))
            .bind(now.saturating_add(ms(delay)))
            .bind(job.id)
            .bind(worker_id)
            .bind(&job.token)
            .bind(error)
            .bind(now)
        ),
        None => {
            let mut tx = db.begin().await?;
            let changed = fail_for_good_in(&mut tx, job, worker_id, error).await?;
            tx.commit().await?;
            u64::from(changed)
        }
    };
    Ok(changed == 1)
}

/// Fails a job for good inside `tx`, if `worker_id` still holds it; the caller settles the
/// job's video or branding in the same transaction, so no crash can leave a failed job
/// beside a record still `in_progress`. `false`: the lease was lost (roll back).
pub async fn fail_for_good_in(
    tx: &mut Tx,
    job: &Job,
    worker_id: &str,
    error: &str,
) -> Result<bool, DbError> {
    let changed = on_tx!(tx, conn => sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE jobs
         SET state = 'failed', last_error = $5, lease_owner = NULL, lease_expires_at = NULL,
             lease_token = NULL, updated_at = $1
         WHERE id = $2 AND {HELD}"
    )))
    .bind(now_ms())
    .bind(job.id)
    .bind(worker_id)
    .bind(&job.token)
    .bind(error)
    .execute(conn)
    .await?
    .rows_affected());
    Ok(changed == 1)
}

/// Cancels the queued jobs that make `video_id` (its clips and stitch) inside `tx`: one of
/// them failed for good, so the video failed and they would render for nothing. Running
/// ones finish on their own and change nothing (their video is no longer in progress).
pub async fn cancel_siblings_in(tx: &mut Tx, video_id: Uuid) -> Result<u64, DbError> {
    let n = on_tx!(tx, conn => sqlx::query(
        "UPDATE jobs SET state = 'cancelled', last_error = 'a sibling job failed', updated_at = $1
         WHERE video_id = $2 AND state = 'queued'
           AND kind IN ('render', 'prepare', 'clip', 'stitch', 'combine')",
    )
    .bind(now_ms())
    .bind(video_id)
    .execute(conn)
    .await?
    .rows_affected());
    Ok(n)
}

/// Hands a job back to the queue without counting the attempt (a worker shutting down before
/// it finished), if `worker_id` still holds it. `false`: the lease was lost.
pub async fn release(db: &Db, job: &Job, worker_id: &str) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = write!(
        db,
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE jobs
             SET state = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
                 run_after = $1, last_error = 'released at shutdown', lease_owner = NULL,
                 lease_expires_at = NULL, lease_token = NULL, updated_at = $1
             WHERE id = $2 AND {HELD}"
        )))
        .bind(now)
        .bind(job.id)
        .bind(worker_id)
        .bind(&job.token)
    );
    Ok(changed == 1)
}

/// Exponential back-off for retry `attempt` (1-based): 10 s, 40 s, 160 s, ... capped at 1 h.
pub fn backoff(attempt: i32) -> Duration {
    let exp = u32::try_from(attempt.saturating_sub(1))
        .unwrap_or(0)
        .min(10);
    Duration::from_secs(10u64.saturating_mul(4u64.saturating_pow(exp)).min(3600))
}

/// Marks `failed` the running jobs whose lease ran out and that used all their attempts, in
/// `tx`; returns how many. The sweep (`repo::sweep`) ends their records in the same
/// transaction.
pub async fn fail_expired_in(tx: &mut Tx, now: i64) -> Result<u64, DbError> {
    Ok(on_tx!(tx, conn => sqlx::query(
        "UPDATE jobs SET state = 'failed', last_error = 'lease expired', lease_owner = NULL,
             lease_expires_at = NULL, lease_token = NULL, updated_at = $1
         WHERE state = 'running' AND lease_expires_at < $1 AND attempts >= max_attempts",
    )
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected()))
}

/// Puts the running jobs whose lease ran out (before `now`) back in the queue; returns how
/// many. Run after [`fail_expired_in`], which takes those out of attempts.
pub async fn requeue_expired(db: &Db, now: i64) -> Result<u64, DbError> {
    Ok(write!(
        db,
        sqlx::query(
            "UPDATE jobs SET state = 'queued', last_error = 'lease expired', lease_owner = NULL,
                 lease_expires_at = NULL, lease_token = NULL, run_after = $1, updated_at = $1
             WHERE state = 'running' AND lease_expires_at < $1",
        )
        .bind(now)
    ))
}

/// Number of jobs in each state, every state of [`JOB_STATES`] included (zero when empty).
pub async fn depth_by_state(db: &Db) -> Result<Vec<(&'static str, i64)>, DbError> {
    let rows: Vec<(String, i64)> = crate::db::on_db!(db, pool => {
        sqlx::query_as("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetch_all(pool).await?
    });
    Ok(JOB_STATES
        .iter()
        .map(|&state| {
            (
                state,
                rows.iter().find(|(s, _)| s == state).map_or(0, |(_, n)| *n),
            )
        })
        .collect())
}

/// Jobs still to do (`queued`, `running`) by kind and state, for `/metrics`. Kinds as
/// stored, so a kind this build does not know still shows.
pub async fn depth_by_kind(db: &Db) -> Result<Vec<(String, String, i64)>, DbError> {
    let rows: Vec<(String, String, i64)> = crate::db::on_db!(db, pool => {
        sqlx::query_as(
            "SELECT kind, state, COUNT(*) FROM jobs WHERE state IN ('queued', 'running')
             GROUP BY kind, state ORDER BY kind, state",
        )
        .fetch_all(pool)
        .await?
    });
    Ok(rows)
}

/// The state and last error of every job of a video, oldest first (tests and diagnostics).
pub async fn jobs_of_video(
    db: &Db,
    video_id: Uuid,
) -> Result<Vec<(JobKind, String, Option<String>)>, DbError> {
    Ok(graph_of_video(db, video_id)
        .await?
        .into_iter()
        .map(|j| (j.kind, j.state, j.last_error))
        .collect())
}

/// One job of a video as [`graph_of_video`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSummary {
    pub id: i64,
    pub kind: JobKind,
    pub clip_index: Option<usize>,
    pub state: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// Every job of a video, oldest first, with its clip index and times (tests, diagnostics).
pub async fn graph_of_video(db: &Db, video_id: Uuid) -> Result<Vec<JobSummary>, DbError> {
    type Row = (
        i64,
        String,
        Option<i32>,
        String,
        i32,
        Option<String>,
        i64,
        i64,
    );
    let rows: Vec<Row> = crate::db::on_db!(db, pool => {
        sqlx::query_as(
            "SELECT id, kind, clip_index, state, attempts, last_error, created_at, updated_at
             FROM jobs WHERE video_id = $1 ORDER BY id",
        )
        .bind(video_id)
        .fetch_all(pool)
        .await?
    });
    rows.into_iter()
        .map(
            |(id, kind, clip_index, state, attempts, last_error, created_at, updated_at)| {
                Ok(JobSummary {
                    id,
                    kind: JobKind::parse(&kind)
                        .ok_or_else(|| DbError::Corrupt(format!("job kind {kind:?}")))?,
                    clip_index: clip_index.and_then(|i| usize::try_from(i).ok()),
                    state,
                    attempts,
                    last_error,
                    created_at,
                    updated_at,
                })
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_caps() {
        assert_eq!(backoff(1), Duration::from_secs(10));
        assert_eq!(backoff(2), Duration::from_secs(40));
        assert_eq!(backoff(3), Duration::from_secs(160));
        assert_eq!(backoff(50), Duration::from_secs(3600));
        assert_eq!(backoff(0), Duration::from_secs(10));
    }

    #[test]
    fn kinds_round_trip() {
        for kind in [
            JobKind::Render,
            JobKind::Prepare,
            JobKind::Clip,
            JobKind::Stitch,
            JobKind::Combine,
            JobKind::Branding,
            JobKind::VideoWebhook,
            JobKind::BrandingWebhook,
        ] {
            assert_eq!(JobKind::parse(kind.as_str()), Some(kind));
        }
    }
}
