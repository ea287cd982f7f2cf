//! [`Storage`] on an object store (S3 or compatible, or object_store's local file system),
//! through the `object_store` crate.
//!
//! The render code calls [`Storage`] from blocking threads and the routes from async tasks, on
//! whatever runtime they run in (the tests' single-threaded ones too). So every store request
//! runs on a small runtime of its own and callers wait for the answer: a synchronous caller on
//! a channel, never by entering a runtime, which would panic inside an async task or deadlock a
//! single-threaded runtime. The store's HTTP connections live on that runtime only.
//!
//! About 500 lines of non-test code, kept in one file on purpose: settings, the private
//! runtime and the [`Storage`] methods share the client and its error wording, and splitting
//! them would only spread one adapter over several files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::signer::Signer;
use object_store::{
    Attribute, Attributes, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions,
    PutPayload, WriteMultipart,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::store::storage::{Storage, StorageError, check_key};

/// How an S3 (or S3-compatible) store is reached. Read from `STILLREEL_STORAGE_URL` and the
/// standard `AWS_*` variables by the server's configuration.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Settings {
    pub bucket: String,
    /// Key prefix inside the bucket (no leading or trailing `/`; empty for none).
    pub prefix: String,
    pub region: Option<String>,
    /// `AWS_ENDPOINT_URL`: an S3-compatible service instead of AWS.
    pub endpoint: Option<String>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// `AWS_ALLOW_HTTP=true`: a plain-HTTP endpoint.
    pub allow_http: bool,
    /// How long a presigned download URL stays valid.
    pub presign_expiry: Duration,
}

impl std::fmt::Debug for S3Settings {
    // Keys stay out of logs and panics.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("region", &self.region)
            .field("endpoint", &self.endpoint)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "…"),
            )
            .field("session_token", &self.session_token.as_ref().map(|_| "…"))
            .field("allow_http", &self.allow_http)
            .field("presign_expiry", &self.presign_expiry)
            .finish()
    }
}

impl S3Settings {
    /// `s3://bucket/prefix` as given.
    pub fn url(&self) -> String {
        if self.prefix.is_empty() {
            format!("s3://{}", self.bucket)
        } else {
            format!("s3://{}/{}", self.bucket, self.prefix)
        }
    }
}

/// Files at or above this size go up in parts.
pub const MULTIPART_THRESHOLD: usize = 16 << 20;
/// The size of one part (S3 wants at least 5 MiB for every part but the last).
pub const PART_SIZE: usize = 8 << 20;
/// Parts in flight at once per upload.
const PART_CONCURRENCY: usize = 4;
/// How long the start-up check may take before the store counts as unreachable (the store's
/// own retries would otherwise wait minutes).
const CHECK_TIMEOUT: Duration = Duration::from_secs(20);

/// Stored files in an object store, served at `url_prefix` + key by the API.
#[derive(Debug)]
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
    /// Presigns download URLs (S3); `None` for stores without them.
    signer: Option<Arc<dyn Signer>>,
    prefix: String,
    url_prefix: String,
    presign_expiry: Duration,
    multipart_threshold: usize,
    part_size: usize,
    /// Whether uploads carry a `Content-Type` (the store serves downloads itself: S3; the
    /// local file system store refuses attributes).
    content_types: bool,
    /// What the store is, for messages (`s3://bucket/prefix`).
    name: String,
    runtime: IoRuntime,
}

/// The runtime the store's requests run on; shut down without waiting when dropped (a drop
/// inside another runtime must not block).
#[derive(Debug)]
struct IoRuntime(Option<tokio::runtime::Runtime>);

impl Drop for IoRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl IoRuntime {
    fn new() -> Result<Self, StorageError> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("stillreel-storage")
            .enable_all()
            .build()
            .map(|rt| IoRuntime(Some(rt)))
            .map_err(|e| StorageError(format!("cannot start the storage runtime: {e}")))
    }

    fn handle(&self) -> &tokio::runtime::Handle {
        // Only `drop` takes the runtime out.
        match &self.0 {
            Some(rt) => rt.handle(),
            None => unreachable!("storage runtime used after drop"),
        }
    }

    /// Runs `fut` on the storage runtime and waits for it from any thread.
    fn wait<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T, StorageError>> + Send + 'static,
    ) -> Result<T, StorageError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| StorageError("the storage runtime stopped".to_owned()))?
    }

    /// Runs `fut` on the storage runtime and awaits it from another runtime.
    async fn run<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T, StorageError>> + Send + 'static,
    ) -> Result<T, StorageError> {
        self.handle()
            .spawn(fut)
            .await
            .map_err(|e| StorageError(format!("storage task failed: {e}")))?
    }
}

