//! A short-lived in-process cache of `get_video` answers, used on SQLite only.
//!
//! Clients poll `get_video`; on SQLite each query costs a hop to sqlx's connection thread and
//! back, which is most of the endpoint's cost. A SQLite deployment is one `serve` process
//! (several nodes need PostgreSQL), and every change to a video, its clips or its branding
//! goes through `repo::render` in that process, which invalidates the entry. So an entry is
//! never stale for changes made by this process; [`TTL`] bounds staleness should another
//! process write the same file anyway.
//!
//! Race: a reader that loaded a video just before a writer changed it must not store the old
//! answer after the writer's invalidation. Every invalidation bumps a generation counter; a
//! reader notes the generation before its query and stores only if it did not move.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use uuid::Uuid;

/// Longest life of an entry.
pub const TTL: Duration = Duration::from_secs(1);
const MAX_ENTRIES: usize = 50_000;

#[derive(Debug)]
struct Entry {
    account: Uuid,
    json: String,
    at: Instant,
}

/// Serialized `get_video` answers by video id.
#[derive(Debug, Default)]
pub struct VideoCache {
    entries: Mutex<HashMap<Uuid, Entry>>,
    generation: AtomicU64,
}

impl VideoCache {
    /// The cached answer for `video` if `account` owns it and it is fresh.
    pub fn get(&self, video: Uuid, account: Uuid) -> Option<String> {
        let entries = self.entries.lock().ok()?;
        let entry = entries.get(&video)?;
        (entry.account == account && entry.at.elapsed() < TTL).then(|| entry.json.clone())
    }

    /// The generation to pass to [`VideoCache::put`]; read it before querying.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Stores an answer read at `generation`, unless something was invalidated since.
    pub fn put(&self, video: Uuid, account: Uuid, json: String, generation: u64) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        // Checked under the lock: invalidate() bumps the counter under the same lock.
        if self.generation.load(Ordering::Acquire) != generation {
            return;
        }
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, e| e.at.elapsed() < TTL);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(
            video,
            Entry {
                account,
                json,
                at: Instant::now(),
            },
        );
    }

    /// Forgets `video` (call after changing it).
    pub fn invalidate(&self, video: Uuid) {
        if let Ok(mut entries) = self.entries.lock() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            entries.remove(&video);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_per_account_and_invalidated() {
        let cache = VideoCache::default();
        let (v, a, b) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let g = cache.generation();
        cache.put(v, a, "{}".into(), g);
        assert_eq!(cache.get(v, a).as_deref(), Some("{}"));
        assert_eq!(cache.get(v, b), None, "another account never sees it");
        cache.invalidate(v);
        assert_eq!(cache.get(v, a), None);
    }

    #[test]
    fn a_read_older_than_an_invalidation_is_not_stored() {
        let cache = VideoCache::default();
        let (v, a) = (Uuid::new_v4(), Uuid::new_v4());
        let before = cache.generation();
        cache.invalidate(v); // a writer changed the video while the reader was querying
        cache.put(v, a, "old".into(), before);
        assert_eq!(cache.get(v, a), None);
    }
}
