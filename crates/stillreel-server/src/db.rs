//! The database handle: SQLite (embedded default) or PostgreSQL, behind one small enum.
//!
//! Why an enum over two typed pools rather than sqlx's `Any` driver: `Any` only carries the
//! types both drivers share (no `uuid`, no `jsonb`, no `timestamptz`), would make PostgreSQL
//! store UUIDs as text, and hides which dialect a statement runs on; the job claim has to
//! differ anyway (`FOR UPDATE SKIP LOCKED` against `BEGIN IMMEDIATE`). With the enum, most
//! statements are written once and compiled twice by [`on_db!`]/[`on_tx!`] (sqlx's SQLite
//! driver accepts PostgreSQL's `$1` placeholders), and the few that differ say so where they
//! are written. Inserts that go together (a new video's rows, a step's next jobs) are built
//! as one [`Batch`] instead: one round trip on SQLite, written once for both.
//!
//! SQLite gets two pools: many readers and **one writer**. SQLite allows one writer at a time
//! anyway; queueing writers in the pool instead of in SQLite's busy handler keeps latency
//! predictable, and every write transaction starts with `BEGIN IMMEDIATE` so a transaction
//! that reads before it writes can never deadlock on the lock upgrade (another process, such
//! as `stillreel accounts create`, may still hold the lock; the busy timeout covers that).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgPool, Postgres, Sqlite, SqlitePool, Transaction};

use crate::cache::VideoCache;
use crate::config::DatabaseConfig;
use crate::page_cache::PageCache;

mod batch;

pub use batch::{Batch, Value};

