//! The render job queue, in the `jobs` table of the same database as the videos.
//!
//! Life of a job: [`enqueue`] (inside the transaction that creates its video, so a video
//! never exists without its job) → [`claim`] by a worker, which takes a lease → [`heartbeat`]
//! while it works, outside any transaction → [`complete`] or [`fail`], each applied only if
//! the worker still holds the lease. A worker that dies stops renewing its lease;
//! [`requeue_expired`] puts such jobs back (or fails them after `max_attempts`). Work is
//! therefore at-least-once: a job may run twice, so job handlers must be idempotent.
//!
//! Claiming is one atomic `UPDATE ... RETURNING`. On PostgreSQL the candidate row is chosen in
//! a `MATERIALIZED` CTE with `FOR UPDATE SKIP LOCKED`, so concurrent workers skip each other's
//! rows instead of waiting, and the planner cannot inline the subquery and lock more rows
//! than the `LIMIT`. On SQLite the claim runs in a `BEGIN IMMEDIATE` transaction: SQLite
//! has one writer at a time, so the select-then-update cannot interleave.
//!
//! Claiming is also fair across accounts: a job is taken only while its account has fewer
//! than the per-account cap running, and among runnable jobs the account with the fewest
//! running goes first (oldest job first within that), so one account's burst of slow jobs
//! cannot hold every worker while another account waits. The account is the video's; a job
//! without one counts as nobody's and is never held back. On PostgreSQL two workers could
//! each see an account under its cap and both take one of its jobs, so the claim locks the
//! chosen job's *account* (a transaction-scoped advisory lock) and counts its running jobs
//! again before taking the job: claims of one account queue behind each other, claims of
//! different accounts do not (see [`claim_fair`]).

use std::time::Duration;

use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_tx};

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Render the clips of a `create_video` video and join them.
    Render,
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
            JobKind::Combine => "combine",
            JobKind::Branding => "branding",
            JobKind::VideoWebhook => "video_webhook",
            JobKind::BrandingWebhook => "branding_webhook",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "render" => Some(JobKind::Render),
            "combine" => Some(JobKind::Combine),
            "branding" => Some(JobKind::Branding),
            "video_webhook" => Some(JobKind::VideoWebhook),
            "branding_webhook" => Some(JobKind::BrandingWebhook),
            _ => None,
        }
    }
}

/// States of a job; `/metrics` reports the queue depth by state.
pub const JOB_STATES: &[&str] = &["queued", "running", "done", "failed"];

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub video_id: Uuid,
    pub kind: JobKind,
    /// Attempts so far, this one included.
    pub attempts: i32,
    pub max_attempts: i32,
    /// Millisecond timestamp at which the lease runs out unless renewed.
    pub lease_expires_at: i64,
}

#[derive(sqlx::FromRow)]
struct JobRow {
    id: i64,
    video_id: Uuid,
    kind: String,
    attempts: i32,
    max_attempts: i32,
    lease_expires_at: Option<i64>,
}

impl TryFrom<JobRow> for Job {
    type Error = DbError;
    fn try_from(row: JobRow) -> Result<Self, DbError> {
        Ok(Job {
            id: row.id,
            video_id: row.video_id,
            kind: JobKind::parse(&row.kind)
                .ok_or_else(|| DbError::Corrupt(format!("job kind {:?}", row.kind)))?,
            attempts: row.attempts,
            max_attempts: row.max_attempts,
            lease_expires_at: row.lease_expires_at.unwrap_or_default(),
        })
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Adds a runnable job for `video_id` inside `tx`; returns its id.
pub async fn enqueue(tx: &mut Tx, video_id: Uuid, kind: JobKind) -> Result<i64, DbError> {
    let now = now_ms();
    let id: i64 = on_tx!(tx, conn => sqlx::query_scalar(
        "INSERT INTO jobs (video_id, kind, state, run_after, created_at, updated_at)
         VALUES ($1, $2, 'queued', $3, $3, $3) RETURNING id",
    )
    .bind(video_id)
    .bind(kind.as_str())
    .bind(now)
    .fetch_one(conn)
    .await?);
    Ok(id)
}

/// [`enqueue`] with its own attempt limit (webhook deliveries retry on their own schedule).
pub async fn enqueue_with_max_attempts(
    tx: &mut Tx,
    video_id: Uuid,
    kind: JobKind,
    max_attempts: i32,
) -> Result<i64, DbError> {
    let now = now_ms();
    let id: i64 = on_tx!(tx, conn => sqlx::query_scalar(
        "INSERT INTO jobs (video_id, kind, state, max_attempts, run_after, created_at, updated_at)
         VALUES ($1, $2, 'queued', $3, $4, $4, $4) RETURNING id",
    )
    .bind(video_id)
    .bind(kind.as_str())
    .bind(max_attempts)
    .bind(now)
    .fetch_one(conn)
    .await?);
    Ok(id)
}

/// Running jobs per account, and the first runnable job of an account under `$4`, fewest
/// running first: SQLite's claim (PostgreSQL picks in the same order, one running-count
/// level at a time, [`PICK_POSTGRES`]); a macro so the statement stays a literal.
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
    LEFT JOIN running ON running.account_id = jv.account_id
    WHERE j.state = 'queued' AND j.run_after <= $3 AND COALESCE(running.n, 0) < $4
    ORDER BY COALESCE(running.n, 0), j.run_after, j.id
    LIMIT 1"
    };
}

