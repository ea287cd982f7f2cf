//! `Idempotency-Key` records (docs/API-DESIGN.md#idempotency), scoped to the account and kept 24 h.
//!
//! The first request with a key inserts a row with no response ([`begin`] → `Fresh`); a
//! duplicate arriving meanwhile sees it and gets 409. The video transaction fills in the
//! response ([`finish_in`], same transaction as the video, so a stored video always has its
//! answer). A request that fails before that deletes its row ([`abandon`]) so the client can
//! retry with the same key. Only successful answers are replayed; a failure is not an outcome
//! worth pinning for 24 h (the project it named may exist a minute later).

use std::time::Duration;

use uuid::Uuid;

use crate::db::{Batch, Db, DbError, now_ms, on_tx};

/// How long a key is remembered.
pub const RETENTION: Duration = Duration::from_secs(24 * 3600);

/// A row still without a response after this long belongs to a request that died (process
/// killed mid-request); the key may be used again.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(60);

/// What to do with a request carrying a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begin {
    /// First use: handle the request, then [`finish_in`] or [`abandon`].
    Fresh,
    /// Same key, same body, finished: answer this stored body.
    Replay(String),
    /// Same key, another body: 422 `idempotency_key_reused`.
    Reused,
    /// Same key, first request still running: 409 `idempotency_in_progress`.
    InProgress,
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Looks the key up and claims it when unused (or expired, or abandoned).
///
/// Safe under any number of concurrent requests with one key, on both databases: the claim is
/// an insert that does nothing on conflict, and the takeover of an expired or abandoned row is
/// one conditional `UPDATE`, which PostgreSQL re-checks against the row a concurrent winner
/// committed. So exactly one request gets `Fresh`; the others read the row and never see a
/// constraint violation (which used to surface as a 500).
pub async fn begin(
    db: &Db,
    account: Uuid,
    key: &str,
    request_hash: &[u8; 32],
) -> Result<Begin, DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let inserted: Option<i32> = on_tx!(&mut tx, conn => sqlx::query_scalar(
        "INSERT INTO idempotency_keys (account_id, key, request_hash, created_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, key) DO NOTHING
         RETURNING 1",
    )
    .bind(account)
    .bind(key)
    .bind(request_hash.to_vec())
    .bind(now)
    .fetch_optional(conn)
    .await?);
    if inserted.is_some() {
        tx.commit().await?;
        return Ok(Begin::Fresh);
    }
    // Taken over when older than the retention (any body), or abandoned without an answer by a
    // request with the same body (a different body is still `Reused`).
    let taken: Option<i32> = on_tx!(&mut tx, conn => sqlx::query_scalar(
        "UPDATE idempotency_keys SET request_hash = $3, response_body = NULL, created_at = $4
         WHERE account_id = $1 AND key = $2
           AND (created_at <= $5
                OR (response_body IS NULL AND request_hash = $3 AND created_at <= $6))
         RETURNING 1",
    )
    .bind(account)
    .bind(key)
    .bind(request_hash.to_vec())
    .bind(now)
    .bind(now - ms(RETENTION))
    .bind(now - ms(ABANDONED_AFTER))
    .fetch_optional(conn)
    .await?);
    if taken.is_some() {
        tx.commit().await?;
        return Ok(Begin::Fresh);
    }
    let row: Option<KeyAnswer> = on_tx!(&mut tx, conn => sqlx::query_as(
        "SELECT request_hash, response_body FROM idempotency_keys WHERE account_id = $1 AND key = $2",
    )
    .bind(account)
    .bind(key)
    .fetch_optional(conn)
    .await?);
    tx.commit().await?;
    Ok(match row {
        Some(found) if found.request_hash.as_slice() != request_hash.as_slice() => Begin::Reused,
        Some(KeyAnswer {
            response_body: Some(body),
            ..
        }) => Begin::Replay(body),
        // Still running, or deleted by an `abandon` a moment ago: either way, retry later.
        Some(KeyAnswer {
            response_body: None,
            ..
        })
        | None => Begin::InProgress,
    })
}

/// A stored key's request and answer, as [`begin`] reads them.
#[derive(sqlx::FromRow)]
struct KeyAnswer {
    request_hash: Vec<u8>,
    response_body: Option<String>,
}

/// Adds the storing of `response_body` as the answer of `key` to `batch`, the batch that
/// stores the video, so a stored video always has its answer.
pub fn finish_in(batch: &mut Batch, account: Uuid, key: &str, response_body: &str) {
    batch
        .statement("UPDATE idempotency_keys SET response_body = ? WHERE account_id = ? AND key = ?")
        .bind(response_body)
        .bind(account)
        .bind(key);
}

/// Forgets a key whose request failed, so it can be retried.
pub async fn abandon(db: &Db, account: Uuid, key: &str) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, conn => sqlx::query(
        "DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND response_body IS NULL",
    )
    .bind(account)
    .bind(key)
    .execute(conn)
    .await
    .map(drop)?);
    tx.commit().await
}

/// Deletes records older than [`RETENTION`]; returns how many.
pub async fn purge_expired(db: &Db) -> Result<u64, DbError> {
    let cutoff = now_ms() - ms(RETENTION);
    let mut tx = db.begin().await?;
    let n = on_tx!(&mut tx, conn => sqlx::query("DELETE FROM idempotency_keys WHERE created_at < $1")
        .bind(cutoff)
        .execute(conn)
        .await?
        .rows_affected());
    tx.commit().await?;
    Ok(n)
}