impl ObjectStorage {
    /// An S3 bucket (or an S3-compatible service) as storage. Builds the client only; call
    /// [`ObjectStorage::check`] to find out whether the store answers.
    pub fn s3(settings: &S3Settings, url_prefix: &str) -> Result<Self, StorageError> {
        // object_store's S3 client uses reqwest without a bundled TLS provider, like the
        // fetcher: ring is the one provider of this process.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&settings.bucket)
            .with_allow_http(settings.allow_http);
        if let Some(region) = &settings.region {
            builder = builder.with_region(region);
        }
        if let Some(endpoint) = &settings.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        if let Some(key) = &settings.access_key_id {
            builder = builder.with_access_key_id(key);
        }
        if let Some(secret) = &settings.secret_access_key {
            builder = builder.with_secret_access_key(secret);
        }
        if let Some(token) = &settings.session_token {
            builder = builder.with_token(token);
        }
        let s3: Arc<AmazonS3> = Arc::new(
            builder
                .build()
                .map_err(|e| StorageError(format!("{}: {e}", settings.url())))?,
        );
        let mut storage = Self::new(
            Arc::clone(&s3) as Arc<dyn ObjectStore>,
            &settings.prefix,
            url_prefix,
            settings.url(),
        )?;
        storage.signer = Some(s3 as Arc<dyn Signer>);
        storage.content_types = true;
        storage.presign_expiry = settings.presign_expiry;
        Ok(storage)
    }

    /// Any object store as storage, keys under `prefix`. `name` names it in messages.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        url_prefix: &str,
        name: String,
    ) -> Result<Self, StorageError> {
        Ok(ObjectStorage {
            store,
            signer: None,
            prefix: prefix.trim_matches('/').to_owned(),
            url_prefix: url_prefix.to_owned(),
            presign_expiry: Duration::from_secs(3600),
            multipart_threshold: MULTIPART_THRESHOLD,
            part_size: PART_SIZE,
            content_types: false,
            name,
            runtime: IoRuntime::new()?,
        })
    }

    /// Changes when files go up in parts and how large the parts are.
    pub fn with_multipart(mut self, threshold: usize, part_size: usize) -> Self {
        self.multipart_threshold = threshold.max(1);
        self.part_size = part_size.max(1);
        self
    }

    /// The store itself (for inspection: sizes, ETags).
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The object path of `key`.
    pub fn object_path(&self, key: &str) -> Result<ObjectPath, StorageError> {
        check_key(key)?;
        let full = if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}/{key}", self.prefix)
        };
        ObjectPath::parse(&full).map_err(|e| StorageError(format!("bad storage key {key:?}: {e}")))
    }

    /// Proves the store answers and takes writes: writes, reads back and deletes a small
    /// object. The error says what is wrong in words an operator can act on.
    pub async fn check(&self) -> Result<(), StorageError> {
        let store = Arc::clone(&self.store);
        let path = self.object_path(&format!(
            "stillreel-check/{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ))?;
        let name = self.name.clone();
        let probe = async move {
            store
                .put(&path, PutPayload::from_static(b"stillreel"))
                .await
                .map_err(|e| explain(&name, "write to", &e))?;
            store
                .get(&path)
                .await
                .map_err(|e| explain(&name, "read from", &e))?;
            store
                .delete(&path)
                .await
                .map_err(|e| explain(&name, "delete from", &e))?;
            Ok(())
        };
        let name = self.name.clone();
        self.runtime
            .run(async move {
                tokio::time::timeout(CHECK_TIMEOUT, probe)
                    .await
                    .unwrap_or_else(|_| {
                        Err(StorageError(format!(
                            "{name} did not answer within {} s (is AWS_ENDPOINT_URL right, and the store up?)",
                            CHECK_TIMEOUT.as_secs()
                        )))
                    })
            })
            .await
    }
}

/// An object store error as an operator reads it.
fn explain(name: &str, what: &str, err: &object_store::Error) -> StorageError {
    let hint = match err {
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => {
            " (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and the key's rights on the bucket)"
        }
        object_store::Error::NotFound { .. } => " (does the bucket exist?)",
        // S3 and Garage refuse a request signed for another region with this code (a 400,
        // which object_store reports as a generic error).
        _ if err.to_string().contains("AuthorizationHeaderMalformed") => {
            " (is AWS_REGION the bucket's region?)"
        }
        _ => " (is AWS_ENDPOINT_URL right, and the store up?)",
    };
    StorageError(format!("cannot {what} {name}: {err}{hint}"))
}

/// The `Content-Type` a stored file is served with (presigned downloads get it from the
/// store, so it is set at upload), by the key's extension as the local file server does.
fn content_type(path: &ObjectPath) -> Option<&'static str> {
    let ext = path.extension()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "mp4" => "video/mp4",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "mp3" => "audio/mpeg",
        "m4a" => "audio/mp4",
        "aac" => "audio/aac",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        "json" => "application/json",
        _ => return None,
    })
}

