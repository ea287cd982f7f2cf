//! Accounts, API keys and projects.

use sha2::{Digest, Sha256};
use stillreel_core::Project;
use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx, rfc3339};

/// Prefix of every API key, so a leaked key is recognisable (secret scanners, logs).
pub const KEY_PREFIX: &str = "sr_";

/// Who is calling: what a request needs to know about its account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountCtx {
    pub account_id: Uuid,
    /// Clips per video ("the plan").
    pub clip_limit: usize,
    pub default_project: Uuid,
}

/// What `stillreel accounts create` prints.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NewAccount {
    pub account: Uuid,
    pub api_key: String,
    pub default_project: Uuid,
    /// Signs this account's webhook deliveries (`whsec_…`).
    pub webhook_secret: String,
}

/// SHA-256 of a key: what is stored and looked up.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// A fresh key: the prefix and 32 random bytes in hex.
pub fn generate_key() -> Result<String, DbError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|err| DbError::NoRandomness(err.to_string()))?;
    let mut key = String::with_capacity(KEY_PREFIX.len() + 64);
    key.push_str(KEY_PREFIX);
    for b in bytes {
        key.push_str(&format!("{b:02x}"));
    }
    Ok(key)
}

/// Creates an account with its default project and one API key.
pub async fn create(db: &Db, name: &str, clip_limit: usize) -> Result<NewAccount, DbError> {
    let account = Uuid::now_v7();
    let default_project = Uuid::now_v7();
    let api_key = generate_key()?;
    let webhook_secret = crate::webhook::generate_secret()?;
    let now = now_ms();
    let limit = i32::try_from(clip_limit).map_err(|_| DbError::OutOfRange("clip limit"))?;
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, conn => {
        sqlx::query("INSERT INTO accounts (id, name, clip_limit, created_at, webhook_secret) VALUES ($1, $2, $3, $4, $5)")
            .bind(account)
            .bind(name)
            .bind(limit)
            .bind(now)
            .bind(&webhook_secret)
            .execute(&mut *conn)
            .await?;
        sqlx::query("INSERT INTO api_keys (key_hash, account_id, created_at) VALUES ($1, $2, $3)")
            .bind(hash_key(&api_key).to_vec())
            .bind(account)
            .bind(now)
            .execute(&mut *conn)
            .await?;
    });
    insert_project(&mut tx, account, default_project, "Default", true, now).await?;
    tx.commit().await?;
    Ok(NewAccount {
        account,
        api_key,
        default_project,
        webhook_secret,
    })
}

/// A new key of an existing account, printed by `stillreel accounts add-key`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NewKey {
    pub account: Uuid,
    pub api_key: String,
}

/// Adds an API key to `account` (rotation: the old key keeps working until it is revoked).
/// `None` when there is no such account.
pub async fn add_key(db: &Db, account: Uuid) -> Result<Option<NewKey>, DbError> {
    let api_key = generate_key()?;
    // Insert only when the account exists: one statement, no race with a concurrent delete.
    let added = on_db!(db, pool => sqlx::query(
        "INSERT INTO api_keys (key_hash, account_id, created_at)
         SELECT $1, id, $2 FROM accounts WHERE id = $3",
    )
    .bind(hash_key(&api_key).to_vec())
    .bind(now_ms())
    .bind(account)
    .execute(pool)
    .await?
    .rows_affected());
    Ok((added == 1).then_some(NewKey { account, api_key }))
}

/// Revokes an API key; whether it existed. A running server may still accept it for up to
/// `AuthCache::TTL` (the state's cache of verified keys).
pub async fn revoke_key(db: &Db, key: &str) -> Result<bool, DbError> {
    let removed = on_db!(db, pool => sqlx::query("DELETE FROM api_keys WHERE key_hash = $1")
        .bind(hash_key(key).to_vec())
        .execute(pool)
        .await?
        .rows_affected());
    Ok(removed == 1)
}

/// What `stillreel accounts rotate-webhook-secret` prints.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RotatedSecret {
    pub account: Uuid,
    pub webhook_secret: String,
    /// Until when (RFC 3339) deliveries also carry a signature made with the previous
    /// secret; `null` when the account had none.
    pub previous_valid_until: Option<String>,
}

/// Gives `account` a new webhook secret. The previous one keeps signing (a second signature
/// in `webhook-signature`) for [`crate::webhook::PREVIOUS_SECRET_GRACE`], so receivers can
/// switch without rejecting a delivery. `None` when there is no such account.
pub async fn rotate_webhook_secret(
    db: &Db,
    account: Uuid,
) -> Result<Option<RotatedSecret>, DbError> {
    let secret = crate::webhook::generate_secret()?;
    let grace =
        i64::try_from(crate::webhook::PREVIOUS_SECRET_GRACE.as_millis()).unwrap_or(i64::MAX);
    let until = now_ms().saturating_add(grace);
    // One statement: the old value is read and moved in the same row update.
    let sql = "UPDATE accounts
               SET webhook_secret_previous = webhook_secret,
                   webhook_secret_previous_until = CASE WHEN webhook_secret IS NULL THEN NULL ELSE $1 END,
                   webhook_secret = $2
               WHERE id = $3
               RETURNING webhook_secret_previous_until";
    let row: Option<Option<i64>> = match db {
        Db::Sqlite { write, .. } => {
            sqlx::query_scalar(sql)
                .bind(until)
                .bind(&secret)
                .bind(account)
                .fetch_optional(write)
                .await?
        }
        Db::Postgres(pool) => {
            sqlx::query_scalar(sql)
                .bind(until)
                .bind(&secret)
                .bind(account)
                .fetch_optional(pool)
                .await?
        }
    };
    Ok(row.map(|until| RotatedSecret {
        account,
        webhook_secret: secret,
        previous_valid_until: until.map(rfc3339),
    }))
}