const CLAIM_SQLITE: &str = concat!(
    "UPDATE jobs
     SET state = 'running', attempts = attempts + 1, lease_owner = $1, lease_expires_at = $2, updated_at = $3
     WHERE id = (",
    runnable!(),
    ")
     RETURNING id, video_id, kind, attempts, max_attempts, lease_expires_at"
);

/// The oldest runnable job (`$1` = now) of an account with exactly `$2` jobs running (0: none
/// running, or no account), locked for this transaction; its account. The `running` CTE is
/// small (one row per account with a job running) and the scan walks `jobs_runnable` in
/// (run_after, id) order, stopping at the first match: the cost does not grow with the
/// queue's depth as one sort over every queued job by (running, run_after, id) did.
const PICK_POSTGRES: &str = "
    WITH running AS (
        SELECT v.account_id, COUNT(*) AS n
        FROM jobs r JOIN videos v ON v.id = r.video_id
        WHERE r.state = 'running'
        GROUP BY v.account_id
    )
    SELECT j.id, jv.account_id FROM jobs j
    LEFT JOIN videos jv ON jv.id = j.video_id
    LEFT JOIN running ON running.account_id = jv.account_id
    WHERE j.state = 'queued' AND j.run_after <= $1 AND COALESCE(running.n, 0) = $2
    ORDER BY j.run_after, j.id
    LIMIT 1
    FOR UPDATE OF j SKIP LOCKED";

/// The running counts (fewest first) of accounts that have jobs running but fewer than `$1`.
const LEVELS_POSTGRES: &str = "
    SELECT DISTINCT n FROM (
        SELECT COUNT(*) AS n FROM jobs r JOIN videos v ON v.id = r.video_id
        WHERE r.state = 'running' GROUP BY v.account_id
    ) c WHERE n < $1 ORDER BY n";

/// Jobs of account `$1` running now.
const ACCOUNT_RUNNING_POSTGRES: &str = "
    SELECT COUNT(*) FROM jobs r JOIN videos v ON v.id = r.video_id
    WHERE r.state = 'running' AND v.account_id = $1";

const TAKE_POSTGRES: &str = "
    UPDATE jobs
    SET state = 'running', attempts = attempts + 1, lease_owner = $1, lease_expires_at = $2, updated_at = $3
    WHERE id = $4 AND state = 'queued'
    RETURNING id, video_id, kind, attempts, max_attempts, lease_expires_at";

/// First key of the per-account claim locks (`pg_advisory_xact_lock(int, int)`, whose key
/// space is apart from the one-bigint form's); the second is a hash of the account id. Two
/// accounts sharing a hash only share a queue for their claims.
const CLAIM_LOCK_CLASS: i32 = 0x7374_6c72;

/// Rounds of pick → lock → recount before a claim gives up (the account it picked filled up
/// meanwhile each time); the worker polls again shortly.
const CLAIM_TRIES: usize = 4;

/// Takes the oldest runnable job for `worker_id` with a lease of `lease`, or `None` when the
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
    let row: Option<JobRow> = match db {
        Db::Sqlite { write, .. } => {
            let mut tx = write.begin_with("BEGIN IMMEDIATE").await?;
            let row = sqlx::query_as(CLAIM_SQLITE)
                .bind(worker_id)
                .bind(expires)
                .bind(now)
                .bind(cap)
                .fetch_optional(&mut *tx)
                .await?;
            tx.commit().await?;
            row
        }
        Db::Postgres(pool) => claim_postgres(pool, worker_id, expires, now, cap).await?,
    };
    row.map(Job::try_from).transpose()
}

