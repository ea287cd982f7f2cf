//! Brand kits: an account's saved branding (`body` is the validated kit as JSON).

use sqlx::types::Json;
use stillreel_core::{BrandKit, BrandKitBody};
use uuid::Uuid;

use crate::db::{Batch, Db, DbError, Value, now_ms, on_db, rfc3339};

type KitRow = (Uuid, Json<BrandKitBody>, i64, i64);

fn record((id, Json(body), created, updated): KitRow) -> BrandKit {
    BrandKit::new(id, body, rfc3339(created), rfc3339(updated))
}

/// Saves a new kit for `account`.
pub async fn create(db: &Db, account: Uuid, body: BrandKitBody) -> Result<BrandKit, DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let mut tx = db.begin().await?;
    let mut batch = Batch::new();
    batch
        .statement(
            "INSERT INTO brand_kits (id, account_id, body, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(account)
        .bind(Value::json(Some(&body))?)
        .bind(now)
        .bind(now);
    batch.run(&mut tx).await?;
    tx.commit().await?;
    Ok(BrandKit::new(id, body, rfc3339(now), rfc3339(now)))
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

/// The account's kits, oldest first.
pub async fn list(db: &Db, account: Uuid) -> Result<Vec<BrandKit>, DbError> {
    let rows: Vec<KitRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, body, created_at, updated_at FROM brand_kits WHERE account_id = $1 ORDER BY seq",
    )
    .bind(account)
    .fetch_all(pool)
    .await?);
    Ok(rows.into_iter().map(record).collect())
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