/// Number of accounts (`serve` creates a first one when there is none).
pub async fn count(db: &Db) -> Result<i64, DbError> {
    Ok(
        on_db!(db, pool => sqlx::query_scalar("SELECT COUNT(*) FROM accounts").fetch_one(pool).await?),
    )
}

/// The account of an API key, or `None` for an unknown key.
pub async fn authenticate(db: &Db, key: &str) -> Result<Option<AccountCtx>, DbError> {
    let row: Option<KeyRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT a.id AS account_id, a.clip_limit, p.id AS default_project FROM api_keys k
         JOIN accounts a ON a.id = k.account_id
         JOIN projects p ON p.account_id = a.id AND p.is_default
         WHERE k.key_hash = $1",
    )
    .bind(hash_key(key).to_vec())
    .fetch_optional(pool)
    .await?);
    Ok(row.map(|row| AccountCtx {
        account_id: row.account_id,
        clip_limit: usize::try_from(row.clip_limit).unwrap_or(1),
        default_project: row.default_project,
    }))
}

/// What [`authenticate`] reads of a key's account.
#[derive(sqlx::FromRow)]
struct KeyRow {
    account_id: Uuid,
    clip_limit: i32,
    default_project: Uuid,
}

/// `GET /get_account`: what a client needs to know about the calling account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Account)]
pub struct AccountInfo {
    pub account: Uuid,
    pub name: String,
    /// Clips per video the account may request.
    pub clip_limit: usize,
    pub default_project: Uuid,
}

/// The account `ctx` belongs to. The name is read here rather than carried in [`AccountCtx`],
/// which the auth cache keeps for every request; only this endpoint needs it.
pub async fn info(db: &Db, ctx: &AccountCtx) -> Result<AccountInfo, DbError> {
    let name: String = on_db!(db, pool => sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
        .bind(ctx.account_id)
        .fetch_one(pool)
        .await?);
    Ok(AccountInfo {
        account: ctx.account_id,
        name,
        clip_limit: ctx.clip_limit,
        default_project: ctx.default_project,
    })
}

async fn insert_project(
    tx: &mut Tx,
    account: Uuid,
    id: Uuid,
    name: &str,
    is_default: bool,
    now: i64,
) -> Result<(), DbError> {
    on_tx!(tx, conn => sqlx::query(
        "INSERT INTO projects (id, account_id, name, is_default, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(account)
    .bind(name)
    .bind(is_default)
    .bind(now)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(())
}

/// Creates a (non-default) project.
pub async fn create_project(db: &Db, account: Uuid, name: &str) -> Result<Project, DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let mut tx = db.begin().await?;
    insert_project(&mut tx, account, id, name, false, now).await?;
    tx.commit().await?;
    Ok(Project {
        uuid: id,
        name: name.to_owned(),
        is_default: false,
        created_at: rfc3339(now),
    })
}

/// The projects of an account, oldest first.
pub async fn list_projects(db: &Db, account: Uuid) -> Result<Vec<Project>, DbError> {
    let rows: Vec<ProjectRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, name, is_default, created_at FROM projects WHERE account_id = $1 ORDER BY seq",
    )
    .bind(account)
    .fetch_all(pool)
    .await?);
    Ok(rows
        .into_iter()
        .map(|row| Project {
            uuid: row.id,
            name: row.name,
            is_default: row.is_default,
            created_at: rfc3339(row.created_at),
        })
        .collect())
}

/// A project's row as [`list_projects`] reads it.
#[derive(sqlx::FromRow)]
struct ProjectRow {
    id: Uuid,
    name: String,
    is_default: bool,
    created_at: i64,
}

/// Whether `project` exists and belongs to `account`.
pub async fn owns_project(db: &Db, account: Uuid, project: Uuid) -> Result<bool, DbError> {
    let found: Option<i32> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT 1 FROM projects WHERE id = $1 AND account_id = $2",
    )
    .bind(project)
    .bind(account)
    .fetch_optional(pool)
    .await?);
    Ok(found.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_prefixed_random_and_hashed() {
        let a = generate_key().expect("key");
        let b = generate_key().expect("key");
        assert_ne!(a, b);
        assert_eq!(a.len(), KEY_PREFIX.len() + 64);
        assert!(a.starts_with(KEY_PREFIX));
        assert_ne!(hash_key(&a), hash_key(&b));
        // Known SHA-256 vector, so the stored hash is the standard one.
        let abc = hash_key("abc");
        assert_eq!(abc[..4], [0xba, 0x78, 0x16, 0xbf]);
    }
}
