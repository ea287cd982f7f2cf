//! Limits on what one job may fetch and run, and how the queue shares workers between
//! accounts. Read with the rest of `Config`; documented in `.env.example`.

use std::time::Duration;

use stillreel_core::limits::{MAX_AUDIO_BYTES, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS};
use stillreel_render::DEFAULT_FFMPEG_MEMORY_LIMIT;

/// The smallest `STILLREEL_FFMPEG_MAX_MEMORY`: below it every 1080p render fails, so a
/// smaller value is a mistake to refuse at start-up, not a limit.
pub const MIN_FFMPEG_MEMORY: u64 = 256 << 20;

use super::error::ConfigError;

/// What a job may fetch, how long it may take, how ffmpeg is held, and the per-account cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobLimits {
    /// `STILLREEL_MEDIA_MAX_BYTES` (first value): largest image download.
    pub max_image_bytes: u64,
    /// `STILLREEL_MEDIA_MAX_BYTES` (second value, or the first when there is one): largest
    /// audio download.
    pub max_audio_bytes: u64,
    /// `STILLREEL_MEDIA_MAX_PIXELS`: most pixels an image header may declare.
    pub max_pixels: u64,
    /// `STILLREEL_FFMPEG_MAX_MEMORY`: data-segment limit of each ffmpeg run and each HEIC
    /// decode (`None`: off).
    pub ffmpeg_max_memory: Option<u64>,
    /// `STILLREEL_FETCH_DEADLINE_SECS`: time for all of one job's downloads together.
    pub fetch_deadline: Duration,
    /// `STILLREEL_FETCH_MIN_RATE`: slowest transfer tolerated, bytes per second (0: off).
    pub fetch_min_rate: u64,
    /// `STILLREEL_FETCH_RATE_WINDOW_SECS`: the window the minimum rate is judged over.
    pub fetch_rate_window: Duration,
    /// `STILLREEL_FETCH_CONCURRENCY`: downloads of one job at once.
    pub fetch_concurrency: usize,
    /// `STILLREEL_ACCOUNT_MAX_RUNNING`: jobs of one account running at once, across every
    /// process sharing the database. Unset: half of `STILLREEL_WORKERS` (as set, or as
    /// defaulted from the cores), at least two (so one video's clips render two at a time
    /// when nothing else waits).
    pub account_max_running: usize,
}

impl JobLimits {
    /// Reads the variables through `get` (trimmed, empty = unset); `workers` is
    /// `STILLREEL_WORKERS`, for the default per-account cap.
    pub fn read(
        get: impl Fn(&str) -> Option<String>,
        workers: usize,
    ) -> Result<JobLimits, ConfigError> {
        let (max_image_bytes, max_audio_bytes) = match get("STILLREEL_MEDIA_MAX_BYTES") {
            None => (MAX_IMAGE_BYTES, MAX_AUDIO_BYTES),
            Some(text) => {
                let bad = |why: String| ConfigError {
                    var: "STILLREEL_MEDIA_MAX_BYTES",
                    message: format!(
                        "{text:?}: {why}; expected <images>[,<audio>] in bytes, KiB, MiB or GiB (e.g. 40MiB,50MiB)"
                    ),
                };
                let mut parts = text.split(',').map(str::trim);
                let image = parse_bytes(parts.next().unwrap_or_default()).map_err(bad)?;
                let audio = match parts.next() {
                    None => image,
                    Some(part) => parse_bytes(part).map_err(bad)?,
                };
                if parts.next().is_some() {
                    return Err(bad("more than two sizes".to_owned()));
                }
                (image, audio)
            }
        };
        let max_pixels = match get("STILLREEL_MEDIA_MAX_PIXELS") {
            None => MAX_IMAGE_PIXELS,
            Some(text) => digits(&text)
                .filter(|&n| n > 0)
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_MEDIA_MAX_PIXELS",
                    message: format!("{text:?} is not a whole number of pixels of at least 1"),
                })?,
        };
        let ffmpeg_max_memory = match get("STILLREEL_FFMPEG_MAX_MEMORY") {
            None => Some(DEFAULT_FFMPEG_MEMORY_LIMIT),
            Some(text) if text.eq_ignore_ascii_case("off") => None,
            Some(text) => Some(
                parse_bytes(&text)
                    .and_then(|n| {
                        if n < MIN_FFMPEG_MEMORY {
                            Err(format!(
                                "under {} MiB, the least an HD render runs in",
                                MIN_FFMPEG_MEMORY >> 20
                            ))
                        } else {
                            Ok(n)
                        }
                    })
                    .map_err(|why| ConfigError {
                        var: "STILLREEL_FFMPEG_MAX_MEMORY",
                        message: format!("{text:?}: {why}; expected off or a size like 1536MiB"),
                    })?,
            ),
        };
        let seconds = |var: &'static str, default: u64| match get(var) {
            None => Ok(Duration::from_secs(default)),
            Some(text) => digits(&text)
                .filter(|s| (1..=3600).contains(s))
                .map(Duration::from_secs)
                .ok_or_else(|| ConfigError {
                    var,
                    message: format!("{text:?} is not a whole number of seconds from 1 to 3600"),
                }),
        };
        let fetch_deadline = seconds("STILLREEL_FETCH_DEADLINE_SECS", 60)?;
        let fetch_rate_window = seconds("STILLREEL_FETCH_RATE_WINDOW_SECS", 10)?;
        let fetch_min_rate = match get("STILLREEL_FETCH_MIN_RATE") {
            None => 16 * 1024,
            Some(text) => parse_bytes(&text).map_err(|why| ConfigError {
                var: "STILLREEL_FETCH_MIN_RATE",
                message: format!("{text:?}: {why}; expected bytes per second like 16KiB, or 0"),
            })?,
        };
        let fetch_concurrency = match get("STILLREEL_FETCH_CONCURRENCY") {
            None => 4,
            Some(text) => digits(&text)
                .filter(|n| (1..=32).contains(n))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_FETCH_CONCURRENCY",
                    message: format!("{text:?} is not a whole number from 1 to 32"),
                })?,
        };
        let account_max_running = match get("STILLREEL_ACCOUNT_MAX_RUNNING") {
            None => (workers / 2).max(2),
            Some(text) => digits(&text)
                .filter(|&n| n > 0)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_ACCOUNT_MAX_RUNNING",
                    message: format!("{text:?} is not a whole number of at least 1"),
                })?,
        };
        Ok(JobLimits {
            max_image_bytes,
            max_audio_bytes,
            max_pixels,
            ffmpeg_max_memory,
            fetch_deadline,
            fetch_min_rate,
            fetch_rate_window,
            fetch_concurrency,
            account_max_running,
        })
    }
}

