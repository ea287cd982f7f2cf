//! The webhook retry schedule (`STILLREEL_WEBHOOK_RETRY_SCHEDULE`): its default and its
//! parser. Read with the rest of `Config`; the delivery code only reads the parsed
//! `Config::webhook_retry_schedule`.

use std::time::Duration;

/// The specification's schedule: delays before the 2nd, 3rd, ... attempt.
pub const DEFAULT_RETRY_SCHEDULE: [u64; 7] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/// Parses `STILLREEL_WEBHOOK_RETRY_SCHEDULE`: whole seconds, comma-separated, at least one,
/// each at most 7 days (a longer wait is almost certainly a typo).
pub fn parse_schedule(text: &str) -> Result<Vec<Duration>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim) {
        let secs = Some(item)
            .filter(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|i| i.parse::<u64>().ok())
            .filter(|&s| s <= 7 * 24 * 3600)
            .ok_or_else(|| {
                format!("{item:?} is not a whole number of seconds from 0 to 604800 (expected e.g. 5,300,1800)")
            })?;
        out.push(Duration::from_secs(secs));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_and_refuse_nonsense() {
        assert_eq!(
            parse_schedule("1, 2,3").expect("valid"),
            [1, 2, 3].map(Duration::from_secs)
        );
        assert_eq!(parse_schedule("0").expect("valid"), [Duration::ZERO]);
        for bad in ["", "1,,2", "-1", "1.5", "5s", "604801", "+3"] {
            assert!(parse_schedule(bad).is_err(), "{bad:?} accepted");
        }
    }
}