/// Reads `local` into the store at `path`, in parts when it is large.
async fn upload(
    store: Arc<dyn ObjectStore>,
    path: ObjectPath,
    local: PathBuf,
    threshold: usize,
    part_size: usize,
    content_types: bool,
) -> Result<(), StorageError> {
    let io = |e: std::io::Error| StorageError(format!("{}: {e}", local.display()));
    let mut file = tokio::fs::File::open(&local).await.map_err(io)?;
    let len = file.metadata().await.map_err(io)?.len();
    let failed = |e: object_store::Error| StorageError(format!("uploading {path}: {e}"));
    let mut attributes = Attributes::new();
    if let Some(mime) = content_type(&path).filter(|_| content_types) {
        attributes.insert(Attribute::ContentType, mime.into());
    }
    if len < threshold as u64 {
        let mut data = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.read_to_end(&mut data).await.map_err(io)?;
        let options = PutOptions {
            attributes,
            ..PutOptions::default()
        };
        store
            .put_opts(&path, PutPayload::from(data), options)
            .await
            .map_err(failed)?;
        return Ok(());
    }
    let options = PutMultipartOptions {
        attributes,
        ..PutMultipartOptions::default()
    };
    let upload = store
        .put_multipart_opts(&path, options)
        .await
        .map_err(failed)?;
    let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size);
    let mut buf = vec![0u8; part_size.min(1 << 20)];
    loop {
        let n = match file.read(&mut buf).await {
            Ok(n) => n,
            Err(e) => {
                let _ = writer.abort().await;
                return Err(io(e));
            }
        };
        if n == 0 {
            break;
        }
        if let Err(e) = writer.wait_for_capacity(PART_CONCURRENCY).await {
            let _ = writer.abort().await;
            return Err(failed(e));
        }
        writer.write(&buf[..n]);
    }
    // An upload that fails is aborted by `finish`'s error path in the store, or expires.
    writer.finish().await.map_err(failed)?;
    Ok(())
}

/// Writes object `path` to `dest` (beside it first, then renamed: no half files).
async fn download(
    store: Arc<dyn ObjectStore>,
    path: ObjectPath,
    dest: PathBuf,
) -> Result<(), StorageError> {
    let result = store
        .get(&path)
        .await
        .map_err(|e| StorageError(format!("reading {path}: {e}")))?;
    let temp = dest.with_file_name(format!(
        ".{}.download",
        dest.file_name().and_then(|n| n.to_str()).unwrap_or("file")
    ));
    let io = |e: std::io::Error| StorageError(format!("{}: {e}", temp.display()));
    let mut file = tokio::fs::File::create(&temp).await.map_err(io)?;
    let mut stream = result.into_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) => {
                drop(file);
                let _ = tokio::fs::remove_file(&temp).await;
                return Err(StorageError(format!("reading {path}: {e}")));
            }
        };
        file.write_all(&chunk).await.map_err(io)?;
    }
    file.flush().await.map_err(io)?;
    drop(file);
    tokio::fs::rename(&temp, &dest)
        .await
        .map_err(|e| StorageError(format!("{}: {e}", dest.display())))
}

impl Storage for ObjectStorage {
    fn put(&self, local: &Path, key: &str) -> Result<String, StorageError> {
        let path = self.object_path(key)?;
        self.runtime.wait(upload(
            Arc::clone(&self.store),
            path,
            local.to_path_buf(),
            self.multipart_threshold,
            self.part_size,
            self.content_types,
        ))?;
        Ok(self.url_path(key))
    }

    fn get(&self, key: &str, dest: &Path) -> Result<(), StorageError> {
        let path = self.object_path(key)?;
        self.runtime
            .wait(download(Arc::clone(&self.store), path, dest.to_path_buf()))
    }

    fn url_path(&self, key: &str) -> String {
        format!("{}/{key}", self.url_prefix.trim_end_matches('/'))
    }

