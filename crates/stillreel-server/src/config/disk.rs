//! `STILLREEL_MIN_FREE_BYTES`: the free space the data folder's file system must keep for the
//! server to take new work.

use super::error::ConfigError;

/// `STILLREEL_MIN_FREE_BYTES` when unset: 512 MiB. Room for what one accepted request may
/// still write when it arrives just above the line: an upload (at most 50 MiB), a video's
/// work folder (its pictures of up to 40 MiB each, its clips, the joined video and its
/// branded copy, tens of MiB at 1080p) times the workers rendering at once, and SQLite's
/// write-ahead log. Under 1 % of any disk a render server runs on.
pub const DEFAULT_MIN_FREE_BYTES: u64 = 512 * 1024 * 1024;

/// Reads `STILLREEL_MIN_FREE_BYTES` (already trimmed, `None` when unset): whole bytes, `0`
/// for no guard.
pub fn min_free_bytes(text: Option<&str>) -> Result<u64, ConfigError> {
    match text {
        None => Ok(DEFAULT_MIN_FREE_BYTES),
        Some(text) => text.parse().map_err(|_| ConfigError {
            var: "STILLREEL_MIN_FREE_BYTES",
            message: format!("{text:?} is not a whole number of bytes (0 turns the guard off)"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bytes_or_the_default() {
        assert_eq!(
            min_free_bytes(None).expect("default"),
            DEFAULT_MIN_FREE_BYTES
        );
        assert_eq!(min_free_bytes(Some("0")).expect("off"), 0);
        assert_eq!(min_free_bytes(Some("1048576")).expect("1 MiB"), 1 << 20);
        for bad in ["-1", "1.5", "512MiB", "x"] {
            let err = min_free_bytes(Some(bad)).expect_err(bad);
            assert_eq!(err.var, "STILLREEL_MIN_FREE_BYTES");
        }
    }
}
