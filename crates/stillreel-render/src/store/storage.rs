//! Where finished files go. The render code only calls this trait: local files
//! ([`LocalStorage`]) and object stores (`objects::ObjectStorage`) sit behind it.

use std::path::{Path, PathBuf};

/// A storage failure, with a message for the log.
#[derive(Debug, thiserror::Error)]
#[error("storage: {0}")]
pub struct StorageError(pub String);

/// Finished renders, addressed by key (`videos/<uuid>/clip-000.mp4`: `/`-separated, made of
/// `[A-Za-z0-9._-]` segments, chosen by the caller).
pub trait Storage: Send + Sync + std::fmt::Debug {
    /// Stores the file at `local` under `key` (the local file may be moved away) and returns
    /// the URL path it is served at (`/files/videos/...`), to be put after the public URL.
    fn put(&self, local: &Path, key: &str) -> Result<String, StorageError>;

    /// Makes the stored file `key` available at the local path `dest` (a hard link or copy for
    /// local storage, a download for an object store).
    fn get(&self, key: &str, dest: &Path) -> Result<(), StorageError>;

    /// The URL path a stored key is served at (what [`Storage::put`] returned for it).
    fn url_path(&self, key: &str) -> String;

    /// A local file holding `key`, when this storage keeps files on this machine: the fetcher
    /// then reads the service's own media from disk instead of over HTTP. `None` for an object
    /// store (and for a malformed key).
    fn local_path(&self, key: &str) -> Option<PathBuf> {
        let _ = key;
        None
    }

    /// Removes stored file `key`; a key that is not there is not an error. Used for orphans:
    /// the upload of a worker whose lease was taken over, which no record points at.
    fn delete(&self, key: &str) -> Result<(), StorageError> {
        let path = self
            .local_path(key)
            .ok_or_else(|| StorageError(format!("bad storage key {key:?}")))?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StorageError(format!("{}: {e}", path.display()))),
        }
    }

    /// The keys stored under the folder `prefix` (a key without a trailing `/`), at any depth,
    /// in no particular order; none when there is no such folder. Only the orphan sweep lists,
    /// and only the folders of videos with abandoned jobs: never the whole store.
    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        let root = self
            .local_path(prefix)
            .ok_or_else(|| StorageError(format!("bad storage key {prefix:?}")))?;
        let mut keys = Vec::new();
        let mut folders = vec![(root, prefix.to_owned())];
        while let Some((dir, key)) = folders.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StorageError(format!("{}: {e}", dir.display()))),
            };
            for entry in entries {
                let entry = entry.map_err(|e| StorageError(format!("{}: {e}", dir.display())))?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let child = format!("{key}/{name}");
                match entry.file_type() {
                    Ok(t) if t.is_dir() => folders.push((entry.path(), child)),
                    // Half-written files (`.name.part`) are not keys (keys never start with a dot).
                    Ok(t) if t.is_file() && check_key(&child).is_ok() => keys.push(child),
                    _ => {}
                }
            }
        }
        Ok(keys)
    }

    /// The size of stored file `key`, `None` when there is none.
    fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let path = self
            .local_path(key)
            .ok_or_else(|| StorageError(format!("bad storage key {key:?}")))?;
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Ok(Some(meta.len())),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StorageError(format!("{}: {e}", path.display()))),
        }
    }

    /// The bytes of stored file `key` (check [`Storage::size`] first: this reads it whole).
    fn read(&self, key: &str) -> Result<Vec<u8>, StorageError> {
        let path = self
            .local_path(key)
            .ok_or_else(|| StorageError(format!("bad storage key {key:?}")))?;
        std::fs::read(&path).map_err(|e| StorageError(format!("{}: {e}", path.display())))
    }

    /// A URL that downloads `key` straight from the store for a while (a presigned GET), when
    /// the store has them. `None`: the service serves the file itself, from
    /// [`Storage::local_path`].
    fn download_url(&self, key: &str) -> Result<Option<String>, StorageError> {
        let _ = key;
        Ok(None)
    }

    /// What this storage is, for logs (a directory or `s3://bucket/prefix`).
    fn describe(&self) -> String {
        "local files".to_owned()
    }
}

