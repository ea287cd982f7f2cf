//! `STILLREEL_HTTP_*`: how long and how many connections a client may hold. Applied by
//! `src/serve.rs`.

use std::time::Duration;

use super::error::ConfigError;

/// Connection limits against slow or hoarding clients (`docs/SECURITY.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// `STILLREEL_HTTP_HEADER_TIMEOUT_SECS` (default 10): time to send a request's headers,
    /// from their first byte.
    pub header_timeout: Duration,
    /// `STILLREEL_HTTP_IDLE_TIMEOUT_SECS` (default 60): how long a connection may wait,
    /// before its first request or between requests, without sending one.
    pub idle_timeout: Duration,
    /// `STILLREEL_HTTP_BODY_TIMEOUT_SECS` (default 30): time to send a whole request body;
    /// later is 408.
    pub body_timeout: Duration,
    /// `STILLREEL_HTTP_MAX_CONNECTIONS` (default 1024): open connections served at once;
    /// further clients wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// `STILLREEL_HTTP_AUTH_FAILURES_PER_MIN` (default 30): unknown keys one client address
    /// may send a minute; past it, 429 without a database query.
    pub auth_failures_per_minute: u32,
    /// `STILLREEL_HTTP_ACCOUNT_UPLOADS` (default 4): uploads one account may be sending at
    /// once; one more is 429 `too_many_uploads` before its body is read, so one key's slow
    /// uploads hold at most this many of the `max_connections`.
    pub account_uploads: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            auth_failures_per_minute: 30,
            account_uploads: 4,
        }
    }
}

impl HttpLimits {
    /// Reads the variables through `get` (trimmed, empty = unset).
    pub(super) fn read(get: &impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let whole = |var: &'static str, default: u64, range: std::ops::RangeInclusive<u64>| {
            match get(var) {
                None => Ok(default),
                Some(text) => text
                    .parse::<u64>()
                    .ok()
                    .filter(|n| range.contains(n))
                    .ok_or_else(|| ConfigError {
                        var,
                        message: format!(
                            "{text:?} is not a whole number from {} to {}",
                            range.start(),
                            range.end()
                        ),
                    }),
            }
        };
        Ok(HttpLimits {
            header_timeout: Duration::from_secs(whole(
                "STILLREEL_HTTP_HEADER_TIMEOUT_SECS",
                10,
                1..=3600,
            )?),
            idle_timeout: Duration::from_secs(whole(
                "STILLREEL_HTTP_IDLE_TIMEOUT_SECS",
                60,
                1..=3600,
            )?),
            body_timeout: Duration::from_secs(whole(
                "STILLREEL_HTTP_BODY_TIMEOUT_SECS",
                30,
                1..=3600,
            )?),
            max_connections: usize::try_from(whole(
                "STILLREEL_HTTP_MAX_CONNECTIONS",
                1024,
                1..=1_000_000,
            )?)
            .unwrap_or(1024),
            auth_failures_per_minute: u32::try_from(whole(
                "STILLREEL_HTTP_AUTH_FAILURES_PER_MIN",
                30,
                1..=1_000_000,
            )?)
            .unwrap_or(30),
            account_uploads: usize::try_from(whole("STILLREEL_HTTP_ACCOUNT_UPLOADS", 4, 1..=1024)?)
                .unwrap_or(4),
        })
    }
}