/// The PostgreSQL claim: pick the job as `runnable!` orders them (fewest running in its
/// account first, then oldest), one running-count level at a time, the row locked with
/// `SKIP LOCKED`; then lock its account and count the account's running jobs again. That
/// count runs after every earlier claim of the account committed (they held the lock until
/// then), so the cap holds across any number of processes; an account that filled up since
/// the pick sends the claim round again. Claims of different accounts run in parallel.
async fn claim_postgres(
    pool: &sqlx::PgPool,
    worker_id: &str,
    expires: i64,
    now: i64,
    cap: i64,
) -> Result<Option<JobRow>, DbError> {
    for _ in 0..CLAIM_TRIES {
        let mut tx = pool.begin().await?;
        let mut picked: Option<(i64, Option<Uuid>)> = sqlx::query_as(PICK_POSTGRES)
            .bind(now)
            .bind(0_i64)
            .fetch_optional(&mut *tx)
            .await?;
        if picked.is_none() {
            let levels: Vec<i64> = sqlx::query_scalar(LEVELS_POSTGRES)
                .bind(cap)
                .fetch_all(&mut *tx)
                .await?;
            for level in levels {
                picked = sqlx::query_as(PICK_POSTGRES)
                    .bind(now)
                    .bind(level)
                    .fetch_optional(&mut *tx)
                    .await?;
                if picked.is_some() {
                    break;
                }
            }
        }
        let Some((id, account)) = picked else {
            tx.commit().await?;
            return Ok(None);
        };
        if let Some(account) = account.filter(|_| cap < i64::MAX) {
            sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2::uuid::text))")
                .bind(CLAIM_LOCK_CLASS)
                .bind(account)
                .execute(&mut *tx)
                .await?;
            let running: i64 = sqlx::query_scalar(ACCOUNT_RUNNING_POSTGRES)
                .bind(account)
                .fetch_one(&mut *tx)
                .await?;
            if running >= cap {
                tx.rollback().await?;
                continue;
            }
        }
        let row = sqlx::query_as(TAKE_POSTGRES)
            .bind(worker_id)
            .bind(expires)
            .bind(now)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(row);
    }
    Ok(None)
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

/// Renews the lease of a job `worker_id` holds. `false`: the lease was lost (expired and
/// requeued or taken by another worker): stop working on the job.
pub async fn heartbeat(
    db: &Db,
    job_id: i64,
    worker_id: &str,
    lease: Duration,
) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = write!(
        db,
        sqlx::query(
            "UPDATE jobs SET lease_expires_at = $1, updated_at = $2
             WHERE id = $3 AND state = 'running' AND lease_owner = $4 AND lease_expires_at >= $2",
        )
        .bind(now.saturating_add(ms(lease)))
        .bind(now)
        .bind(job_id)
        .bind(worker_id)
    );
    Ok(changed == 1)
}

/// Marks a job done, if `worker_id` still holds it. `false`: the lease was lost.
pub async fn complete(db: &Db, job_id: i64, worker_id: &str) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = write!(
        db,
        sqlx::query(
            "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
             WHERE id = $2 AND state = 'running' AND lease_owner = $3",
        )
        .bind(now)
        .bind(job_id)
        .bind(worker_id)
    );
    Ok(changed == 1)
}

/// Records a failed attempt, if `worker_id` still holds the job. With `retry_after` and
/// attempts left, the job runs again after that delay; otherwise it is `failed` for good.
/// `false`: the lease was lost.
pub async fn fail(
    db: &Db,
    job_id: i64,
    worker_id: &str,
    error: &str,
    retry_after: Option<Duration>,
) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = match retry_after {
        Some(delay) => write!(
            db,
            sqlx::query(
                "UPDATE jobs
                 SET state = CASE WHEN attempts < max_attempts THEN 'queued' ELSE 'failed' END,
                     run_after = $1, last_error = $2, lease_owner = NULL, lease_expires_at = NULL,
                     updated_at = $3
                 WHERE id = $4 AND state = 'running' AND lease_owner = $5",
            )
            .bind(now.saturating_add(ms(delay)))
            .bind(error)
            .bind(now)
            .bind(job_id)
            .bind(worker_id)
        ),
        None => write!(
            db,
            sqlx::query(
                "UPDATE jobs
                 SET state = 'failed', last_error = $1, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
                 WHERE id = $3 AND state = 'running' AND lease_owner = $4",
            )
            .bind(error)
            .bind(now)
            .bind(job_id)
            .bind(worker_id)
        ),
    };
    Ok(changed == 1)
}

/// Fails a job for good inside `tx`, if `worker_id` still holds it; the caller settles the
/// job's video or branding in the same transaction, so no crash can leave a failed job
/// beside a record still `in_progress`. `false`: the lease was lost (roll back).
pub async fn fail_for_good_in(
    tx: &mut Tx,
    job_id: i64,
    worker_id: &str,
    error: &str,
) -> Result<bool, DbError> {
    let changed = on_tx!(tx, conn => sqlx::query(
        "UPDATE jobs
         SET state = 'failed', last_error = $1, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2
         WHERE id = $3 AND state = 'running' AND lease_owner = $4",
    )
    .bind(error)
    .bind(now_ms())
    .bind(job_id)
    .bind(worker_id)
    .execute(conn)
    .await?
    .rows_affected());
    Ok(changed == 1)
}