/// [`Storage::get`] from async code: on a blocking thread, since a download from an object
/// store can take a while.
pub async fn get_async(
    storage: &std::sync::Arc<dyn Storage>,
    key: &str,
    dest: &Path,
) -> Result<(), StorageError> {
    let (storage, key, dest) = (
        std::sync::Arc::clone(storage),
        key.to_owned(),
        dest.to_path_buf(),
    );
    tokio::task::spawn_blocking(move || storage.get(&key, &dest))
        .await
        .map_err(|e| StorageError(format!("storage task failed: {e}")))?
}

/// The key of the JPEG still stored beside a rendered clip or video: `….mp4` → `….jpg`
/// (a clip's thumbnail, a video's poster).
pub fn still_key(media_key: &str) -> String {
    match media_key.strip_suffix(".mp4") {
        Some(stem) => format!("{stem}.jpg"),
        None => format!("{media_key}.jpg"),
    }
}

/// Files under a directory, served at `url_prefix` + key.
#[derive(Debug, Clone)]
pub struct LocalStorage {
    root: PathBuf,
    url_prefix: String,
}

impl LocalStorage {
    /// The directory files are kept in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn new(root: impl Into<PathBuf>, url_prefix: impl Into<String>) -> Self {
        LocalStorage {
            root: root.into(),
            url_prefix: url_prefix.into(),
        }
    }

    /// The file a key is stored in, if the key is well-formed.
    pub fn path_of(&self, key: &str) -> Result<PathBuf, StorageError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

/// Numbers the temporary files of [`LocalStorage::put`] within this process.
static PUTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The longest key (keys are also stored in the database and put in URLs).
pub const MAX_KEY_LEN: usize = 512;

/// Keys are relative, `/`-separated, and every segment is a plain name: no `..`, no absolute
/// paths, nothing a URL or the file system would read specially.
pub fn check_key(key: &str) -> Result<(), StorageError> {
    let ok = !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key.split('/').all(|seg| {
            !seg.is_empty()
                && !seg.starts_with('.')
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        });
    if ok {
        Ok(())
    } else {
        Err(StorageError(format!("bad storage key {key:?}")))
    }
}

impl LocalStorage {
    /// [`Storage::put`] of a file that should hold `expected` bytes: the stored copy is
    /// flushed to the disk and its size checked before it takes the key's name, so a full
    /// disk or a crash can never leave a short file under a key a record may point at.
    fn put_sized(&self, local: &Path, key: &str, expected: u64) -> Result<String, StorageError> {
        let dest = self.path_of(key)?;
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| StorageError(format!("{}: {e}", parent.display())))?;
        }
        // Write beside the destination and rename, so a reader never sees half a file and a
        // crash leaves either the old file or the new one. The temporary name starts with a dot
        // (no key does, so it is never served or taken for another key) and is unique to this
        // call (two writers of one key, e.g. an old lease holder and the new one, never share it).
        let temp = dest.with_file_name(format!(
            ".{}.{}-{}.part",
            dest.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
            std::process::id(),
            PUTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        ));
        let kept = (|| {
            if std::fs::rename(local, &temp).is_err() {
                std::fs::copy(local, &temp)
                    .map_err(|e| StorageError(format!("{}: {e}", temp.display())))?;
            }
            flush_sized(&temp, expected)?;
            std::fs::rename(&temp, &dest)
                .map_err(|e| StorageError(format!("{}: {e}", dest.display())))
        })();
        if let Err(e) = kept {
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
        // The new name lasts past a crash once its folder is flushed too.
        if let Some(parent) = dest.parent()
            && let Ok(folder) = std::fs::File::open(parent)
        {
            let _ = folder.sync_all();
        }
        Ok(self.url_path(key))
    }
}

