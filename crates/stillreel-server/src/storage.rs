//! Where rendered files live. One trait for the worker that writes them and the routes that
//! read them: the render crate's [`Storage`]. By default the server keeps local files under
//! `<data dir>/media` and serves them at `GET /files/{key}`; with `STILLREEL_STORAGE_URL=s3://…`
//! they live in a bucket and `GET /files/{key}` redirects to a presigned GET. Either way public
//! URLs are built from the key and never expire.
//!
//! Keys are relative, slash-separated paths made of `[A-Za-z0-9._-]` segments (no segment
//! starts with `.`), e.g. `videos/<uuid>/video.mp4`: safe to join onto a directory and to put
//! in a URL as is ([`check_key`]).

use std::sync::Arc;

use stillreel_render::ObjectStorage;
pub use stillreel_render::store::storage::{LocalStorage, Storage, StorageError, check_key};

use crate::config::{Config, StorageConfig};

/// The URL path stored files are served under.
pub const FILES_PATH: &str = "/files";

/// The first segment of keys that are stored but never served (a video's checked inputs):
/// `/files/` answers 404 for them and media URLs cannot name them.
pub const PRIVATE_PREFIX: &str = "private";

/// The prefix of the outro-card cache (`stillreel_render::brand::card_cache`): cards keyed
/// by a digest of what makes them, shared by every video of a brand; never served.
pub fn card_cache_prefix() -> String {
    format!("{PRIVATE_PREFIX}/brand-cache")
}

/// Where the stitch of video `video_id` leaves the branded sound it makes ahead
/// (`stillreel_render::AheadSound`), among the video's checked inputs: never served, and
/// removed with them, or by the branded render's record once it has taken it.
pub fn branded_sound_key(video_id: uuid::Uuid) -> String {
    format!("{PRIVATE_PREFIX}/videos/{video_id}/branded-sound.m4a")
}

/// Whether `key` may be served at `/files/` (and read back through a media URL): not under
/// [`PRIVATE_PREFIX`].
pub fn is_served_key(key: &str) -> bool {
    key.split('/').find(|s| !s.is_empty()) != Some(PRIVATE_PREFIX)
}

/// The local storage of a server with `config`: its `file://` folder (by default
/// `<data dir>/media`), served at [`FILES_PATH`].
pub fn local(config: &Config) -> LocalStorage {
    match &config.storage {
        StorageConfig::Local(root) => LocalStorage::new(root, FILES_PATH),
        StorageConfig::S3(_) => LocalStorage::new(config.media_dir(), FILES_PATH),
    }
}

/// The storage `config` names, checked: an object store must answer and take a write, or the
/// process does not start. The error names the variable to fix.
pub async fn open(config: &Config) -> Result<Arc<dyn Storage>, String> {
    match &config.storage {
        StorageConfig::Local(_) => Ok(Arc::new(local(config))),
        StorageConfig::S3(settings) => {
            let context =
                |e: StorageError| format!("STILLREEL_STORAGE_URL={}: {}", settings.url(), e.0);
            let storage = ObjectStorage::s3(settings, FILES_PATH).map_err(context)?;
            storage.check().await.map_err(context)?;
            Ok(Arc::new(storage))
        }
    }
}

/// Removes the folders under `prefix` (and `prefix` itself) that hold no file any more, deepest
/// first, on local storage; an object store has no folders. A folder a file appears in
/// meanwhile is kept (removing a folder that is not empty fails, which is the point).
pub fn remove_empty_folders(storage: &dyn Storage, prefix: &str) {
    fn prune(dir: &std::path::Path) {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    prune(&entry.path());
                }
            }
        }
        let _ = std::fs::remove_dir(dir);
    }
    if let Some(root) = storage.local_path(prefix) {
        prune(&root);
    }
}

/// The public URL of a stored key.
pub fn public_url(base: &str, key: &str) -> String {
    format!("{base}{FILES_PATH}/{key}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_and_local_paths_agree_on_the_key() {
        let storage = LocalStorage::new("/data/media", FILES_PATH);
        let key = "videos/0f1e/video.mp4";
        assert_eq!(
            public_url("https://reel.example", key),
            "https://reel.example/files/videos/0f1e/video.mp4"
        );
        assert_eq!(storage.url_path(key), "/files/videos/0f1e/video.mp4");
        assert_eq!(
            storage.local_path(key),
            Some(std::path::PathBuf::from(
                "/data/media/videos/0f1e/video.mp4"
            ))
        );
        for bad in ["../x", "a//b", "ä.mp4", "a/", "a/.hidden"] {
            assert!(check_key(bad).is_err(), "{bad}");
            assert_eq!(storage.local_path(bad), None, "{bad}");
        }
    }
}
