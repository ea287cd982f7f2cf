//! A short-lived in-process cache of `get_videos` pages, used on SQLite only, beside the
//! `get_video` cache (`cache.rs`) and for the same reason: a library page is one query and the
//! JSON of up to 100 records, about twenty times a `get_video`, and a form that polls the
//! library asks for the same first page again and again.
//!
//! A page is an account's, under the exact query that made it (project, status, limit,
//! cursor). Every change that can move a video in or out of a page, or change a record on it,
//! drops the account's pages: a create and a delete name the account; a render's updates name
//! only the video, so the cache remembers each video's account when it sees it (created here
//! or listed on a cached page) and drops everything when it does not know the owner. [`TTL`]
//! bounds staleness for what does not go through this process (as in `cache.rs`).
//!
//! Race: a reader that queried a page just before a writer changed it must not store the old
//! page after the writer's invalidation. A reader takes a [`Ticket`] before its query; every
//! invalidation of the account (or of everything) moves what the ticket was taken against, and
//! [`PageCache::put`] stores only on an unchanged ticket.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use uuid::Uuid;

/// Longest life of a page.
pub const TTL: Duration = Duration::from_secs(1);
/// Bytes of pages kept at most; past it expired pages go, then everything.
const MAX_BYTES: usize = 32 << 20;
/// Video owners remembered at most; past it they are forgotten (invalidations of videos not
/// remembered drop every page, which is slower but never stale).
const MAX_OWNERS: usize = 200_000;
/// Accounts whose invalidation count is remembered at most.
const MAX_ACCOUNTS: usize = 100_000;

/// What a page was asked with: project, status, limit and the cursor's `(created_at, id)`.
pub type PageKey = (
    Option<Uuid>,
    Option<&'static str>,
    usize,
    Option<(i64, Uuid)>,
);

/// What a reader saw before its query: the cache-wide epoch and the account's last
/// invalidation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    epoch: u64,
    account: u64,
}

#[derive(Debug)]
struct Page {
    body: Bytes,
    at: Instant,
}

#[derive(Debug, Default)]
struct Inner {
    pages: HashMap<Uuid, HashMap<PageKey, Page>>,
    /// Which account each known video belongs to.
    owners: HashMap<Uuid, Uuid>,
    /// The counter value of each account's last invalidation.
    invalidated: HashMap<Uuid, u64>,
    /// Bumped when everything is invalidated (or the per-account record is forgotten).
    epoch: u64,
    counter: u64,
    bytes: usize,
}

impl Inner {
    fn ticket(&self, account: Uuid) -> Ticket {
        Ticket {
            epoch: self.epoch,
            account: self.invalidated.get(&account).copied().unwrap_or(0),
        }
    }

    fn drop_account(&mut self, account: Uuid) {
        if let Some(pages) = self.pages.remove(&account) {
            self.bytes -= pages.values().map(|p| p.body.len()).sum::<usize>();
        }
        if self.invalidated.len() >= MAX_ACCOUNTS {
            // Forgetting the counts would let an old ticket match again: move the epoch.
            self.invalidated.clear();
            self.epoch += 1;
        }
        self.counter += 1;
        self.invalidated.insert(account, self.counter);
    }

    fn drop_all(&mut self) {
        self.pages.clear();
        self.bytes = 0;
        self.epoch += 1;
    }

    fn remember(&mut self, video: Uuid, account: Uuid) {
        if self.owners.len() >= MAX_OWNERS && !self.owners.contains_key(&video) {
            self.owners.clear();
        }
        self.owners.insert(video, account);
    }
}

/// Serialized `get_videos` pages by account and query.
#[derive(Debug, Default)]
pub struct PageCache {
    inner: Mutex<Inner>,
}

impl PageCache {
    /// The cached page of `account` for `key`, if fresh.
    pub fn get(&self, account: Uuid, key: &PageKey) -> Option<Bytes> {
        let inner = self.inner.lock().ok()?;
        let page = inner.pages.get(&account)?.get(key)?;
        (page.at.elapsed() < TTL).then(|| page.body.clone())
    }

    /// The ticket to pass to [`PageCache::put`]; take it before querying.
    pub fn ticket(&self, account: Uuid) -> Option<Ticket> {
        Some(self.inner.lock().ok()?.ticket(account))
    }

