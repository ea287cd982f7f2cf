//! `STILLREEL_DATABASE_URL` and `STILLREEL_DATABASE_POOL_SIZE`: which database, and how many
//! connections to it.

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::paths;

/// Which database to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseConfig {
    /// A SQLite file (created when missing).
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://` or `postgresql://`).
    Postgres(String),
}

/// `STILLREEL_DATABASE_POOL_SIZE` when unset.
pub const DEFAULT_DATABASE_POOL_SIZE: u32 = 16;

/// `STILLREEL_DATABASE_URL`: unset, `stillreel.db` in the (absolute) `data_dir`; a
/// `sqlite:` file is made absolute against `working_dir` like every configured path.
pub(super) fn database(
    get: &impl Fn(&str) -> Option<String>,
    data_dir: &Path,
    working_dir: Result<&Path, &str>,
) -> Result<DatabaseConfig, ConfigError> {
    const VAR: &str = "STILLREEL_DATABASE_URL";
    let Some(url) = get(VAR) else {
        return Ok(DatabaseConfig::Sqlite(data_dir.join("stillreel.db")));
    };
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(DatabaseConfig::Postgres(url));
    }
    match url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        Some(path) => Ok(DatabaseConfig::Sqlite(paths::absolute(
            VAR,
            Path::new(path),
            working_dir,
        )?)),
        None => Err(ConfigError {
            var: VAR,
            message: "expected postgres://... or sqlite:<file>".to_owned(),
        }),
    }
}

/// `STILLREEL_DATABASE_POOL_SIZE`: 1 to 1000, default [`DEFAULT_DATABASE_POOL_SIZE`].
pub(super) fn pool_size(get: &impl Fn(&str) -> Option<String>) -> Result<u32, ConfigError> {
    match get("STILLREEL_DATABASE_POOL_SIZE") {
        None => Ok(DEFAULT_DATABASE_POOL_SIZE),
        Some(text) => text
            .parse()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| ConfigError {
                var: "STILLREEL_DATABASE_POOL_SIZE",
                message: format!("{text:?} is not a whole number from 1 to 1000"),
            }),
    }
}