/// Hands a job back to the queue without counting the attempt (a worker shutting down before
/// it finished), if `worker_id` still holds it. `false`: the lease was lost.
pub async fn release(db: &Db, job_id: i64, worker_id: &str) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = write!(
        db,
        sqlx::query(
            "UPDATE jobs
             SET state = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
                 run_after = $1, last_error = 'released at shutdown', lease_owner = NULL,
                 lease_expires_at = NULL, updated_at = $1
             WHERE id = $2 AND state = 'running' AND lease_owner = $3",
        )
        .bind(now)
        .bind(job_id)
        .bind(worker_id)
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

/// Puts running jobs whose lease ran out back in the queue (or marks them `failed` when they
/// used all their attempts). Returns how many jobs it touched. Run it periodically.
///
/// A job failed here also fails its video or branding in the same transaction (see
/// [`END_STUCK_RECORDS`]): a worker killed during each attempt must not leave a video
/// `in_progress` forever.
pub async fn requeue_expired(db: &Db) -> Result<u64, DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let failed = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE jobs SET state = 'failed', last_error = 'lease expired', lease_owner = NULL,
             lease_expires_at = NULL, updated_at = $1
         WHERE state = 'running' AND lease_expires_at < $1 AND attempts >= max_attempts",
    )
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected());
    let ended = end_stuck_records(&mut tx, now).await?;
    tx.commit().await?;
    for video in ended {
        db.invalidate_video(video);
    }
    let requeued = write!(
        db,
        sqlx::query(
            "UPDATE jobs SET state = 'queued', last_error = 'lease expired', lease_owner = NULL,
                 lease_expires_at = NULL, run_after = $1, updated_at = $1
             WHERE state = 'running' AND lease_expires_at < $1",
        )
        .bind(now)
    );
    Ok(failed + requeued)
}

/// Sets to `error` every video whose render or combine job ended `failed` with no other job
/// of it still to run, and every branding whose own job failed or whose main video is in
/// `error`. Idempotent: it also repairs records left behind by a process that died between
/// failing a job and failing its video (the worker does those two steps apart).
const END_STUCK_RECORDS: [&str; 2] = [
    "UPDATE videos SET status = 'error', error_code = 'render_failed',
         error_message = (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
                          FROM jobs j WHERE j.video_id = videos.id AND j.kind <> 'branding' AND j.state = 'failed'),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = videos.id AND j.kind <> 'branding' AND j.state = 'failed')
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = videos.id AND j.kind <> 'branding'
                       AND j.state IN ('queued', 'running', 'done'))
     RETURNING id",
    "UPDATE brandings SET status = 'error',
         error_code = COALESCE((SELECT v.error_code FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'), 'render_failed'),
         error_message = COALESCE(
             (SELECT v.error_message FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'),
             (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
              FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding' AND j.state = 'failed')),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND (EXISTS (SELECT 1 FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error')
            OR (EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding' AND j.state = 'failed')
                AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding'
                                AND j.state IN ('queued', 'running', 'done'))))
     RETURNING video_id",
];

async fn end_stuck_records(tx: &mut Tx, now: i64) -> Result<Vec<Uuid>, DbError> {
    let mut touched = Vec::new();
    for sql in END_STUCK_RECORDS {
        let ids: Vec<Uuid> = on_tx!(&mut *tx, conn => sqlx::query_scalar(sql)
            .bind(now)
            .fetch_all(conn)
            .await?);
        touched.extend(ids);
    }
    Ok(touched)
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
    let rows: Vec<(String, String, Option<String>)> = crate::db::on_db!(db, pool => {
        sqlx::query_as("SELECT kind, state, last_error FROM jobs WHERE video_id = $1 ORDER BY id")
            .bind(video_id)
            .fetch_all(pool)
            .await?
    });
    rows.into_iter()
        .map(|(kind, state, err)| {
            let kind = JobKind::parse(&kind)
                .ok_or_else(|| DbError::Corrupt(format!("job kind {kind:?}")))?;
            Ok((kind, state, err))
        })
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
            JobKind::Combine,
            JobKind::Branding,
            JobKind::VideoWebhook,
            JobKind::BrandingWebhook,
        ] {
            assert_eq!(JobKind::parse(kind.as_str()), Some(kind));
        }
    }
}
