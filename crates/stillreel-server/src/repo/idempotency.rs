//! `Idempotency-Key` records (CONTRACT §7), scoped to the account and kept 24 h.
//!
//! The first request with a key inserts a row with no response ([`begin`] → `Fresh`); a
//! duplicate arriving meanwhile sees it and gets 409. The video transaction fills in the
//! response ([`finish`], same transaction as the video, so a stored video always has its
//! answer). A request that fails before that deletes its row ([`abandon`]) so the client can
//! retry with the same key. Only successful answers are replayed; a failure is not an outcome
//! worth pinning for 24 h (the project it named may exist a minute later).

use std::time::Duration;

use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_tx};

/// How long a key is remembered.
pub const RETENTION: Duration = Duration::from_secs(24 * 3600);

/// A row still without a response after this long belongs to a request that died (process
/// killed mid-request); the key may be used again.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(60);

/// What to do with a request carrying a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begin {
    /// First use: handle the request, then [`finish`] or [`abandon`].
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
pub async fn begin(
    db: &Db,
    account: Uuid,
    key: &str,
    request_hash: &[u8; 32],
) -> Result<Begin, DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let row: Option<(Vec<u8>, Option<String>, i64)> = on_tx!(&mut tx, conn => sqlx::query_as(
        "SELECT request_hash, response_body, created_at FROM idempotency_keys WHERE account_id = $1 AND key = $2",
    )
    .bind(account)
    .bind(key)
    .fetch_optional(conn)
    .await?);
    let outcome = match row {
        Some((hash, body, created)) if now - created < ms(RETENTION) => {
            if hash.as_slice() != request_hash.as_slice() {
                Begin::Reused
            } else if let Some(body) = body {
                Begin::Replay(body)
            } else if now - created < ms(ABANDONED_AFTER) {
                Begin::InProgress
            } else {
                claim(&mut tx, account, key, request_hash, now, true).await?;
                Begin::Fresh
            }
        }
        Some(_) => {
            claim(&mut tx, account, key, request_hash, now, true).await?;
            Begin::Fresh
        }
        None => {
            claim(&mut tx, account, key, request_hash, now, false).await?;
            Begin::Fresh
        }
    };
    tx.commit().await?;
    Ok(outcome)
}

async fn claim(
    tx: &mut Tx,
    account: Uuid,
    key: &str,
    hash: &[u8; 32],
    now: i64,
    replace: bool,
) -> Result<(), DbError> {
    let sql = if replace {
        "UPDATE idempotency_keys SET request_hash = $3, response_body = NULL, created_at = $4
         WHERE account_id = $1 AND key = $2"
    } else {
        "INSERT INTO idempotency_keys (account_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)"
    };
    on_tx!(tx, conn => sqlx::query(sql)
        .bind(account)
        .bind(key)
        .bind(hash.to_vec())
        .bind(now)
        .execute(conn)
        .await
        .map(drop)?);
    Ok(())
}

/// Stores the answer of a key's first request, inside the transaction that created the video.
pub async fn finish(
    tx: &mut Tx,
    account: Uuid,
    key: &str,
    response_body: &str,
) -> Result<(), DbError> {
    on_tx!(tx, conn => sqlx::query(
        "UPDATE idempotency_keys SET response_body = $3 WHERE account_id = $1 AND key = $2",
    )
    .bind(account)
    .bind(key)
    .bind(response_body)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(())
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
