//! What every handler shares.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use stillreel_core::{Engine, ProviderHealth, Template, VfxType};
use stillreel_providers::Providers;

use crate::config::Config;
use crate::db::{Db, DbError};
use crate::metrics::Metrics;
use crate::rate_limit::AccountLimiter;
use crate::repo::accounts::{self, AccountCtx};
use crate::repo::videos;
use crate::storage::Storage;

/// The services both roles use, the HTTP API and the job runner: the database, storage,
/// configuration, templates, vfx and metrics. What a `stillreel worker` process holds.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct Services {
    pub db: Db,
    pub config: Arc<Config>,
    pub storage: Arc<dyn Storage>,
    /// The template catalog requests are validated against.
    pub templates: &'static [Template],
    /// The vfx types this deployment renders. Starts as the procedural ones; the render
    /// worker replaces it with what it can really do (see [`Services::set_available_vfx`]).
    pub available_vfx: Arc<RwLock<Vec<VfxType>>>,
    /// The engines this deployment renders. Starts as v24 and v25; the render worker adds
    /// `generative` when its `clip` role is configured ([`Services::set_available_engines`]).
    pub available_engines: Arc<RwLock<Vec<Engine>>>,
    pub metrics: Arc<Metrics>,
    /// The model roles' clients, for their last known health (`/get_engines`); the render
    /// worker sets them ([`Services::set_providers`]). Clones share the health they record.
    pub providers: Arc<RwLock<Providers>>,
    /// Rung after this process commits new jobs (a video stored, a step that queued the
    /// next): this process's idle job loops claim at once instead of at their next poll.
    /// Other processes hear of jobs through PostgreSQL's `NOTIFY`; polling stays the truth.
    pub jobs_queued: Arc<tokio::sync::Notify>,
}

impl Services {
    /// The vfx types requests may use right now.
    pub fn available_vfx(&self) -> Vec<VfxType> {
        self.available_vfx
            .read()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    /// The engines requests may use right now.
    pub fn available_engines(&self) -> Vec<Engine> {
        self.available_engines
            .read()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    /// Each configured role, its protocol and its last known health.
    pub fn provider_health(&self) -> Vec<ProviderHealth> {
        let Ok(providers) = self.providers.read() else {
            return Vec::new();
        };
        providers
            .roles()
            .iter()
            .filter_map(|config| providers.get(config.role))
            .map(|client| ProviderHealth {
                role: client.config().role.as_str().to_owned(),
                protocol: client.config().protocol.as_str().to_owned(),
                health: client.health().as_str().to_owned(),
            })
            .collect()
    }

    /// The clients whose health `/get_engines` shows.
    pub fn set_providers(&self, providers: Providers) {
        if let Ok(mut guard) = self.providers.write() {
            *guard = providers;
        }
    }

    /// Replaces the set of engines this deployment renders (`GET /get_engines` and
    /// validation follow at once).
    pub fn set_available_engines(&self, engines: Vec<Engine>) {
        if let Ok(mut guard) = self.available_engines.write() {
            *guard = engines;
        }
    }

    /// Replaces the set of vfx types this deployment renders (`GET /get_engines` and
    /// validation follow at once).
    pub fn set_available_vfx(&self, vfx: Vec<VfxType>) {
        if let Ok(mut guard) = self.available_vfx.write() {
            *guard = vfx;
        }
    }
}

/// The HTTP API's state: one shared [`Api`], reached through `Deref` (so handlers read
/// `state.db`). Axum clones the state for every extractor and middleware that takes it,
/// several times a request: behind one `Arc` a clone is one reference count, where a clone of
/// the fields was some fifteen (every pool, cache and channel of the database and the
/// writer), measured at 18 % of a cached `get_video`'s CPU.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Api>);

impl AppState {
    pub(crate) fn from_api(api: Api) -> Self {
        AppState(Arc::new(api))
    }
}

impl std::ops::Deref for AppState {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.0
    }
}

/// What the API holds: the shared [`Services`] (reached through `Deref`) and what only the API
/// uses.
#[derive(Debug)]
pub struct Api {
    pub services: Services,
    pub auth_cache: Arc<AuthCache>,
    /// Where new videos are stored (group commit on SQLite).
    pub videos: videos::Writer,
    /// The per-account rate limit, when `STILLREEL_RATE_LIMIT` sets one.
    pub rate_limiter: Option<Arc<AccountLimiter>>,
    /// The uploads each account is sending (`STILLREEL_HTTP_ACCOUNT_UPLOADS`).
    pub upload_slots: Arc<crate::upload_slots::UploadSlots>,
}

impl std::ops::Deref for Api {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.services
    }
}

