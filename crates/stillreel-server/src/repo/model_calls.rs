//! Claims on model calls in the database (`model_calls`), shared by every worker on it: the
//! server's side of the render crate's `CallClaims` (one model call per input, see
//! `stillreel_providers::claims`).

use std::time::Duration;

use futures_util::future::BoxFuture;
use stillreel_providers::CallClaims;

use crate::db::{Db, DbError, now_ms, on_tx};

/// Claims `key` for `holder` until `lease` has passed: inserted when free, taken over when
/// lapsed or already `holder`'s, in one statement (an upsert whose update is conditional), so
/// two claimers never both win on either backend.
pub async fn claim(db: &Db, key: &str, holder: &str, lease: Duration) -> Result<bool, DbError> {
    let now = now_ms();
    let until = now.saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX));
    let mut tx = db.begin().await?;
    let won: Option<i32> = on_tx!(&mut tx, conn => sqlx::query_scalar(
        "INSERT INTO model_calls (cache_key, holder, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (cache_key) DO UPDATE SET holder = excluded.holder,
                                               expires_at = excluded.expires_at
         WHERE model_calls.expires_at <= $4 OR model_calls.holder = excluded.holder
         RETURNING 1",
    )
    .bind(key)
    .bind(holder)
    .bind(until)
    .bind(now)
    .fetch_optional(conn)
    .await?);
    tx.commit().await?;
    Ok(won.is_some())
}

/// Deletes `holder`'s claim on `key` (and nothing another holder took over).
pub async fn release(db: &Db, key: &str, holder: &str) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, conn => sqlx::query("DELETE FROM model_calls WHERE cache_key = $1 AND holder = $2")
        .bind(key)
        .bind(holder)
        .execute(conn)
        .await
        .map(|_| ())?);
    tx.commit().await?;
    Ok(())
}

/// [`CallClaims`] on the database.
#[derive(Debug, Clone)]
pub struct DbClaims(pub Db);

impl CallClaims for DbClaims {
    fn claim<'a>(&'a self, key: &'a str, holder: &'a str, lease: Duration) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            claim(&self.0, key, holder, lease).await.unwrap_or_else(|e| {
                // Calling twice costs money; a video stuck behind a broken claim costs more.
                tracing::warn!(error = %e, "a model call claim could not be recorded; calling anyway");
                true
            })
        })
    }

    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = release(&self.0, key, holder).await {
                tracing::warn!(error = %e, "a model call claim could not be released; it lapses");
            }
        })
    }
}
