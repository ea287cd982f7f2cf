//! The optional per-account rate limit (`STILLREEL_RATE_LIMIT`; 429 in
//! docs/API-DESIGN.md#status-codes).
//!
//! Each account has a bucket of N requests, refilled evenly over the period (GCRA, from the
//! `governor` crate): `120/min` allows a burst of 120, then one more every 0.5 s. Only requests
//! whose API key was verified are counted (the `Auth` extractor checks here), so a stranger
//! cannot spend someone else's budget with a wrong key. The state lives in this process's
//! memory: N processes behind a balancer allow up to N times the limit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use governor::clock::MonotonicClock;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};
use uuid::Uuid;

use crate::config::{Period, RateLimit};

/// How often buckets that are full again are dropped, so memory follows the accounts active
/// within the last period rather than every account ever seen.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// One bucket per account.
#[derive(Debug)]
pub struct AccountLimiter {
    // The clock is named, not governor's default: a feature turned on elsewhere in the build
    // (quanta) would otherwise change the type of instants we compute Retry-After from.
    inner: RateLimiter<Uuid, DashMapStateStore<Uuid>, MonotonicClock>,
}

impl AccountLimiter {
    pub fn new(limit: RateLimit) -> Self {
        // A bucket of N, one request back every period / N.
        let quota = match limit.period {
            Period::Second => Quota::per_second(limit.requests),
            Period::Minute => Quota::per_minute(limit.requests),
            Period::Hour => Quota::per_hour(limit.requests),
        };
        AccountLimiter {
            inner: RateLimiter::dashmap_with_clock(quota, MonotonicClock),
        }
    }

    /// Counts one request of `account`. `Err` holds the whole seconds to wait before the next
    /// one is allowed: rounded up, at least 1 (the `Retry-After` value).
    pub fn check(&self, account: Uuid) -> Result<(), u64> {
        self.inner
            .check_key(&account)
            .map_err(|not_until| retry_after_secs(not_until.wait_time_from(Instant::now())))
    }

    /// Drops buckets that are indistinguishable from a fresh one and returns memory.
    pub fn sweep(&self) {
        self.inner.retain_recent();
        self.inner.shrink_to_fit();
    }

    /// Accounts with a bucket in memory.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

/// `wait` as a `Retry-After` value: whole seconds, rounded up, at least 1 (a client told 0
/// would retry at once and be refused again).
pub fn retry_after_secs(wait: Duration) -> u64 {
    let whole = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    whole.max(1)
}

/// Sweeps `limiter` every [`SWEEP_EVERY`]; runs until aborted (the server aborts it on stop).
pub async fn sweep_periodically(limiter: Arc<AccountLimiter>) {
    let mut tick = tokio::time::interval(SWEEP_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        limiter.sweep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(text: &str) -> AccountLimiter {
        AccountLimiter::new(RateLimit::parse(text).expect("valid").expect("not off"))
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1001)), 2);
        assert_eq!(retry_after_secs(Duration::from_secs(20)), 20);
    }

    #[test]
    fn a_burst_of_n_then_refused_per_account() {
        let limits = limiter("3/min");
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        for _ in 0..3 {
            assert_eq!(limits.check(a), Ok(()));
        }
        // One request comes back every 20 s; the wait is just under that.
        assert_eq!(limits.check(a), Err(20));
        assert_eq!(
            limits.check(b),
            Ok(()),
            "another account has its own bucket"
        );
        assert_eq!(limits.len(), 2);
    }

    /// Requests `account` may make right now (stops at 1000).
    fn available(limits: &AccountLimiter, account: Uuid) -> u32 {
        let mut n = 0;
        while n < 1000 && limits.check(account).is_ok() {
            n += 1;
        }
        n
    }

    #[test]
    fn refills_evenly_over_the_period() {
        let limits = limiter("20/s"); // one request back every 50 ms
        let a = Uuid::new_v4();
        let start = Instant::now();
        assert_eq!(available(&limits, a), 20);
        assert_eq!(limits.check(a), Err(1));
        std::thread::sleep(Duration::from_millis(120));
        let refilled = available(&limits, a);
        let elapsed_ms = start.elapsed().as_millis();
        // One per 50 ms since the burst began: at least 2 after 120 ms, never the whole bucket.
        assert!(
            refilled >= 2 && u128::from(refilled) <= elapsed_ms / 50,
            "{refilled} refilled in {elapsed_ms} ms"
        );
    }

    #[test]
    fn sweep_drops_full_buckets_only() {
        // `idle` is full again 60 ms after its one request; `busy`, drained, needs a minute:
        // far apart, so a stalled test machine cannot blur them.
        let limits = limiter("1000/min");
        let (idle, busy) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(limits.check(idle), Ok(()));
        assert_eq!(available(&limits, busy), 1000);
        std::thread::sleep(Duration::from_millis(150));
        limits.sweep();
        assert_eq!(limits.len(), 1);
        let refilled = available(&limits, busy);
        assert!(
            (1..1000).contains(&refilled),
            "busy's bucket kept its state: {refilled}"
        );
    }
}