/// ASCII digits only (`u64::from_str` would also take a sign).
fn digits(text: &str) -> Option<u64> {
    Some(text.trim())
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
}

/// `123`, `16KiB`, `40MiB`, `2GiB` (binary units; `K`, `M`, `G` and `B` forms accepted).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number = digits(number).ok_or_else(|| format!("{text:?} does not start with a number"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        other => return Err(format!("{other:?} is not a unit")),
    };
    number
        .checked_mul(scale)
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn read(vars: &[(&str, &str)], workers: usize) -> Result<JobLimits, ConfigError> {
        let map: HashMap<&str, &str> = vars.iter().copied().collect();
        JobLimits::read(|name| map.get(name).map(|v| (*v).to_owned()), workers)
    }

    #[test]
    fn defaults() {
        let l = read(&[], 4).expect("defaults");
        assert_eq!(l.max_image_bytes, 40 << 20);
        assert_eq!(l.max_audio_bytes, 50 << 20);
        assert_eq!(l.max_pixels, 50_000_000);
        assert_eq!(l.ffmpeg_max_memory, Some(1536 << 20));
        assert_eq!(l.fetch_deadline, Duration::from_secs(60));
        assert_eq!(l.fetch_min_rate, 16 * 1024);
        assert_eq!(l.fetch_rate_window, Duration::from_secs(10));
        assert_eq!(l.fetch_concurrency, 4);
        assert_eq!(l.account_max_running, 2);
        // Half the slots, at least two.
        assert_eq!(read(&[], 1).expect("one").account_max_running, 2);
        assert_eq!(read(&[], 0).expect("none").account_max_running, 2);
        assert_eq!(read(&[], 5).expect("five").account_max_running, 2);
        assert_eq!(read(&[], 8).expect("eight").account_max_running, 4);
    }

    #[test]
    fn every_variable_is_read() {
        let l = read(
            &[
                ("STILLREEL_MEDIA_MAX_BYTES", "20MiB, 1G"),
                ("STILLREEL_MEDIA_MAX_PIXELS", "1000000"),
                ("STILLREEL_FFMPEG_MAX_MEMORY", "off"),
                ("STILLREEL_FETCH_DEADLINE_SECS", "5"),
                ("STILLREEL_FETCH_MIN_RATE", "0"),
                ("STILLREEL_FETCH_RATE_WINDOW_SECS", "2"),
                ("STILLREEL_FETCH_CONCURRENCY", "8"),
                ("STILLREEL_ACCOUNT_MAX_RUNNING", "3"),
            ],
            1,
        )
        .expect("valid");
        assert_eq!((l.max_image_bytes, l.max_audio_bytes), (20 << 20, 1 << 30));
        assert_eq!(l.max_pixels, 1_000_000);
        assert_eq!(l.ffmpeg_max_memory, None);
        assert_eq!(l.fetch_deadline, Duration::from_secs(5));
        assert_eq!(l.fetch_min_rate, 0);
        assert_eq!(l.fetch_rate_window, Duration::from_secs(2));
        assert_eq!(l.fetch_concurrency, 8);
        assert_eq!(l.account_max_running, 3);
        let one = read(&[("STILLREEL_MEDIA_MAX_BYTES", "1048576")], 1).expect("one size");
        assert_eq!(
            (one.max_image_bytes, one.max_audio_bytes),
            (1 << 20, 1 << 20)
        );
        let mem = read(&[("STILLREEL_FFMPEG_MAX_MEMORY", "2GiB")], 1).expect("memory");
        assert_eq!(mem.ffmpeg_max_memory, Some(2 << 30));
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (var, value) in [
            ("STILLREEL_MEDIA_MAX_BYTES", "lots"),
            ("STILLREEL_MEDIA_MAX_BYTES", "1,2,3"),
            ("STILLREEL_MEDIA_MAX_BYTES", "40TiB"),
            ("STILLREEL_MEDIA_MAX_BYTES", "-1"),
            ("STILLREEL_MEDIA_MAX_PIXELS", "0"),
            ("STILLREEL_FFMPEG_MAX_MEMORY", "on"),
            ("STILLREEL_FFMPEG_MAX_MEMORY", "1"),
            ("STILLREEL_FFMPEG_MAX_MEMORY", "255MiB"),
            ("STILLREEL_FETCH_DEADLINE_SECS", "0"),
            ("STILLREEL_FETCH_RATE_WINDOW_SECS", "3601"),
            ("STILLREEL_FETCH_MIN_RATE", "fast"),
            ("STILLREEL_FETCH_CONCURRENCY", "0"),
            ("STILLREEL_ACCOUNT_MAX_RUNNING", "0"),
        ] {
            let err = read(&[(var, value)], 1).expect_err(value);
            assert_eq!(err.var, var, "{value}");
        }
    }
}
