//! What happens to a claimed job: lease renewal, completion, failure, release, and the
//! sweep's two steps for leases that ran out. Every write matches the claim's worker and token.

use std::time::Duration;

use uuid::Uuid;

use super::job::{Job, ms};
use crate::db::{Db, DbError, Tx, now_ms, on_tx};

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
/// For a job with nothing to record: one statement, its own transaction (a kind's result is
/// recorded with [`complete_in`] instead, in the transaction that writes it).
pub async fn complete(db: &Db, job: &Job, worker_id: &str) -> Result<bool, DbError> {
    let changed = write!(
        db,
        sqlx::query(sqlx::AssertSqlSafe(COMPLETE.as_str()))
            .bind(now_ms())
            .bind(job.id)
            .bind(worker_id)
            .bind(&job.token)
    );
    Ok(changed == 1)
}

/// The completion of a held job.
static COMPLETE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL,
             updated_at = $1
         WHERE id = $2 AND {HELD}"
    )
});

/// [`complete`] inside `tx`, beside the writes that record the job's result: they commit
/// only together. `false`: the lease was lost (roll back).
pub async fn complete_in(tx: &mut Tx, job: &Job, worker_id: &str) -> Result<bool, DbError> {
    let changed = on_tx!(tx, conn => sqlx::query(sqlx::AssertSqlSafe(COMPLETE.as_str()))
    .bind(now_ms())
    .bind(job.id)
    .bind(worker_id)
    .bind(&job.token)
    .execute(conn)
    .await?
    .rows_affected());
    Ok(changed == 1)
}

/// Puts a job that [`complete_in`] has just completed in `tx` back in the queue, to run again
/// after `delay` (or `failed` for good when its attempts are used up): its kind's record
/// asked for a retry (a webhook receiver refused the delivery). Within the completing
/// transaction, so the lease check of the completion covers it.
pub async fn retry_completed_in(
    tx: &mut Tx,
    job: &Job,
    delay: Duration,
    note: &str,
) -> Result<(), DbError> {
    let now = now_ms();
    on_tx!(tx, conn => sqlx::query(
        "UPDATE jobs
         SET state = CASE WHEN attempts < max_attempts THEN 'queued' ELSE 'failed' END,
             run_after = $1, last_error = $2, updated_at = $3
         WHERE id = $4 AND state = 'done'",
    )
    .bind(now.saturating_add(ms(delay)))
    .bind(note)
    .bind(now)
    .bind(job.id)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(())
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
           AND makes = 'video'",
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
pub async fn requeue_expired_in(tx: &mut Tx, now: i64) -> Result<u64, DbError> {
    Ok(on_tx!(tx, conn => sqlx::query(
        "UPDATE jobs SET state = 'queued', last_error = 'lease expired', lease_owner = NULL,
             lease_expires_at = NULL, lease_token = NULL, run_after = $1, updated_at = $1
         WHERE state = 'running' AND lease_expires_at < $1",
    )
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected()))
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
}