/// Handlers that need only the shared services (`/healthz`, `/metrics`) take
/// `State<Services>`, and so serve both the API's router and a worker's health router.
impl axum::extract::FromRef<AppState> for Services {
    fn from_ref(state: &AppState) -> Self {
        state.services.clone()
    }
}

/// Key lookups, remembered briefly so a polling client does not cost a database round trip per
/// request. Known keys are kept for [`AuthCache::TTL`], which is also how long a key deleted
/// from the database keeps working on a node. Unknown keys are kept for the shorter
/// [`AuthCache::UNKNOWN_TTL`], so the same wrong key sent again costs no query. Each client
/// address may fail authentication `max_failures` times a minute: past that its unknown keys
/// get 429 instead of 401. A valid key is never refused for its address's failures (many
/// clients share one address behind a NAT or a proxy): it is still looked up, one indexed
/// query, the same as any request. Both maps are bounded.
#[derive(Debug)]
pub struct AuthCache {
    entries: Mutex<HashMap<[u8; 32], (AccountCtx, Instant)>>,
    unknown: Mutex<HashMap<[u8; 32], Instant>>,
    failures: Mutex<HashMap<IpAddr, (u32, Instant)>>,
    max_failures: u32,
}

impl Default for AuthCache {
    fn default() -> Self {
        Self::new(crate::config::HttpLimits::default().auth_failures_per_minute)
    }
}

/// Why a request was not authenticated.
#[derive(Debug)]
pub enum AuthRefusal {
    /// No such key.
    Unknown,
    /// This address failed too often; retry after this many seconds.
    TooManyFailures(u64),
    Db(DbError),
}

/// The unit failed authentications are counted by: the address itself for IPv4, its /64
/// for IPv6, where one client typically holds a whole /64 and could otherwise rotate
/// through its addresses to dodge the limit.
fn failure_scope(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(std::net::Ipv6Addr::from(bits))
            }
        },
        v4 @ IpAddr::V4(_) => v4,
    }
}

impl AuthCache {
    pub const TTL: Duration = Duration::from_secs(30);
    /// Short, so a key created a moment after someone guessed it still works almost at once.
    pub const UNKNOWN_TTL: Duration = Duration::from_secs(5);
    const FAILURE_WINDOW: Duration = Duration::from_secs(60);
    const MAX_ENTRIES: usize = 10_000;

    pub fn new(max_failures: u32) -> Self {
        Self {
            entries: Mutex::default(),
            unknown: Mutex::default(),
            failures: Mutex::default(),
            max_failures,
        }
    }

    /// The account of `key`, from the cache or the database.
    pub async fn authenticate(&self, db: &Db, key: &str) -> Result<Option<AccountCtx>, DbError> {
        match self.authenticate_from(db, key, None).await {
            Ok(ctx) => Ok(Some(ctx)),
            Err(AuthRefusal::Db(err)) => Err(err),
            Err(_) => Ok(None),
        }
    }

    /// The account of `key` for a client at `peer` (when known), counting its failures.
    pub async fn authenticate_from(
        &self,
        db: &Db,
        key: &str,
        peer: Option<IpAddr>,
    ) -> Result<AccountCtx, AuthRefusal> {
        let hash = accounts::hash_key(key);
        if let Ok(entries) = self.entries.lock()
            && let Some((ctx, at)) = entries.get(&hash)
            && at.elapsed() < Self::TTL
        {
            return Ok(*ctx);
        }
        let refusal = |ip: Option<IpAddr>| match ip.and_then(|ip| self.over_failure_limit(ip)) {
            Some(retry) => AuthRefusal::TooManyFailures(retry),
            None => AuthRefusal::Unknown,
        };
        let known_unknown = self.unknown.lock().is_ok_and(|u| {
            u.get(&hash)
                .is_some_and(|at| at.elapsed() < Self::UNKNOWN_TTL)
        });
        let found = if known_unknown {
            None
        } else {
            accounts::authenticate(db, key)
                .await
                .map_err(AuthRefusal::Db)?
        };
        let Some(ctx) = found else {
            if !known_unknown {
                bounded_insert(
                    &self.unknown,
                    hash,
                    Instant::now(),
                    Self::UNKNOWN_TTL,
                    |at| *at,
                );
            }
            // Judged before this failure counts: the limit's last allowed failure is a 401.
            let refused = refusal(peer);
            if let Some(ip) = peer {
                self.count_failure(ip);
            }
            return Err(refused);
        };
        bounded_insert(
            &self.entries,
            hash,
            (ctx, Instant::now()),
            Self::TTL,
            |(_, at)| *at,
        );
        Ok(ctx)
    }

