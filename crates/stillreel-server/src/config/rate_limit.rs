//! `STILLREEL_RATE_LIMIT`: the per-account request budget and its parser. The limiter
//! itself is `src/rate_limit.rs`.

use std::num::NonZeroU32;
use std::time::Duration;

/// A per-account request budget: `requests` per `period`, refilled evenly (see
/// `src/rate_limit.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub requests: NonZeroU32,
    pub period: Period,
}

/// The period of a [`RateLimit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Second,
    Minute,
    Hour,
}

impl Period {
    pub fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Period::Second => 1,
            Period::Minute => 60,
            Period::Hour => 3600,
        })
    }
}

impl RateLimit {
    /// Parses `STILLREEL_RATE_LIMIT`: `off` (no limit) or `<N>/<unit>`, N ≥ 1, unit `s`/`sec`/
    /// `second`, `m`/`min`/`minute` or `h`/`hour`. The caller treats unset and empty as `off`.
    pub fn parse(text: &str) -> Result<Option<RateLimit>, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        let expected =
            "expected off or <N>/<unit> with N at least 1 and unit s, min or h (e.g. 120/min)";
        let Some((count, unit)) = text.split_once('/') else {
            return Err(format!("{text:?}: {expected}"));
        };
        let (count, unit) = (count.trim(), unit.trim());
        // Digits only: `u32::from_str` would also take a sign (`+5`).
        let requests = Some(count)
            .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|c| c.parse::<NonZeroU32>().ok())
            .ok_or_else(|| {
                format!("{text:?}: {count:?} is not a whole number of at least 1; {expected}")
            })?;
        let period = match unit.to_ascii_lowercase().as_str() {
            "s" | "sec" | "second" => Period::Second,
            "m" | "min" | "minute" => Period::Minute,
            "h" | "hour" => Period::Hour,
            _ => return Err(format!("{text:?}: {unit:?} is not a unit; {expected}")),
        };
        // governor refills one request every period / N, counted in nanoseconds.
        if (period.duration() / requests.get()).is_zero() {
            return Err(format!(
                "{text:?}: more than one request per nanosecond cannot be limited"
            ));
        }
        Ok(Some(RateLimit { requests, period }))
    }
}
