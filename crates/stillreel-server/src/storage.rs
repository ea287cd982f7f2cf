//! Where rendered files live. The renderer writes through [`Storage`]; the server serves what
//! it stored at `GET /files/{key}` and builds public URLs from the key.
//!
//! Keys are relative, slash-separated paths made of `[A-Za-z0-9._-]` segments (never `..`),
//! e.g. `videos/<uuid>/main.mp4`: safe to join onto a directory and to put in a URL as is.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("invalid storage key {0:?}")]
    InvalidKey(String),
    #[error("storage I/O on {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// A boxed future, so the trait stays object-safe (`Arc<dyn Storage>`).
pub type StorageFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StorageError>> + Send + 'a>>;

/// A place to keep media files by key.
pub trait Storage: Send + Sync + std::fmt::Debug {
    /// A local path the renderer may write `key` to before [`Storage::commit`] (ffmpeg writes
    /// files, not streams). Its parent directory exists.
    fn staging_path<'a>(&'a self, key: &'a str) -> StorageFuture<'a, PathBuf>;
    /// Makes the file written at `staging_path(key)` visible under `key`, atomically.
    fn commit<'a>(&'a self, key: &'a str, staged: &'a Path) -> StorageFuture<'a, ()>;
    /// Stores `bytes` under `key`, atomically.
    fn put<'a>(&'a self, key: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()>;
    /// Whether `key` exists.
    fn exists<'a>(&'a self, key: &'a str) -> StorageFuture<'a, bool>;
    /// A local path to read `key` from (for ffmpeg inputs such as clips to combine).
    fn local_path(&self, key: &str) -> Result<PathBuf, StorageError>;
}

/// Checks a key: relative, `/`-separated, segments of `[A-Za-z0-9._-]`, no `.` or `..`.
pub fn check_key(key: &str) -> Result<(), StorageError> {
    let ok = !key.is_empty()
        && key.len() <= 512
        && key.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        });
    if ok {
        Ok(())
    } else {
        Err(StorageError::InvalidKey(key.to_owned()))
    }
}

/// The public URL of a stored key.
pub fn public_url(base: &str, key: &str) -> String {
    format!("{base}/files/{key}")
}

/// Files under a directory (the data dir's `media/`), served by `GET /files/{key}`.
#[derive(Debug, Clone)]
pub struct LocalStorage {
    root: PathBuf,
}

impl LocalStorage {
    /// Storage rooted at `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory served at `/files`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> Result<PathBuf, StorageError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StorageError + '_ {
    move |source| StorageError::Io {
        path: path.display().to_string(),
        source,
    }
}

async fn ensure_parent(path: &Path) -> Result<(), StorageError> {
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(io(dir))?;
    }
    Ok(())
}

impl Storage for LocalStorage {
    fn staging_path<'a>(&'a self, key: &'a str) -> StorageFuture<'a, PathBuf> {
        Box::pin(async move {
            let final_path = self.path(key)?;
            let staged = final_path.with_extension(format!(
                "partial.{}",
                final_path
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("bin")
            ));
            ensure_parent(&staged).await?;
            Ok(staged)
        })
    }

    fn commit<'a>(&'a self, key: &'a str, staged: &'a Path) -> StorageFuture<'a, ()> {
        Box::pin(async move {
            let target = self.path(key)?;
            ensure_parent(&target).await?;
            tokio::fs::rename(staged, &target).await.map_err(io(staged))
        })
    }

    fn put<'a>(&'a self, key: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()> {
        Box::pin(async move {
            let staged = self.staging_path(key).await?;
            tokio::fs::write(&staged, bytes)
                .await
                .map_err(io(&staged))?;
            self.commit(key, &staged).await
        })
    }

    fn exists<'a>(&'a self, key: &'a str) -> StorageFuture<'a, bool> {
        Box::pin(async move {
            let path = self.path(key)?;
            Ok(tokio::fs::try_exists(&path).await.unwrap_or(false))
        })
    }

    fn local_path(&self, key: &str) -> Result<PathBuf, StorageError> {
        self.path(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_escape_the_root() {
        for good in ["a.mp4", "videos/0f1e/main.mp4", "clips/x_y-z.mp4"] {
            assert!(check_key(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "a/./b",
            "a b",
            "a\\b",
            "ä.mp4",
            "a/",
        ] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn put_then_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let storage = LocalStorage::new(dir.path().join("media"));
        assert!(!storage.exists("v/1/main.mp4").await.expect("exists"));
        storage
            .put("v/1/main.mp4", b"hello".to_vec())
            .await
            .expect("put");
        assert!(storage.exists("v/1/main.mp4").await.expect("exists"));
        let path = storage.local_path("v/1/main.mp4").expect("path");
        assert_eq!(std::fs::read(path).expect("read"), b"hello");
        // No staging file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path().join("media/v/1"))
            .expect("dir")
            .collect();
        assert_eq!(names.len(), 1);
        assert!(storage.put("../x", vec![]).await.is_err());
    }
}
