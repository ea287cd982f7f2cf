//! Claiming the next job: fair across accounts, started videos first (see the queue's doc).

use std::time::Duration;

use uuid::Uuid;

use super::job::{Job, JobRow, ms};
use super::kind::Lane;
use crate::db::{Db, DbError, now_ms};

/// A fresh lease token: 128 random bits in hex, usable inside a storage key.
fn new_token() -> String {
    Uuid::new_v4().simple().to_string()
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
      AND j.lane = $6
    ORDER BY COALESCE(running.n, 0),
             j.claim_rank > 0,
             COALESCE(ja.last_claim_at, 0),
             j.claim_rank,
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
     RETURNING id, video_id, kind, clip_index, attempts, max_attempts, lease_expires_at, lease_token,
               claim_rank, makes, lane"
);

/// The PostgreSQL claim, in the same order as [`runnable!`] but in two steps that each walk an
/// index (migration `0006_claim_by_account.sql`): first the account (fewest running, one with
/// a finishing job waiting, served longest ago), its row locked for the statement's
/// transaction; then that account's next job in job order. The account's counts are kept by
/// triggers, so `jobs_running < $4` read under the row lock is exact: two claims can never
/// both take an account's last free place, and claims of different accounts run side by
/// side. `$account` is the CTE `acct` that picks and locks the account (below).
///
/// One statement, its own transaction, one round trip: `no_flush` turns off the wait for the
/// WAL flush for this transaction only (`set_config(.., true)` is `SET LOCAL`), which the
/// final UPDATE reads so it is evaluated before the commit. See [`claim_in_lane`] for why a
/// claim need not wait for its flush.
macro_rules! claim_postgres {
    ($account:expr) => {
        concat!(
            "WITH no_flush AS MATERIALIZED (
                SELECT set_config('synchronous_commit', 'off', true) AS setting
            ), ",
            $account,
            ", next AS MATERIALIZED (
                SELECT j.id FROM jobs j JOIN acct ON j.account_id = acct.id
                WHERE j.state = 'queued' AND j.run_after <= $3 AND j.lane = $6
                ORDER BY j.claim_rank, j.video_created_at, j.clip_index, j.run_after, j.id
                LIMIT 1
                FOR UPDATE OF j SKIP LOCKED
            )
            UPDATE jobs
            SET state = 'running', attempts = jobs.attempts + 1, lease_owner = $1,
                lease_expires_at = $2, lease_token = $5, updated_at = $3
            FROM next CROSS JOIN no_flush
            WHERE jobs.id = next.id
            RETURNING jobs.id, jobs.video_id, jobs.kind, jobs.clip_index, jobs.attempts,
                      jobs.max_attempts, jobs.lease_expires_at, jobs.lease_token, jobs.claim_rank,
                      jobs.makes, jobs.lane"
        )
    };
}

/// The accounts with a job to run, in claim order: the first account in turn (fewest running,
/// served longest ago) that has a finishing job runnable now, and the first in turn with any
/// job runnable now; the finishing one wins unless the other has fewer running. That is the
/// order of [`runnable!`] (fewest running, then a finishing job waiting, then turn), taken as
/// two walks of the indexes of migration `0012_claim_walks.sql` that each stop at their
/// first account, instead of a sort of every account with work. `$lock` locks each walk's
/// account (`FOR UPDATE SKIP LOCKED`: a walk passes accounts other claims hold) or is empty.
/// The CTE it ends in is `best`. A macro so the statements stay literals.
macro_rules! accounts_in_order {
    ($lock:expr) => {
        concat!(
            "finishing AS MATERIALIZED (
                SELECT a.id, a.jobs_running FROM accounts a
                WHERE a.jobs_finishing > 0 AND a.jobs_queued > 0 AND a.jobs_running < $4
                  AND EXISTS (SELECT 1 FROM jobs f WHERE f.account_id = a.id
                              AND f.state = 'queued' AND f.claim_rank = 0
                              AND f.run_after <= $3 AND f.lane = $6)
                ORDER BY a.jobs_running, COALESCE(a.last_claim_at, 0), a.id
                LIMIT 1 ",
            $lock,
            "), in_turn AS MATERIALIZED (
                SELECT a.id, a.jobs_running FROM accounts a
                WHERE a.jobs_queued > 0 AND a.jobs_running < $4
                  AND EXISTS (SELECT 1 FROM jobs q WHERE q.account_id = a.id
                              AND q.state = 'queued' AND q.run_after <= $3
                              AND q.lane = $6)
                ORDER BY a.jobs_running, COALESCE(a.last_claim_at, 0), a.id
                LIMIT 1 ",
            $lock,
            "), best AS MATERIALIZED (
                SELECT id FROM (SELECT id, jobs_running, 0 AS second FROM finishing
                                UNION ALL
                                SELECT id, jobs_running, 1 AS second FROM in_turn) c
                ORDER BY jobs_running, second
                LIMIT 1)"
        )
    };
}