/// Flushes `path` to the disk (`fsync`), then fails unless it holds `expected` bytes.
fn flush_sized(path: &Path, expected: u64) -> Result<(), StorageError> {
    let fail = |e: std::io::Error| StorageError(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(fail)?;
    file.sync_all().map_err(fail)?;
    let written = file.metadata().map_err(fail)?.len();
    if written != expected {
        return Err(StorageError(format!(
            "{}: {written} bytes stored of {expected}",
            path.display()
        )));
    }
    Ok(())
}

impl Storage for LocalStorage {
    fn put(&self, local: &Path, key: &str) -> Result<String, StorageError> {
        let expected = std::fs::metadata(local)
            .map_err(|e| StorageError(format!("{}: {e}", local.display())))?
            .len();
        self.put_sized(local, key, expected)
    }

    fn url_path(&self, key: &str) -> String {
        format!("{}/{key}", self.url_prefix.trim_end_matches('/'))
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.path_of(key).ok()
    }

    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn get(&self, key: &str, dest: &Path) -> Result<(), StorageError> {
        let src = self.path_of(key)?;
        let _ = std::fs::remove_file(dest);
        if std::fs::hard_link(&src, dest).is_err() {
            std::fs::copy(&src, dest)
                .map_err(|e| StorageError(format!("{}: {e}", src.display())))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        for good in ["a.mp4", "videos/0f3a/clip-000.mp4"] {
            assert!(check_key(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "a/.hidden",
            "a b",
            "a\\b",
            "x:y",
            "a/./b",
            "é.mp4",
        ] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
        let longest = format!("v/{}", "a".repeat(MAX_KEY_LEN - 2));
        assert!(check_key(&longest).is_ok());
        assert!(check_key(&format!("{longest}a")).is_err());
    }

    #[test]
    fn list_finds_the_keys_under_a_folder_at_any_depth() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = LocalStorage::new(dir.path().join("store"), "/files/");
        let src = dir.path().join("f");
        for key in ["videos/v1/a.mp4", "videos/v1/t0/b.mp4", "videos/v2/c.mp4"] {
            std::fs::write(&src, key).expect("write");
            storage.put(&src, key).expect("put");
        }
        // A half-written file is not a key.
        std::fs::write(dir.path().join("store/videos/v1/.x.part"), b"").expect("write");
        let mut keys = storage.list("videos/v1").expect("list");
        keys.sort();
        assert_eq!(keys, ["videos/v1/a.mp4", "videos/v1/t0/b.mp4"]);
        assert!(storage.list("videos/none").expect("list").is_empty());
        assert!(storage.list("../x").is_err());
    }

    #[test]
    fn put_refuses_a_file_of_another_size_than_its_source() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = LocalStorage::new(dir.path().join("store"), "/files/");
        let src = dir.path().join("out.mp4");
        std::fs::write(&src, b"data").expect("write");
        let err = storage
            .put_sized(&src, "videos/v1/main.mp4", 5)
            .expect_err("a short file is refused");
        assert!(err.0.contains("4 bytes stored of 5"), "{err}");
        // Nothing under the key, and no temporary file left behind.
        assert_eq!(
            storage.local_path("videos/v1/main.mp4").map(|p| p.exists()),
            Some(false)
        );
        let left = std::fs::read_dir(dir.path().join("store/videos/v1"))
            .expect("dir")
            .count();
        assert_eq!(left, 0);
        // The right size is stored.
        std::fs::write(&src, b"data").expect("write");
        storage
            .put_sized(&src, "videos/v1/main.mp4", 4)
            .expect("put");
        assert!(dir.path().join("store/videos/v1/main.mp4").exists());
    }

    #[test]
    fn put_then_get_round_trips() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = LocalStorage::new(dir.path().join("store"), "/files/");
        let src = dir.path().join("out.mp4");
        std::fs::write(&src, b"data").expect("write");
        let url = storage.put(&src, "videos/v1/main.mp4").expect("put");
        assert_eq!(url, "/files/videos/v1/main.mp4");
        let back = dir.path().join("back.mp4");
        storage.get("videos/v1/main.mp4", &back).expect("get");
        assert_eq!(std::fs::read(back).expect("read"), b"data");
        assert_eq!(
            storage.local_path("videos/v1/main.mp4"),
            Some(dir.path().join("store/videos/v1/main.mp4"))
        );
        assert_eq!(storage.local_path("../x"), None);
        // Nothing but the stored file is left in its folder.
        let names: Vec<String> = std::fs::read_dir(dir.path().join("store/videos/v1"))
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["main.mp4"]);
        assert!(
            storage
                .get("videos/v1/missing.mp4", &dir.path().join("x"))
                .is_err()
        );
    }
}
