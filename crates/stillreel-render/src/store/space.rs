//! How much room a folder's file system has left ([`free_bytes`]), for the server's free-space
//! guard. (A render that failed for a full disk is told by `RenderError::is_out_of_space`.)

use std::path::Path;

/// Bytes an unprivileged process may still write on the file system holding `dir`
/// (`statvfs`: available blocks times the fragment size; one system call). `None` where the
/// platform has no `statvfs` here.
pub fn free_bytes(dir: &Path) -> std::io::Result<Option<u64>> {
    #[cfg(target_os = "linux")]
    {
        let stat = rustix::fs::statvfs(dir)?;
        Ok(Some(stat.f_bavail.saturating_mul(stat.f_frsize)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_has_some_free_space() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(
            free_bytes(dir.path())
                .expect("statvfs")
                .is_some_and(|n| n > 0)
        );
        assert!(free_bytes(&dir.path().join("missing")).is_err());
    }
}
