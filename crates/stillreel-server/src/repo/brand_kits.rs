//! Brand kits: an account's saved branding (`body` is the validated kit as JSON).

use sqlx::types::Json;
use stillreel_core::{BrandKit, BrandKitBody};
use uuid::Uuid;

use crate::db::{Backend, Batch, Db, DbError, Value, now_ms, on_db, rfc3339};

/// A kit's row as [`get`] reads it.
#[derive(sqlx::FromRow)]
struct KitRow {
    id: Uuid,
    body: Json<BrandKitBody>,
    created_at: i64,
    updated_at: i64,
}

/// A kit's row with its place in the account's list, as [`list`] pages through them.
#[derive(sqlx::FromRow)]
struct PageRow {
    seq: i64,
    #[sqlx(flatten)]
    kit: KitRow,
}

fn record(row: KitRow) -> BrandKit {
    let Json(body) = row.body;
    BrandKit::new(
        row.id,
        body,
        rfc3339(row.created_at),
        rfc3339(row.updated_at),
    )
}

/// The most brand kits an account keeps: enough for an agency's brands, and it bounds
/// `get_brand_kits` (docs/API-DESIGN.md#brand-kits).
pub const MAX_BRAND_KITS: i64 = 100;

/// Saves a new kit for `account`; `None` when the account already has [`MAX_BRAND_KITS`].
///
/// The count and the insert are one statement, run with the account's row locked on
/// PostgreSQL (the single writer serialises them on SQLite), so kits created at once never
/// pass the limit together.
pub async fn create(
    db: &Db,
    account: Uuid,
    body: BrandKitBody,
) -> Result<Option<BrandKit>, DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let mut tx = db.begin().await?;
    let mut batch = Batch::new();
    batch
        .statement_on(
            Backend::Postgres,
            "SELECT 1 FROM accounts WHERE id = ? FOR UPDATE",
        )
        .bind(account);
    batch
        .statement(
            "INSERT INTO brand_kits (id, account_id, body, created_at, updated_at)
             SELECT ?, a.id, ?, ?, ? FROM accounts a
             WHERE a.id = ?
               AND (SELECT COUNT(*) FROM brand_kits k WHERE k.account_id = a.id) < ?",
        )
        .bind(id)
        .bind(Value::json(Some(&body))?)
        .bind(now)
        .bind(now)
        .bind(account)
        .bind(MAX_BRAND_KITS);
    batch.run(&mut tx).await?;
    tx.commit().await?;
    if get(db, account, id).await?.is_none() {
        return Ok(None);
    }
    Ok(Some(BrandKit::new(id, body, rfc3339(now), rfc3339(now))))
}

/// Replaces kit `id` of `account` with `body`; `None` when the account has no such kit.
pub async fn update(
    db: &Db,
    account: Uuid,
    id: Uuid,
    body: BrandKitBody,
) -> Result<Option<BrandKit>, DbError> {
    if get(db, account, id).await?.is_none() {
        return Ok(None);
    }
    let mut tx = db.begin().await?;
    let mut batch = Batch::new();
    batch
        .statement("UPDATE brand_kits SET body = ?, updated_at = ? WHERE id = ? AND account_id = ?")
        .bind(Value::json(Some(&body))?)
        .bind(now_ms())
        .bind(id)
        .bind(account);
    batch.run(&mut tx).await?;
    tx.commit().await?;
    get(db, account, id).await
}

/// Kit `id` if `account` owns it.
pub async fn get(db: &Db, account: Uuid, id: Uuid) -> Result<Option<BrandKit>, DbError> {
    let row: Option<KitRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, body, created_at, updated_at FROM brand_kits WHERE id = $1 AND account_id = $2",
    )
    .bind(id)
    .bind(account)
    .fetch_optional(pool)
    .await?);
    Ok(row.map(record))
}

/// One page of the account's kits, oldest first (the order they were saved in), after the
/// kit a cursor names, and the next page's cursor. The cursor has the videos' shape
/// (`repo::videos::cursor`) with the kit's saving order in place of its creation time, so
/// kits saved in one millisecond keep their order.
pub async fn list(
    db: &Db,
    account: Uuid,
    limit: usize,
    after: Option<(i64, Uuid)>,
) -> Result<(Vec<BrandKit>, Option<String>), DbError> {
    // One more than asked, to know whether a next page exists.
    let fetch = i64::try_from(limit + 1).unwrap_or(i64::MAX);
    let rows: Vec<PageRow> = match after {
        None => on_db!(db, pool => sqlx::query_as(
            "SELECT seq, id, body, created_at, updated_at FROM brand_kits
             WHERE account_id = $1 ORDER BY seq LIMIT $2",
        )
        .bind(account)
        .bind(fetch)
        .fetch_all(pool)
        .await?),
        Some((seq, _)) => on_db!(db, pool => sqlx::query_as(
            "SELECT seq, id, body, created_at, updated_at FROM brand_kits
             WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .bind(account)
        .bind(seq)
        .bind(fetch)
        .fetch_all(pool)
        .await?),
    };
    let next = (rows.len() > limit).then(|| {
        let last = &rows[limit - 1];
        crate::repo::videos::cursor(last.seq, last.kit.id)
    });
    let kits = rows
        .into_iter()
        .take(limit)
        .map(|row| record(row.kit))
        .collect();
    Ok((kits, next))
}

/// Deletes kit `id` of `account`; `false` when the account has no such kit. Videos made with
/// it are unaffected: a request's kit is copied into the video when it is created.
pub async fn delete(db: &Db, account: Uuid, id: Uuid) -> Result<bool, DbError> {
    if get(db, account, id).await?.is_none() {
        return Ok(false);
    }
    let mut tx = db.begin().await?;
    let mut batch = Batch::new();
    batch
        .statement("DELETE FROM brand_kits WHERE id = ? AND account_id = ?")
        .bind(id)
        .bind(account);
    batch.run(&mut tx).await?;
    tx.commit().await?;
    Ok(true)
}
