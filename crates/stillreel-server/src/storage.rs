//! Where rendered files live. One trait for the worker that writes them and the routes that
//! read them: the render crate's [`Storage`]. The server keeps local files under
//! `<data dir>/media`, serves them at `GET /files/{key}` and builds public URLs from the key.
//!
//! Keys are relative, slash-separated paths made of `[A-Za-z0-9._-]` segments (no segment
//! starts with `.`), e.g. `videos/<uuid>/video.mp4`: safe to join onto a directory and to put
//! in a URL as is ([`check_key`]).

pub use stillreel_render::storage::{LocalStorage, Storage, StorageError, check_key};

use crate::config::Config;

/// The URL path stored files are served under.
pub const FILES_PATH: &str = "/files";

/// The local storage of a server with `config`: `<data dir>/media`, served at [`FILES_PATH`].
pub fn local(config: &Config) -> LocalStorage {
    LocalStorage::new(config.media_dir(), FILES_PATH)
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
