//! Uploaded files (`POST /upload_media`): one row per stored file, counted against the
//! account's `upload_quota_bytes`; listed a page at a time and deleted
//! (`GET /get_uploads`, `POST /delete_upload`).

use uuid::Uuid;

use crate::db::{Backend, Batch, Db, DbError, on_db, on_tx};
use crate::repo::videos::cursor;

/// A stored upload, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUpload {
    pub id: Uuid,
    pub account: Uuid,
    pub key: String,
    pub media_type: &'static str,
    pub bytes: u64,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl NewUpload {
    /// The upload as it is listed once recorded.
    pub fn stored(&self) -> StoredUpload {
        StoredUpload {
            id: self.id,
            key: self.key.clone(),
            media_type: self.media_type.to_owned(),
            bytes: i64::try_from(self.bytes).unwrap_or(i64::MAX),
            created_at: self.created_at,
        }
    }
}

/// The account's quota and the bytes of uploads it keeps now.
pub async fn usage(db: &Db, account: Uuid) -> Result<(u64, u64), DbError> {
    let usage: UsageRow = on_db!(db, pool => sqlx::query_as(
        "SELECT a.upload_quota_bytes AS quota,
                (SELECT CAST(SUM(u.bytes) AS BIGINT) FROM uploads u WHERE u.account_id = a.id) AS used
         FROM accounts a WHERE a.id = $1",
    )
    .bind(account)
    .fetch_one(pool)
    .await?);
    Ok((
        u64::try_from(usage.quota).unwrap_or(0),
        usage.used.and_then(|n| u64::try_from(n).ok()).unwrap_or(0),
    ))
}

/// An account's quota and the bytes its uploads take ([`usage`]).
#[derive(sqlx::FromRow)]
struct UsageRow {
    quota: i64,
    used: Option<i64>,
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
        .bind(upload.created_at)
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

/// An upload as listed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredUpload {
    pub id: Uuid,
    pub key: String,
    pub media_type: String,
    pub bytes: i64,
    pub created_at: i64,
}

/// One page of `account`'s uploads, newest first, after the `(created_at, id)` of the last
/// one listed, and the next page's cursor (the library's keyset paging,
/// `repo::videos::list`).
pub async fn list(
    db: &Db,
    account: Uuid,
    limit: usize,
    after: Option<(i64, Uuid)>,
) -> Result<(Vec<StoredUpload>, Option<String>), DbError> {
    const COLUMNS: &str = "SELECT id, key, media_type, bytes, created_at FROM uploads";
    const ORDER: &str = "ORDER BY created_at DESC, id DESC";
    // One more than asked, to know whether a next page exists.
    let fetch = i64::try_from(limit + 1).unwrap_or(i64::MAX);
    let mut rows: Vec<StoredUpload> = match after {
        None => on_db!(db, pool => sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{COLUMNS} WHERE account_id = $1 {ORDER} LIMIT $2"
        )))
        .bind(account)
        .bind(fetch)
        .fetch_all(pool)
        .await?),
        Some((ms, id)) => on_db!(db, pool => sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{COLUMNS} WHERE account_id = $1
                 AND (created_at < $2 OR (created_at = $2 AND id < $3)) {ORDER} LIMIT $4"
        )))
        .bind(account)
        .bind(ms)
        .bind(id)
        .bind(fetch)
        .fetch_all(pool)
        .await?),
    };
    let next = (rows.len() > limit).then(|| {
        let last = &rows[limit - 1];
        cursor(last.created_at, last.id)
    });
    rows.truncate(limit);
    Ok((rows, next))
}

/// What deleting an upload found.
#[derive(Debug, PartialEq, Eq)]
pub enum DeletedUpload {
    /// The row is gone (its bytes no longer count); this stored key is to be removed.
    Done(String),
    NotFound,
    /// A video of the account that is still queued or rendering (or whose branded render is)
    /// names the file in its request.
    InUse,
}

/// Deletes upload `id` of `account` unless a queued or running video of the account uses it.
///
/// "Uses" is read from the keys each video recorded when it was created (`upload_keys`: every
/// URL of its request, a brand kit's included, normalized as the fetcher reads it, so
/// `/x/../`, `/./`, `%2e%2e` or backslashes in a URL name the same key), and, for videos
/// stored before those were recorded, from the request's text. The guard and the deletion are
/// one statement, so a video created while it runs either is seen by it or was created after
/// the file was gone (and fails at fetch with "not a file on this server").
pub async fn delete(db: &Db, account: Uuid, id: Uuid) -> Result<DeletedUpload, DbError> {
    let key: Option<String> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT key FROM uploads WHERE id = $1 AND account_id = $2",
    )
    .bind(id)
    .bind(account)
    .fetch_optional(pool)
    .await?);
    let Some(key) = key else {
        return Ok(DeletedUpload::NotFound);
    };
    let mut tx = db.begin().await?;
    let deleted = on_tx!(&mut tx, conn => sqlx::query(
        "DELETE FROM uploads WHERE id = $1 AND account_id = $2 AND NOT EXISTS (
             SELECT 1 FROM videos v LEFT JOIN brandings b ON b.video_id = v.id
             WHERE v.account_id = $2 AND v.deleted_at IS NULL
               AND (v.status IN ('queued', 'in_progress') OR b.status IN ('queued', 'in_progress'))
               AND (v.upload_keys LIKE $3 OR CAST(v.request AS TEXT) LIKE $4))",
    )
    .bind(id)
    .bind(account)
    .bind(format!("% {key} %"))
    .bind(format!("%{key}%"))
    .execute(conn)
    .await?
    .rows_affected());
    tx.commit().await?;
    if deleted == 1 {
        return Ok(DeletedUpload::Done(key));
    }
    // Kept: a video uses it, unless a parallel delete removed it (only that one reports it).
    let still: Option<i32> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT 1 FROM uploads WHERE id = $1 AND account_id = $2",
    )
    .bind(id)
    .bind(account)
    .fetch_optional(pool)
    .await?);
    Ok(if still.is_some() {
        DeletedUpload::InUse
    } else {
        DeletedUpload::NotFound
    })
}
