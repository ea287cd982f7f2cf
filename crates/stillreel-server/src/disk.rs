//! The free-space guard (`STILLREEL_MIN_FREE_BYTES`): when the data folder's file system has
//! less room than the operator asked to keep, the requests that create files are refused
//! (507 `insufficient_storage`) before anything is written, and `/readyz` says not ready, so
//! a load balancer sends the work elsewhere. One `statvfs` a check.

use crate::config::Config;

/// Whether the data folder's file system has less free space than `STILLREEL_MIN_FREE_BYTES`.
/// Never with the guard off (`0`), nor when the free space cannot be read (logged): the guard
/// is about a full disk, not a health check of the folder.
pub fn is_low(config: &Config) -> bool {
    if config.min_free_bytes == 0 {
        return false;
    }
    match stillreel_render::store::space::free_bytes(&config.data_dir) {
        Ok(Some(free)) => free < config.min_free_bytes,
        Ok(None) => false,
        Err(e) => {
            tracing::warn!(
                error = %e,
                dir = %config.data_dir.display(),
                "the data folder's free space could not be read"
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn config(dir: &Path, min: &str) -> Config {
        let dir = dir.to_string_lossy().into_owned();
        Config::from_lookup_in(
            |name| match name {
                "STILLREEL_DATA_DIR" => Some(dir.clone()),
                "STILLREEL_MIN_FREE_BYTES" => Some(min.to_owned()),
                _ => None,
            },
            Path::new("/"),
        )
        .expect("config")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn low_only_under_the_operators_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(is_low(&config(dir.path(), &(u64::MAX / 2).to_string())));
        assert!(!is_low(&config(dir.path(), "1")));
        assert!(!is_low(&config(dir.path(), "0")));
        // A folder that cannot be read is no verdict.
        assert!(!is_low(&config(&dir.path().join("missing"), "1")));
    }
}