    /// Seconds until `ip` may try again, when it used up its failures in this window.
    fn over_failure_limit(&self, ip: IpAddr) -> Option<u64> {
        let ip = failure_scope(ip);
        let failures = self.failures.lock().ok()?;
        let (count, since) = failures.get(&ip)?;
        let elapsed = since.elapsed();
        (*count >= self.max_failures && elapsed < Self::FAILURE_WINDOW)
            .then(|| (Self::FAILURE_WINDOW - elapsed).as_secs().max(1))
    }

    fn count_failure(&self, ip: IpAddr) {
        let Ok(mut failures) = self.failures.lock() else {
            return;
        };
        let ip = failure_scope(ip);
        if failures.len() >= Self::MAX_ENTRIES {
            failures.retain(|_, (_, since)| since.elapsed() < Self::FAILURE_WINDOW);
            // Still full: forget the addresses under the limit first, so a flood from many
            // addresses cannot wipe the count of the ones being refused.
            let max = self.max_failures;
            if failures.len() >= Self::MAX_ENTRIES {
                failures.retain(|_, (count, _)| *count >= max);
            }
            if failures.len() >= Self::MAX_ENTRIES {
                failures.clear();
            }
        }
        let entry = failures.entry(ip).or_insert((0, Instant::now()));
        if entry.1.elapsed() >= Self::FAILURE_WINDOW {
            *entry = (0, Instant::now());
        }
        entry.0 = entry.0.saturating_add(1);
    }
}

/// Inserts into a map that never grows past [`AuthCache::MAX_ENTRIES`]: expired entries go
/// first, everything if that is not enough.
fn bounded_insert<V>(
    map: &Mutex<HashMap<[u8; 32], V>>,
    key: [u8; 32],
    value: V,
    ttl: Duration,
    at: impl Fn(&V) -> Instant,
) {
    let Ok(mut map) = map.lock() else {
        return;
    };
    if map.len() >= AuthCache::MAX_ENTRIES {
        map.retain(|_, v| at(v).elapsed() < ttl);
        if map.len() >= AuthCache::MAX_ENTRIES {
            map.clear();
        }
    }
    map.insert(key, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_count_per_ipv4_address_and_per_ipv6_64() {
        let v4: IpAddr = "203.0.113.7".parse().expect("ip");
        assert_eq!(failure_scope(v4), v4);
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("ip");
        let b: IpAddr = "2001:db8:1:2:ffff:ffff:ffff:ffff".parse().expect("ip");
        let other: IpAddr = "2001:db8:1:3::1".parse().expect("ip");
        assert_eq!(failure_scope(a), failure_scope(b));
        assert_ne!(failure_scope(a), failure_scope(other));
        let mapped: IpAddr = "::ffff:203.0.113.7".parse().expect("ip");
        assert_eq!(failure_scope(mapped), v4);
    }

    #[test]
    fn rotating_ipv6_addresses_of_one_64_share_one_limit() {
        let cache = AuthCache::new(3);
        for n in 0..3u16 {
            let ip = IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 1, n, 0, 0, 1));
            assert_eq!(cache.over_failure_limit(ip), None);
            cache.count_failure(ip);
        }
        let fresh = IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 9, 9, 9, 9));
        assert!(cache.over_failure_limit(fresh).is_some());
    }

    #[test]
    fn a_full_table_keeps_the_addresses_being_refused() {
        let cache = AuthCache::new(2);
        let blocked: IpAddr = "198.51.100.1".parse().expect("ip");
        cache.count_failure(blocked);
        cache.count_failure(blocked);
        for n in 0..AuthCache::MAX_ENTRIES as u32 {
            cache.count_failure(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + n)));
        }
        assert!(cache.over_failure_limit(blocked).is_some());
    }
}
