//! The server's own files, for the renderer's fetcher: a media URL under the public URL is
//! read from disk instead of over the network (no allow-list entry needed for ourselves, and
//! the README's demo works offline).

use std::path::PathBuf;
use std::sync::Arc;

use stillreel_render::OwnFiles;

use crate::storage::{Storage, check_key};

/// `/files/{key}` from storage, `/samples/{name}` from the samples directory.
#[derive(Debug, Clone)]
pub struct ServerFiles {
    storage: Arc<dyn Storage>,
    samples: PathBuf,
    /// The public URL's path (`""` or e.g. `/stillreel`), which every URL path starts with.
    base_path: String,
}

impl ServerFiles {
    pub fn new(storage: Arc<dyn Storage>, samples: PathBuf, base_path: &str) -> Self {
        ServerFiles {
            storage,
            samples,
            base_path: base_path.trim_end_matches('/').to_owned(),
        }
    }

    /// The local file for a URL path, by the routes that serve it (pure lookup, no I/O).
    pub fn resolve(&self, url_path: &str) -> Option<PathBuf> {
        let path = url_path.strip_prefix(self.base_path.as_str())?;
        if let Some(key) = path.strip_prefix("/files/") {
            // A video's checked inputs are nobody's media URL.
            return crate::storage::is_served_key(key)
                .then(|| self.storage.local_path(key))
                .flatten();
        }
        if let Some(name) = path.strip_prefix("/samples/") {
            // Exactly what `GET /samples/` serves (a picture or song directly in the folder), by
            // the rule the route serves by (`samples`): nothing it refuses can be read through a
            // media URL.
            if !crate::samples::is_sample_path(path) {
                return None;
            }
            return Some(self.samples.join(name));
        }
        None
    }
}

impl OwnFiles for ServerFiles {
    fn local_file(&self, url_path: &str) -> Option<PathBuf> {
        self.resolve(url_path).filter(|p| p.is_file())
    }

    /// `/files/{key}` in an object store: read through storage, never over HTTP from ourselves
    /// (which would need the API up, an allow-list entry and a redirect into the store).
    fn stored_file(&self, url_path: &str) -> Option<(Arc<dyn Storage>, String)> {
        let key = url_path
            .strip_prefix(self.base_path.as_str())?
            .strip_prefix("/files/")?;
        (check_key(key).is_ok()
            && crate::storage::is_served_key(key)
            && self.storage.local_path(key).is_none())
        .then(|| (Arc::clone(&self.storage), key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LocalStorage;

    #[test]
    fn maps_files_and_samples_and_nothing_else() {
        let files = ServerFiles::new(
            Arc::new(LocalStorage::new("/data/media", "/files")),
            PathBuf::from("/srv/samples"),
            "/",
        );
        assert_eq!(
            files.resolve("/files/videos/a/clip-000.mp4"),
            Some(PathBuf::from("/data/media/videos/a/clip-000.mp4"))
        );
        assert_eq!(
            files.resolve("/samples/house-colonial.jpg"),
            Some(PathBuf::from("/srv/samples/house-colonial.jpg"))
        );
        for refused in [
            "/samples/../etc/passwd",
            "/samples/a%2Fb.jpg",
            "/samples/README.md",
            "/samples/generate.py",
            "/samples/sub/x.jpg",
            "/samples/.hidden.jpg",
            "/files/../x",
            "/api/v1/get_video",
            "/samplesx/a.jpg",
            // Another video's checked inputs are no media URL.
            "/files/private/videos/a/input-000.png",
        ] {
            assert_eq!(files.resolve(refused), None, "{refused}");
        }
        let prefixed = ServerFiles::new(
            Arc::new(LocalStorage::new("/m", "/files")),
            PathBuf::from("/s"),
            "/reel/",
        );
        assert_eq!(
            prefixed.resolve("/reel/samples/a.jpg"),
            Some(PathBuf::from("/s/a.jpg"))
        );
        assert_eq!(prefixed.resolve("/samples/a.jpg"), None);
    }

    #[test]
    fn files_in_an_object_store_are_read_through_storage() {
        let local = ServerFiles::new(
            Arc::new(LocalStorage::new("/data/media", "/files")),
            PathBuf::from("/s"),
            "/",
        );
        // Local files are local files.
        assert!(local.stored_file("/files/uploads/a.jpg").is_none());
        let objects: Arc<dyn Storage> = Arc::new(
            stillreel_render::ObjectStorage::new(
                Arc::new(object_store::memory::InMemory::new()),
                "media",
                "/files",
                "memory".to_owned(),
            )
            .expect("storage"),
        );
        let remote = ServerFiles::new(objects, PathBuf::from("/s"), "/reel");
        let (_, key) = remote
            .stored_file("/reel/files/uploads/a.jpg")
            .expect("stored");
        assert_eq!(key, "uploads/a.jpg");
        assert_eq!(remote.resolve("/reel/files/uploads/a.jpg"), None);
        for refused in [
            "/files/uploads/a.jpg",
            "/reel/files/../x",
            "/reel/files/a/.hidden",
            "/reel/samples/a.jpg",
        ] {
            assert!(remote.stored_file(refused).is_none(), "{refused}");
        }
    }
}
