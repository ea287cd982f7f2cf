//! What every handler shares.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use stillreel_core::{Template, VfxType};

use crate::config::Config;
use crate::db::{Db, DbError};
use crate::metrics::Metrics;
use crate::rate_limit::AccountLimiter;
use crate::repo::accounts::{self, AccountCtx};
use crate::repo::group_commit::CreateWriter;
use crate::storage::Storage;

/// Shared application state. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub storage: Arc<dyn Storage>,
    /// The template catalog requests are validated against.
    pub templates: &'static [Template],
    /// The vfx types this deployment renders. Starts as the procedural ones; the render
    /// worker replaces it with what it can really do (see [`AppState::set_available_vfx`]).
    pub available_vfx: Arc<RwLock<Vec<VfxType>>>,
    pub metrics: Arc<Metrics>,
    pub auth_cache: Arc<AuthCache>,
    /// The group-commit writer for `create_video` (SQLite only).
    pub create_writer: Option<CreateWriter>,
    /// The per-account rate limit, when `STILLREEL_RATE_LIMIT` sets one.
    pub rate_limiter: Option<Arc<AccountLimiter>>,
}

impl AppState {
    /// The vfx types requests may use right now.
    pub fn available_vfx(&self) -> Vec<VfxType> {
        self.available_vfx
            .read()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    /// Replaces the set of vfx types this deployment renders (`GET /get_engines` and
    /// validation follow at once).
    pub fn set_available_vfx(&self, vfx: Vec<VfxType>) {
        if let Ok(mut guard) = self.available_vfx.write() {
            *guard = vfx;
        }
    }
}

/// Successful key lookups, remembered briefly so a polling client does not cost a database
/// round trip per request. Only known keys are cached (unknown ones would let anyone fill
/// memory); the cache is bounded and entries expire after [`AuthCache::TTL`], which is also
/// how long a key deleted from the database keeps working on a node.
#[derive(Debug, Default)]
pub struct AuthCache {
    entries: Mutex<HashMap<[u8; 32], (AccountCtx, Instant)>>,
}

impl AuthCache {
    pub const TTL: Duration = Duration::from_secs(30);
    const MAX_ENTRIES: usize = 10_000;

    /// The account of `key`, from the cache or the database.
    pub async fn authenticate(&self, db: &Db, key: &str) -> Result<Option<AccountCtx>, DbError> {
        let hash = accounts::hash_key(key);
        if let Ok(entries) = self.entries.lock()
            && let Some((ctx, at)) = entries.get(&hash)
            && at.elapsed() < Self::TTL
        {
            return Ok(Some(*ctx));
        }
        let found = accounts::authenticate(db, key).await?;
        if let Some(ctx) = found
            && let Ok(mut entries) = self.entries.lock()
        {
            if entries.len() >= Self::MAX_ENTRIES {
                entries.retain(|_, (_, at)| at.elapsed() < Self::TTL);
                if entries.len() >= Self::MAX_ENTRIES {
                    entries.clear();
                }
            }
            entries.insert(hash, (ctx, Instant::now()));
        }
        Ok(found)
    }
}