    /// Stores a page of `account` read under `ticket`, listing `videos`, unless the account
    /// (or everything) was invalidated since.
    pub fn put(&self, account: Uuid, key: PageKey, videos: &[Uuid], body: Bytes, ticket: Ticket) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.ticket(account) != ticket {
            return;
        }
        for video in videos {
            inner.remember(*video, account);
        }
        if inner.bytes + body.len() > MAX_BYTES {
            for pages in inner.pages.values_mut() {
                pages.retain(|_, p| p.at.elapsed() < TTL);
            }
            inner.pages.retain(|_, pages| !pages.is_empty());
            inner.bytes = inner
                .pages
                .values()
                .flat_map(|pages| pages.values())
                .map(|p| p.body.len())
                .sum();
            if inner.bytes + body.len() > MAX_BYTES {
                inner.pages.clear();
                inner.bytes = 0;
            }
        }
        inner.bytes += body.len();
        let old = inner.pages.entry(account).or_default().insert(
            key,
            Page {
                body,
                at: Instant::now(),
            },
        );
        if let Some(old) = old {
            inner.bytes -= old.body.len();
        }
    }

    /// A video of `account` was created: remember its owner and drop the account's pages.
    pub fn created(&self, account: Uuid, video: Uuid) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.remember(video, account);
            inner.drop_account(account);
        }
    }

    /// Drops every page of `account` (after a change to one of its videos).
    pub fn invalidate_account(&self, account: Uuid) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.drop_account(account);
        }
    }

    /// Drops the pages `video` may be on: its account's when known, otherwise all of them.
    pub fn invalidate_video(&self, video: Uuid) {
        if let Ok(mut inner) = self.inner.lock() {
            match inner.owners.get(&video).copied() {
                Some(account) => inner.drop_account(account),
                None => inner.drop_all(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(limit: usize) -> PageKey {
        (None, None, limit, None)
    }

    #[test]
    fn pages_are_per_account_and_query() {
        let cache = PageCache::default();
        let (a, b, v) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let t = cache.ticket(a).expect("ticket");
        cache.put(a, key(50), &[v], Bytes::from_static(b"[a]"), t);
        assert_eq!(cache.get(a, &key(50)).as_deref(), Some(&b"[a]"[..]));
        assert_eq!(
            cache.get(a, &key(20)),
            None,
            "another query is another page"
        );
        assert_eq!(
            cache.get(b, &key(50)),
            None,
            "another account never sees it"
        );
    }

    #[test]
    fn a_listed_video_changing_drops_only_its_accounts_pages() {
        let cache = PageCache::default();
        let (a, b, va, vb) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        for (account, video) in [(a, va), (b, vb)] {
            let t = cache.ticket(account).expect("ticket");
            cache.put(account, key(50), &[video], Bytes::from_static(b"[]"), t);
        }
        cache.invalidate_video(va);
        assert_eq!(cache.get(a, &key(50)), None);
        assert!(cache.get(b, &key(50)).is_some(), "b's page stays");
    }

    #[test]
    fn a_video_of_unknown_owner_drops_every_page() {
        let cache = PageCache::default();
        let (a, v) = (Uuid::new_v4(), Uuid::new_v4());
        let t = cache.ticket(a).expect("ticket");
        cache.put(a, key(50), &[v], Bytes::from_static(b"[]"), t);
        // A video never seen (listed on no cached page, created before this process) may
        // belong to any account, and enter a page filtered by status once it changes.
        cache.invalidate_video(Uuid::new_v4());
        assert_eq!(cache.get(a, &key(50)), None);
    }

    #[test]
    fn a_created_video_drops_its_accounts_pages_and_is_remembered() {
        let cache = PageCache::default();
        let (a, b, v) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        for account in [a, b] {
            let t = cache.ticket(account).expect("ticket");
            cache.put(account, key(50), &[], Bytes::from_static(b"[]"), t);
        }
        cache.created(a, v);
        assert_eq!(cache.get(a, &key(50)), None);
        assert!(cache.get(b, &key(50)).is_some());
        // Its progress later drops a's pages only.
        let t = cache.ticket(a).expect("ticket");
        cache.put(a, key(50), &[v], Bytes::from_static(b"[v]"), t);
        cache.invalidate_video(v);
        assert_eq!(cache.get(a, &key(50)), None);
        assert!(cache.get(b, &key(50)).is_some());
    }

    #[test]
    fn a_page_read_before_an_invalidation_is_not_stored() {
        let cache = PageCache::default();
        let (a, v) = (Uuid::new_v4(), Uuid::new_v4());
        let before = cache.ticket(a).expect("ticket");
        cache.created(a, v); // a writer committed while the reader was querying
        cache.put(a, key(50), &[], Bytes::from_static(b"old"), before);
        assert_eq!(cache.get(a, &key(50)), None);
        let before = cache.ticket(a).expect("ticket");
        cache.invalidate_video(Uuid::new_v4()); // everything dropped meanwhile
        cache.put(a, key(50), &[], Bytes::from_static(b"old"), before);
        assert_eq!(cache.get(a, &key(50)), None);
    }

    #[test]
    fn the_byte_budget_holds() {
        let cache = PageCache::default();
        let big = Bytes::from(vec![b' '; MAX_BYTES / 3 + 1]);
        for _ in 0..5 {
            let a = Uuid::new_v4();
            let t = cache.ticket(a).expect("ticket");
            cache.put(a, key(50), &[], big.clone(), t);
            let inner = cache.inner.lock().expect("lock");
            assert!(inner.bytes <= MAX_BYTES, "{}", inner.bytes);
        }
    }
}