/// First try: the first account in order whose row no claim in flight holds. It never waits.
/// It may lock two accounts (each walk's first); the one not taken is released at the commit,
/// a moment later.
const CLAIM_POSTGRES_SKIP: &str = claim_postgres!(concat!(
    accounts_in_order!("FOR UPDATE SKIP LOCKED"),
    ", acct AS (SELECT id FROM best)"
));

/// Second try, when every account with work was held: the first account in order, read
/// without a lock, then its one row locked, waiting for the claim that holds it (waiting
/// briefly beats going back to sleep with work in the queue), its conditions checked again
/// on the row as it is then. It locks one row and waits for one row, holding nothing else:
/// a `FOR UPDATE` over the ordered list would keep the lock on each row whose recheck failed
/// while waiting for the next, and two such claims (or a claim and a completion, whose
/// trigger updates the account) deadlocked at 32 claimers.
const CLAIM_POSTGRES_WAIT: &str = claim_postgres!(concat!(
    accounts_in_order!(""),
    ", acct AS MATERIALIZED (
        SELECT a.id FROM accounts a JOIN best ON a.id = best.id
        WHERE a.jobs_queued > 0 AND a.jobs_running < $4
        FOR UPDATE OF a)"
));

/// Stamps the claimed job's account with the claim time, in the claim's transaction, so the
/// next claim serves another account first (SQLite; on PostgreSQL a trigger does it).
const TAKE_TURN: &str = "UPDATE accounts SET last_claim_at = $1
     WHERE id = (SELECT account_id FROM videos WHERE id = $2)";

/// Takes the next runnable job of the render lane for `worker_id` with a lease of `lease`, or
/// `None` when the queue has nothing runnable. Commits at once: the work happens outside any
/// transaction. No per-account cap; see [`claim_fair`].
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
    claim_in_lane(db, worker_id, lease, per_account, Lane::Render).await
}

/// [`claim_fair`] in `lane`.
pub async fn claim_in_lane(
    db: &Db,
    worker_id: &str,
    lease: Duration,
    per_account: usize,
    lane: Lane,
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
                .bind(lane.stored())
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
            // A claim need not wait for its WAL flush. If the database crashes before the
            // flush, the claim is lost: the job is back as it was (queued), and the worker's
            // first heartbeat or its completion, which must match this claim's token, finds it
            // gone and drops the work, as after a lost lease. Nothing else is written in this
            // transaction, and every later synchronous commit flushes it anyway. That halves
            // the fsyncs of a claim + completion.
            //
            // Each try is one statement in a transaction of its own (one round trip, no
            // BEGIN and COMMIT of ours): the first try may lock an account's row and then find
            // none of its jobs free; holding that lock while the second try waits for another
            // account's lock lets two claimers wait for each other (PostgreSQL reported it as
            // a deadlock at 32 claimers).
            let mut row = None;
            for claim in [CLAIM_POSTGRES_SKIP, CLAIM_POSTGRES_WAIT] {
                row = sqlx::query_as(claim)
                    .bind(worker_id)
                    .bind(expires)
                    .bind(now)
                    .bind(cap)
                    .bind(&token)
                    .bind(lane.stored())
                    .fetch_optional(pool)
                    .await?;
                if row.is_some() {
                    break;
                }
            }
            row
        }
    };
    Ok(row.map(Job::from))
}
