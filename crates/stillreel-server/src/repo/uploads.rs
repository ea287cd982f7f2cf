//! Uploaded files (`POST /upload_media`): one row per stored file, counted against the
//! account's `upload_quota_bytes`.

use uuid::Uuid;

use crate::db::{Backend, Batch, Db, DbError, now_ms, on_db};

/// A stored upload, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUpload {
    pub id: Uuid,
    pub account: Uuid,
    pub key: String,
    pub media_type: &'static str,
    pub bytes: u64,
}

/// The account's quota and the bytes of uploads it keeps now.
pub async fn usage(db: &Db, account: Uuid) -> Result<(u64, u64), DbError> {
    let (quota, used): (i64, Option<i64>) = on_db!(db, pool => sqlx::query_as(
        "SELECT a.upload_quota_bytes,
                (SELECT CAST(SUM(u.bytes) AS BIGINT) FROM uploads u WHERE u.account_id = a.id)
         FROM accounts a WHERE a.id = $1",
    )
    .bind(account)
    .fetch_one(pool)
    .await?);
    Ok((
        u64::try_from(quota).unwrap_or(0),
        used.and_then(|n| u64::try_from(n).ok()).unwrap_or(0),
    ))
}

/// Records `upload` if it fits in the account's quota with everything already stored.
/// `false`: over the quota, nothing recorded.
///
/// The check and the insert are one statement, and two uploads of an account never run it at
/// once: on SQLite the write transaction (`BEGIN IMMEDIATE`) has the database to itself; on
/// PostgreSQL, whose default isolation lets two transactions each sum the rows without the
/// other's, the account's row is locked first, so the second waits for the first to commit
/// and then counts its file.
pub async fn record(db: &Db, upload: &NewUpload) -> Result<bool, DbError> {
    let bytes = i64::try_from(upload.bytes).unwrap_or(i64::MAX);
    let mut tx = db.begin().await?;
    let mut batch = Batch::new();
    batch
        .statement_on(
            Backend::Postgres,
            "SELECT 1 FROM accounts WHERE id = ? FOR UPDATE",
        )
        .bind(upload.account);
    batch
        .statement(
            "INSERT INTO uploads (id, account_id, key, media_type, bytes, created_at)
             SELECT ?, a.id, ?, ?, ?, ? FROM accounts a
             WHERE a.id = ?
               AND COALESCE((SELECT SUM(u.bytes) FROM uploads u WHERE u.account_id = a.id), 0) + ?
                   <= a.upload_quota_bytes",
        )
        .bind(upload.id)
        .bind(upload.key.as_str())
        .bind(upload.media_type)
        .bind(bytes)
        .bind(now_ms())
        .bind(upload.account)
        .bind(bytes);
    batch.run(&mut tx).await?;
    tx.commit().await?;
    let stored: Option<i32> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT 1 FROM uploads WHERE id = $1",
    )
    .bind(upload.id)
    .fetch_optional(pool)
    .await?);
    Ok(stored.is_some())
}