    fn delete(&self, key: &str) -> Result<(), StorageError> {
        let path = self.object_path(key)?;
        let store = Arc::clone(&self.store);
        self.runtime.wait(async move {
            match store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(StorageError(format!("deleting {path}: {e}"))),
            }
        })
    }

    fn size(&self, key: &str) -> Result<Option<u64>, StorageError> {
        let path = self.object_path(key)?;
        let store = Arc::clone(&self.store);
        self.runtime.wait(async move {
            match store.head(&path).await {
                Ok(meta) => Ok(Some(meta.size)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(StorageError(format!("reading {path}: {e}"))),
            }
        })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        let path = self.object_path(prefix)?;
        let store = Arc::clone(&self.store);
        // Keys are object paths less the storage's own prefix.
        let strip = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        self.runtime.wait(async move {
            let mut listed = store.list(Some(&path));
            let mut keys = Vec::new();
            while let Some(meta) = listed.next().await {
                let meta = meta.map_err(|e| StorageError(format!("listing {path}: {e}")))?;
                let full = meta.location.to_string();
                if let Some(key) = full.strip_prefix(&strip) {
                    keys.push(key.to_owned());
                }
            }
            Ok(keys)
        })
    }

    fn read(&self, key: &str) -> Result<Vec<u8>, StorageError> {
        let path = self.object_path(key)?;
        let store = Arc::clone(&self.store);
        self.runtime.wait(async move {
            let failed = |e: object_store::Error| StorageError(format!("reading {path}: {e}"));
            let result = store.get(&path).await.map_err(failed)?;
            result.bytes().await.map(|b| b.to_vec()).map_err(failed)
        })
    }

    fn download_url(&self, key: &str) -> Result<Option<String>, StorageError> {
        let Some(signer) = self.signer.clone() else {
            return Ok(None);
        };
        let path = self.object_path(key)?;
        let expiry = self.presign_expiry;
        self.runtime.wait(async move {
            signer
                .signed_url(object_store::signer::Method::GET, &path, expiry)
                .await
                .map(|url| Some(url.to_string()))
                .map_err(|e| StorageError(format!("presigning {path}: {e}")))
        })
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_up_errors_point_at_the_variable_to_fix() {
        let source = || "detail".into();
        let denied = object_store::Error::PermissionDenied {
            path: "p".to_owned(),
            source: source(),
        };
        let unknown_key = object_store::Error::Unauthenticated {
            path: "p".to_owned(),
            source: source(),
        };
        for err in [denied, unknown_key] {
            let message = explain("s3://b/p", "write to", &err).0;
            assert!(
                message.starts_with("cannot write to s3://b/p: ")
                    && message.contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
                "{message}"
            );
        }
        let missing = object_store::Error::NotFound {
            path: "p".to_owned(),
            source: source(),
        };
        assert!(
            explain("s3://b", "write to", &missing)
                .0
                .contains("does the bucket exist?")
        );
        let wrong_region = object_store::Error::Generic {
            store: "S3",
            source: "400 Bad Request: <Error><Code>AuthorizationHeaderMalformed</Code>".into(),
        };
        assert!(
            explain("s3://b", "write to", &wrong_region)
                .0
                .ends_with("(is AWS_REGION the bucket's region?)")
        );
        let down = object_store::Error::Generic {
            store: "S3",
            source: source(),
        };
        assert!(
            explain("s3://b", "write to", &down)
                .0
                .contains("AWS_ENDPOINT_URL")
        );
    }

    #[test]
    fn content_types_follow_the_extension() {
        let of = |key: &str| content_type(&ObjectPath::from(key));
        assert_eq!(of("videos/a/video.mp4"), Some("video/mp4"));
        assert_eq!(of("uploads/A.JPG"), Some("image/jpeg"));
        assert_eq!(of("uploads/a.png"), Some("image/png"));
        assert_eq!(of("uploads/a"), None);
    }

    #[test]
    fn keys_live_under_the_prefix_and_are_checked() {
        let store = Arc::new(object_store::memory::InMemory::new());
        let storage =
            ObjectStorage::new(store, "/media/prod/", "/files/", "memory".to_owned()).expect("new");
        assert_eq!(
            storage
                .object_path("videos/a/clip-000.mp4")
                .expect("key")
                .as_ref(),
            "media/prod/videos/a/clip-000.mp4"
        );
        assert!(storage.object_path("../x").is_err());
        assert!(storage.object_path("a/.hidden").is_err());
        assert_eq!(storage.url_path("videos/a/v.mp4"), "/files/videos/a/v.mp4");
        let bare = ObjectStorage::new(
            Arc::new(object_store::memory::InMemory::new()),
            "",
            "/files",
            "memory".to_owned(),
        )
        .expect("new");
        assert_eq!(bare.object_path("a.mp4").expect("key").as_ref(), "a.mp4");
    }
}