/// How long a SQLite connection waits for another process's write lock.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A database failure. Kept opaque: callers log it and answer 500 `internal`.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot create {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A storage key about to be recorded is not a valid key (a bug in the code that made it).
    #[error("storage key: {0}")]
    StorageKey(#[from] crate::storage::StorageError),
    /// Stored data contradicts itself or the schema (an unknown enum value, a stored request
    /// that no longer parses): only for what was read from the database.
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
    /// The task that stores new videos (group commit) stopped, dropped a request or panicked.
    #[error("the create writer {0}")]
    Writer(&'static str),
    /// The system gave no randomness (for a key or a secret).
    #[error("no randomness: {0}")]
    NoRandomness(String),
    /// A value could not be encoded for storage (JSON).
    #[error("cannot encode a value for storage: {0}")]
    Encode(String),
    /// A statement was built wrong (a bug): placeholders and values do not match.
    #[error("a statement was built wrong: {0}")]
    BadStatement(String),
    /// A value does not fit its column.
    #[error("out of range: {0}")]
    OutOfRange(&'static str),
}

/// Which backend a [`Db`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool on either backend. Cheap to clone.
#[derive(Debug, Clone)]
pub enum Db {
    Sqlite {
        read: SqlitePool,
        write: SqlitePool,
        videos: Arc<VideoCache>,
        pages: Arc<PageCache>,
    },
    Postgres(PgPool),
}

/// An open write transaction on either backend. It remembers which videos it changed
/// ([`Tx::touch`]) so that [`Tx::commit`] drops their cached `get_video` answers and the
/// `get_videos` pages they may be on: the one place a changed video leaves the caches, and only after the change is visible to readers (a
/// rolled-back transaction drops nothing, and no reader can re-cache the old row between
/// the invalidation and the commit).
#[derive(Debug)]
pub struct Tx {
    pub(crate) conn: TxConn,
    touched: Vec<uuid::Uuid>,
    /// The `get_video` answers and the `get_videos` pages to drop at commit (SQLite only).
    cache: Option<(Arc<VideoCache>, Arc<PageCache>)>,
}

/// The backend connection of a [`Tx`].
#[derive(Debug)]
pub enum TxConn {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

/// Runs `$body` with `$conn` bound to the read pool of whichever backend `$db` is.
/// The body is compiled once per backend, so it must type-check on both.
#[macro_export]
#[doc(hidden)]
macro_rules! on_db {
    ($db:expr, $conn:ident => $body:expr) => {
        match $db {
            $crate::db::Db::Sqlite { read: $conn, .. } => $body,
            $crate::db::Db::Postgres($conn) => $body,
        }
    };
}

/// Runs `$body` with `$conn` bound to the connection of the open transaction `$tx`.
#[macro_export]
#[doc(hidden)]
macro_rules! on_tx {
    ($tx:expr, $conn:ident => $body:expr) => {
        match &mut ($tx).conn {
            $crate::db::TxConn::Sqlite(t) => {
                let $conn = &mut **t;
                $body
            }
            $crate::db::TxConn::Postgres(t) => {
                let $conn = &mut **t;
                $body
            }
        }
    };
}

pub use {on_db, on_tx};

impl Db {
    /// Connects, creating the SQLite file (and its directory) when needed, and applies the
    /// migrations of the backend; a PostgreSQL pool of the default size
    /// ([`crate::config::DEFAULT_DATABASE_POOL_SIZE`]).
    pub async fn connect(config: &DatabaseConfig) -> Result<Self, DbError> {
        Self::connect_with(config, crate::config::DEFAULT_DATABASE_POOL_SIZE).await
    }

    /// [`Db::connect`] with at most `pool_size` PostgreSQL connections
    /// (`STILLREEL_DATABASE_POOL_SIZE`).
    pub async fn connect_with(config: &DatabaseConfig, pool_size: u32) -> Result<Self, DbError> {
        let db = match config {
            DatabaseConfig::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|source| DbError::Io {
                        path: dir.display().to_string(),
                        source,
                    })?;
                }
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    // NORMAL in WAL mode loses at most the last transactions on power loss,
                    // never consistency; FULL costs about 40 % of write throughput here.
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(SQLITE_BUSY_TIMEOUT)
                    .foreign_keys(true);
                // The writer never checkpoints by itself: an automatic checkpoint runs inside
                // the commit that crosses the threshold and fsyncs the database file there,
                // stalling that request (and every writer queued behind it) for up to
                // hundreds of milliseconds on a shared disk. `serve` checkpoints from a
                // reader connection instead ([`Db::checkpoint`]); on close SQLite checkpoints too.
                let write = SqlitePoolOptions::new()
                    .max_connections(1)
                    // A local file needs no liveness ping before each use; sqlx's default
                    // ping costs a round trip to the connection's thread per query.
                    .test_before_acquire(false)
                    // A larger page cache for the one writer: inserts touch the same index
                    // pages again and again, and the default 2 MB stops holding them once
                    // the tables grow past a few thousand videos.
                    .connect_with(
                        options
                            .clone()
                            .pragma("wal_autocheckpoint", "0")
                            .pragma("cache_size", "-32768"),
                    )
                    .await?;
                // Migrate through the writer before readers open, so they see the schema.
                sqlx::migrate!("./migrations/sqlite").run(&write).await?;
                // Readers are ordinary connections that only ever run SELECTs (a read-only
                // SQLite connection cannot create the WAL index of a fresh file).
                let read = SqlitePoolOptions::new()
                    .max_connections(reader_count())
                    .test_before_acquire(false)
                    .connect_with(options)
                    .await?;
                return Ok(Db::Sqlite {
                    read,
                    write,
                    videos: Arc::default(),
                    pages: Arc::default(),
                });
            }
            DatabaseConfig::Postgres(url) => {
                let options = PgConnectOptions::from_str(url)?;
                let pool = PgPoolOptions::new()
                    .max_connections(pool_size.max(1))
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(options)
                    .await?;
                Db::Postgres(pool)
            }
        };
        db.migrate().await?;
        Ok(db)
    }

    /// Applies the migrations of this backend (idempotent).
    pub async fn migrate(&self) -> Result<(), DbError> {
        match self {
            Db::Sqlite { write, .. } => sqlx::migrate!("./migrations/sqlite").run(write).await?,
            Db::Postgres(pool) => sqlx::migrate!("./migrations/postgres").run(pool).await?,
        }
        Ok(())
    }

    /// The backend.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite { .. } => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// Starts a write transaction (`BEGIN IMMEDIATE` on SQLite, see the module doc).
    pub async fn begin(&self) -> Result<Tx, DbError> {
        let (conn, cache) = match self {
            Db::Sqlite {
                write,
                videos,
                pages,
                ..
            } => (
                TxConn::Sqlite(write.begin_with("BEGIN IMMEDIATE").await?),
                Some((Arc::clone(videos), Arc::clone(pages))),
            ),
            Db::Postgres(pool) => (TxConn::Postgres(pool.begin().await?), None),
        };
        Ok(Tx {
            conn,
            touched: Vec::new(),
            cache,
        })
    }

    /// The `get_video` cache (SQLite only; see `cache.rs`).
    pub fn video_cache(&self) -> Option<&VideoCache> {
        match self {
            Db::Sqlite { videos, .. } => Some(videos),
            Db::Postgres(_) => None,
        }
    }

    /// The `get_videos` page cache (SQLite only; see `page_cache.rs`).
    pub fn page_cache(&self) -> Option<&PageCache> {
        match self {
            Db::Sqlite { pages, .. } => Some(pages),
            Db::Postgres(_) => None,
        }
    }

    /// Forgets the cached library pages of `account` (a video of it was created or deleted).
    pub fn invalidate_pages(&self, account: uuid::Uuid, created: Option<uuid::Uuid>) {
        if let Some(pages) = self.page_cache() {
            match created {
                Some(video) => pages.created(account, video),
                None => pages.invalidate_account(account),
            }
        }
    }

    /// Whether the database answers (`/readyz`).
    pub async fn ping(&self) -> bool {
        let result: Result<i32, sqlx::Error> =
            on_db!(self, pool => sqlx::query_scalar("SELECT 1").fetch_one(pool).await);
        result.is_ok()
    }

    /// Copies committed WAL content into the SQLite database file without blocking writers
    /// (`PRAGMA wal_checkpoint(PASSIVE)`), so the WAL stays small. No-op on PostgreSQL.
    pub async fn checkpoint(&self) -> Result<(), DbError> {
        if let Db::Sqlite { read, .. } = self {
            sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                .execute(read)
                .await?;
        }
        Ok(())
    }

    /// Closes every connection (graceful shutdown).
    pub async fn close(&self) {
        match self {
            Db::Sqlite { read, write, .. } => {
                read.close().await;
                write.close().await;
            }
            Db::Postgres(pool) => pool.close().await,
        }
    }
}

