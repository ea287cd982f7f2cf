//! One model call per input: before calling a role for an input it has not stored yet, a job
//! claims the input's cache key; jobs that find it claimed wait for the holder's answer to
//! appear in storage instead of calling too. The server keeps the claims in its database, so
//! workers on several machines share them; [`LocalClaims`] keeps them in process (a renderer
//! without a database, the render crate's tests). A claim lapses after its lease, so a holder
//! killed mid-call holds nobody up for longer than that.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

/// Where claims on model calls are kept.
pub trait CallClaims: Send + Sync + std::fmt::Debug {
    /// Claims `key` for `holder` until `lease` has passed; `true` when `holder` now holds it
    /// (it was free, lapsed, or already `holder`'s). A store that cannot answer says `true`:
    /// a second call costs money, a job stuck behind a broken store costs the video.
    fn claim<'a>(&'a self, key: &'a str, holder: &'a str, lease: Duration) -> BoxFuture<'a, bool>;

    /// Gives `key` back if `holder` still holds it.
    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, ()>;
}

/// Claims in this process only.
#[derive(Debug, Default)]
pub struct LocalClaims {
    held: Mutex<HashMap<String, (String, Instant)>>,
}

impl CallClaims for LocalClaims {
    fn claim<'a>(&'a self, key: &'a str, holder: &'a str, lease: Duration) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let Ok(mut held) = self.held.lock() else {
                return true;
            };
            let now = Instant::now();
            match held.get(key) {
                Some((who, until)) if who != holder && *until > now => false,
                _ => {
                    held.insert(key.to_owned(), (holder.to_owned(), now + lease));
                    true
                }
            }
        })
    }

    fn release<'a>(&'a self, key: &'a str, holder: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Ok(mut held) = self.held.lock()
                && held.get(key).is_some_and(|(who, _)| who == holder)
            {
                held.remove(key);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_holder_at_a_time_until_release_or_lapse() {
        let claims = LocalClaims::default();
        let long = Duration::from_secs(60);
        assert!(claims.claim("k", "a", long).await);
        assert!(claims.claim("k", "a", long).await, "the holder again");
        assert!(!claims.claim("k", "b", long).await);
        assert!(claims.claim("other", "b", long).await);
        claims.release("k", "b").await;
        assert!(
            !claims.claim("k", "b", long).await,
            "only the holder releases"
        );
        claims.release("k", "a").await;
        assert!(claims.claim("k", "b", Duration::ZERO).await);
        assert!(
            claims.claim("k", "c", long).await,
            "a lapsed claim is taken over"
        );
    }
}
