//! Scratch space for renders: `<data dir>/work/<node>/job-<id>-<attempt>`, one folder per
//! process (`node` is the process's random id).
//!
//! A process holds an exclusive lock on `<node>/.lock` for as long as it lives; the kernel
//! drops the lock when the process dies, however it dies. At start each process removes the
//! folders of the others whose lock it can take: their owner is gone (killed with `kill -9`,
//! crashed), so their scratch files would otherwise stay forever. Folders of live processes
//! that share the data directory stay locked and are left alone.

use std::fs::{File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use uuid::Uuid;

const LOCK_FILE: &str = ".lock";

/// This process's scratch folder, locked while the value lives.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
    /// Held, never read: the lock lives as long as the open file.
    _lock: Option<File>,
}

impl Scratch {
    /// Creates and locks `root/<node>`. The folder is made and locked under a temporary name
    /// that no sweep looks at, then renamed into place (the lock stays with the open file):
    /// another process starting at the same moment never sees it unlocked. Without a lock (a
    /// file system that refuses `flock`) the folder still works; other processes' sweeps then
    /// cannot lock it either, so they leave it alone.
    pub fn claim(root: &Path, node: Uuid) -> io::Result<Self> {
        let dir = root.join(node.to_string());
        let staging = root.join(format!(".claim-{node}"));
        std::fs::create_dir_all(&staging)?;
        let file = File::create(staging.join(LOCK_FILE))?;
        let lock = match file.try_lock() {
            Ok(()) => Some(file),
            Err(err) => {
                tracing::warn!(dir = %dir.display(), error = %err, "cannot lock the scratch folder");
                None
            }
        };
        std::fs::rename(&staging, &dir)?;
        Ok(Self { dir, _lock: lock })
    }

    /// The folder of one attempt at one job.
    pub fn job_dir(&self, job_id: i64, attempt: i32) -> PathBuf {
        self.dir.join(format!("job-{job_id}-{attempt}"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    /// A process that stops cleanly leaves nothing behind (its jobs' folders are already gone).
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Removes the scratch folders under `root` of processes that are gone, never `keep`.
/// Returns the folders removed.
pub fn sweep(root: &Path, keep: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let is_node_dir = entry.file_type().is_ok_and(|t| t.is_dir())
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| Uuid::parse_str(n).is_ok());
        if !is_node_dir || path == keep {
            continue;
        }
        // No lock file: not made by `claim` (which renames a locked folder into place).
        let owner_gone = match File::open(path.join(LOCK_FILE)) {
            Ok(file) => match file.try_lock() {
                Ok(()) => true,
                Err(TryLockError::WouldBlock) => false,
                Err(TryLockError::Error(_)) => false,
            },
            Err(err) => err.kind() == io::ErrorKind::NotFound,
        };
        if owner_gone {
            kill_processes_in(&path);
            match std::fs::remove_dir_all(&path) {
                Ok(()) => removed.push(path),
                Err(err) => {
                    tracing::warn!(dir = %path.display(), error = %err, "cannot remove a dead process's scratch folder");
                }
            }
        }
    }
    removed
}

/// Kills the processes whose working directory is inside `dir`: the ffmpeg runs of a worker
/// that died (each runs in its job's folder, in a process group of its own, so it outlived
/// its parent). Read from `/proc`; elsewhere nothing is found.
fn kill_processes_in(dir: &Path) {
    // /proc shows resolved paths.
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let dir = dir.as_path();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in procs.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let inside =
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir));
        if inside {
            // No `unsafe` (so no libc::kill): the `kill` utility sends the signal.
            let killed = std::process::Command::new("kill")
                .args(["-KILL", pid])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
            tracing::info!(pid, dir = %dir.display(), ok = killed.is_ok_and(|s| s.success()), "killed a dead worker's process");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_folders_of_dead_processes_and_keeps_locked_ones() {
        let root = tempfile::tempdir().expect("temp dir");
        let alive = Scratch::claim(root.path(), Uuid::new_v4()).expect("claim");
        let other = Scratch::claim(root.path(), Uuid::new_v4()).expect("claim");
        std::fs::create_dir_all(other.job_dir(7, 1)).expect("job dir");
        // A process that is gone: its folder exists, nobody holds its lock.
        let dead = root.path().join(Uuid::new_v4().to_string());
        std::fs::create_dir_all(dead.join("job-3-1")).expect("dead dir");
        File::create(dead.join(LOCK_FILE)).expect("lock file");
        // A UUID folder without a lock file.
        let unlocked = root.path().join(Uuid::new_v4().to_string());
        std::fs::create_dir_all(&unlocked).expect("unlocked dir");
        // Not ours to touch: other names, and a claim in progress.
        let foreign = root.path().join("notes");
        std::fs::create_dir_all(&foreign).expect("foreign dir");
        let claiming = root.path().join(format!(".claim-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&claiming).expect("claiming dir");

        let mut removed = sweep(root.path(), alive.dir());
        removed.sort();
        let mut expected = vec![dead.clone(), unlocked.clone()];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(alive.dir().exists());
        assert!(
            other.job_dir(7, 1).exists(),
            "a live process's folder stays"
        );
        assert!(foreign.exists());
        assert!(claiming.exists());
        assert!(
            std::fs::read_dir(root.path())
                .expect("root")
                .filter_map(Result::ok)
                .all(|e| !e.file_name().to_string_lossy().starts_with(".claim-")
                    || e.path() == claiming),
            "claim renames its staging folder away"
        );

        // A process that stops cleanly removes its own folder.
        let other_dir = other.dir().to_path_buf();
        drop(other);
        assert!(!other_dir.exists());
        assert!(sweep(root.path(), alive.dir()).is_empty());
        assert!(alive.dir().exists());
    }
}