impl Tx {
    /// The backend this transaction runs on.
    pub fn backend(&self) -> Backend {
        match self.conn {
            TxConn::Sqlite(_) => Backend::Sqlite,
            TxConn::Postgres(_) => Backend::Postgres,
        }
    }

    /// Notes that this transaction changes what `get_video` answers for `video`; its cached
    /// answer is dropped when the transaction commits.
    pub fn touch(&mut self, video: uuid::Uuid) {
        if self.cache.is_some() && !self.touched.contains(&video) {
            self.touched.push(video);
        }
    }

    /// Commits the transaction, then drops the cached answers of the videos it touched.
    pub async fn commit(self) -> Result<(), DbError> {
        match self.conn {
            TxConn::Sqlite(t) => t.commit().await?,
            TxConn::Postgres(t) => t.commit().await?,
        }
        if let Some((answers, pages)) = &self.cache {
            for video in self.touched {
                answers.invalidate(video);
                pages.invalidate_video(video);
            }
        }
        Ok(())
    }
}

fn reader_count() -> u32 {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    u32::try_from(cores * 2).unwrap_or(8).clamp(2, 16)
}

/// Milliseconds since the Unix epoch: the one clock of the crate. Stored timestamps are
/// integers of this unit on both backends, so leases compare the same way everywhere.
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// RFC 3339 (UTC, millisecond precision) of a stored timestamp.
pub fn rfc3339(ms: i64) -> String {
    let nanos = i128::from(ms) * 1_000_000;
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_000_000_123), "2026-11-18T11:06:40.123Z");
        let parsed = time::OffsetDateTime::parse(
            &rfc3339(now_ms()),
            &time::format_description::well_known::Rfc3339,
        );
        assert!(parsed.is_ok());
    }
}
