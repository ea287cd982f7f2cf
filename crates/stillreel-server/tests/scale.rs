//! Storage in an object store and render workers in processes of their own, with real parts:
//! Garage, an S3-compatible store (installed by `scripts/setup.sh`, started here as one node),
//! object_store's local file system, PostgreSQL, ffmpeg and the real `stillreel` binary.
//!
//! Garage checks what S3 checks: the access key, the SigV4 signature, the region signed for
//! and a presigned link's expiry, so a wrong key, a tampered link and an expired one are
//! refused here as they would be by S3.
//!
//! Without Garage the S3 tests skip with a loud notice, unless `STILLREEL_REQUIRE_S3=1` (set
//! by `scripts/test.sh`), which makes a missing one a failure.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::garage::{ACCESS_KEY_ID, BUCKET, Garage, REGION, SECRET_ACCESS_KEY};
use common::process::{free_port, get_url, header, http, wait_healthy};
use common::{Backend, TestDb};
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use serde_json::{Value, json};
use stillreel_render::ObjectStorage;
use stillreel_render::store::storage::Storage;
use stillreel_server::config::{Config, StorageConfig};
use stillreel_server::{AppState, Db};

/// `len` bytes that differ from part to part, so a misplaced part shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 4096) as u8).collect()
}

/// Puts, reads and gets back a small and a multipart file through `storage`.
fn round_trips(storage: &ObjectStorage, dir: &Path) {
    let small = dir.join("small.bin");
    std::fs::write(&small, b"hello object store").expect("write");
    let url = storage.put(&small, "videos/v1/small.bin").expect("put");
    assert_eq!(url, "/files/videos/v1/small.bin");
    assert_eq!(storage.size("videos/v1/small.bin").expect("size"), Some(18));
    assert_eq!(storage.size("videos/v1/missing.bin").expect("size"), None);
    assert_eq!(
        storage.read("videos/v1/small.bin").expect("read"),
        b"hello object store"
    );
    let back = dir.join("back.bin");
    storage.get("videos/v1/small.bin", &back).expect("get");
    assert_eq!(std::fs::read(&back).expect("read"), b"hello object store");
    assert!(storage.get("videos/v1/missing.bin", &back).is_err());
    assert!(storage.put(&small, "../escape").is_err());
    assert_eq!(storage.local_path("videos/v1/small.bin"), None);

    // 12 MiB in 5 MiB parts: three parts, the last one short.
    let big_bytes = pattern(12 << 20);
    let big = dir.join("big.bin");
    std::fs::write(&big, &big_bytes).expect("write");
    storage
        .put(&big, "videos/v1/big.bin")
        .expect("multipart put");
    let big_back = dir.join("big-back.bin");
    storage.get("videos/v1/big.bin", &big_back).expect("get");
    assert!(
        std::fs::read(&big_back).expect("read") == big_bytes,
        "multipart upload round-trips byte for byte"
    );
    // Listing a folder answers keys (the store's own prefix taken off), at any depth.
    storage.put(&small, "videos/v1/t/deep.bin").expect("put");
    storage.put(&small, "videos/v2/other.bin").expect("put");
    let mut listed = storage.list("videos/v1").expect("list");
    listed.sort();
    assert_eq!(
        listed,
        [
            "videos/v1/big.bin",
            "videos/v1/small.bin",
            "videos/v1/t/deep.bin"
        ]
    );
    storage.delete("videos/v1/t/deep.bin").expect("delete");
    assert_eq!(storage.list("videos/v1").expect("list").len(), 2);
    assert!(storage.list("videos/none").expect("list").is_empty());
    // No temporary files left beside the download.
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["back.bin", "big-back.bin", "big.bin", "small.bin"]);
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The MD5 of `data` in hex (coreutils' `md5sum`).
fn md5_hex(data: &[u8]) -> String {
    let mut child = Command::new("md5sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("md5sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(data)
        .expect("feed md5sum");
    let out = child.wait_with_output().expect("md5sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .expect("digest")
        .to_owned()
}

/// S3's ETag of a multipart upload: the MD5 of the parts' MD5s, then `-<parts>`.
fn multipart_etag(data: &[u8], part_size: usize) -> String {
    let parts: Vec<&[u8]> = data.chunks(part_size).collect();
    let digests: Vec<u8> = parts
        .iter()
        .flat_map(|part| {
            let hex = md5_hex(part);
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect::<Vec<_>>()
        })
        .collect();
    format!("{}-{}", md5_hex(&digests), parts.len())
}

#[test]
fn object_storage_on_garage_put_get_multipart_and_presigned_ranges() {
    let Some(garage) = Garage::start() else {
        return;
    };
    let storage = ObjectStorage::s3(&garage.settings("unit"), "/files")
        .expect("s3 storage")
        .with_multipart(5 << 20, 5 << 20);
    runtime().block_on(storage.check()).expect("garage answers");
    let dir = tempfile::tempdir().expect("temp dir");
    round_trips(&storage, dir.path());

    // Objects are under the prefix, and the big one went up in three parts: its ETag is S3's
    // for those parts, the small one's the MD5 of its bytes.
    let (small, big) = runtime().block_on(async {
        let store = storage.store();
        let small = store
            .head(&ObjectPath::from("unit/videos/v1/small.bin"))
            .await
            .expect("small object under the prefix");
        let big = store
            .head(&ObjectPath::from("unit/videos/v1/big.bin"))
            .await
            .expect("big object under the prefix");
        (small, big)
    });
    assert_eq!(small.size, 18);
    assert_eq!(big.size, 12 << 20);
    assert_eq!(
        big.e_tag.as_deref().map(|e| e.trim_matches('"')),
        Some(multipart_etag(&pattern(12 << 20), 5 << 20).as_str()),
        "multipart ETag"
    );
    assert_eq!(
        small.e_tag.as_deref().map(|e| e.trim_matches('"')),
        Some(md5_hex(b"hello object store").as_str()),
        "small files go up whole"
    );

    // A presigned GET answers the whole file and ranges of it.
    let url = storage
        .download_url("videos/v1/big.bin")
        .expect("presign")
        .expect("S3 presigns");
    assert!(url.contains("X-Amz-Signature="), "{url}");
    assert!(url.contains("X-Amz-Expires=600"), "{url}");
    let (status, _, body) = get_url(&url, &[]);
    assert_eq!(status, 200);
    assert_eq!(body.len(), 12 << 20);
    let (status, headers, body) = get_url(&url, &[("Range", "bytes=6291456-6291465")]);
    assert_eq!(status, 206);
    assert_eq!(body, &pattern(12 << 20)[6_291_456..6_291_466]);
    assert_eq!(
        header(&headers, "content-range"),
        Some("bytes 6291456-6291465/12582912")
    );

    // The store serves a stored file with the type it went up with, whole or in parts.
    std::fs::write(dir.path().join("big.bin"), pattern(12 << 20)).expect("write");
    storage
        .put(&dir.path().join("big.bin"), "videos/v1/video.mp4")
        .expect("multipart put");
    storage
        .put(&dir.path().join("small.bin"), "videos/v1/still.jpg")
        .expect("put");
    for (key, mime) in [
        ("videos/v1/video.mp4", "video/mp4"),
        ("videos/v1/still.jpg", "image/jpeg"),
    ] {
        let url = storage.download_url(key).expect("presign").expect("url");
        let (status, headers, _) = get_url(&url, &[("Range", "bytes=0-0")]);
        assert_eq!(status, 206, "{key}");
        assert_eq!(header(&headers, "content-type"), Some(mime), "{key}");
    }

    // The signature is checked: a link with one character of it changed, or signed with
    // another secret, is refused.
    let (head, signature) = url.split_once("X-Amz-Signature=").expect("signature");
    let flipped = if signature.starts_with('0') { '1' } else { '0' };
    let tampered = format!("{head}X-Amz-Signature={flipped}{}", &signature[1..]);
    let (status, _, body) = get_url(&tampered, &[]);
    assert_eq!(status, 403, "{}", String::from_utf8_lossy(&body));
    let forged = ObjectStorage::s3(
        &garage.settings_with_key("unit", ACCESS_KEY_ID, &"0".repeat(64)),
        "/files",
    )
    .expect("s3");
    let url = forged
        .download_url("videos/v1/big.bin")
        .expect("presign")
        .expect("url");
    let (status, _, body) = get_url(&url, &[]);
    assert_eq!(status, 403, "{}", String::from_utf8_lossy(&body));

    // A link past its expiry is refused (Garage 2.5 answers 400 "Date is too old" where S3
    // answers 403 "Request has expired").
    let mut short = garage.settings("unit");
    short.presign_expiry = Duration::from_secs(1);
    let url = ObjectStorage::s3(&short, "/files")
        .expect("s3")
        .download_url("videos/v1/small.bin")
        .expect("presign")
        .expect("url");
    assert_eq!(get_url(&url, &[]).0, 200, "fresh link");
    std::thread::sleep(Duration::from_millis(2100));
    let (status, _, body) = get_url(&url, &[]);
    let body = String::from_utf8_lossy(&body);
    assert!(
        (400..500).contains(&status) && body.contains("<Error>"),
        "{status} {body}"
    );
}

#[test]
fn object_storage_on_local_files_put_get_multipart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("store");
    std::fs::create_dir_all(&root).expect("root");
    let store: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(&root).expect("local store"));
    let storage = ObjectStorage::new(store, "media", "/files", "local test store".to_owned())
        .expect("storage")
        .with_multipart(5 << 20, 5 << 20);
    runtime().block_on(storage.check()).expect("writable");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    round_trips(&storage, &work);
    assert_eq!(
        std::fs::read(root.join("media/videos/v1/small.bin")).expect("file on disk"),
        b"hello object store"
    );
    assert_eq!(
        std::fs::metadata(root.join("media/videos/v1/big.bin"))
            .expect("big file on disk")
            .len(),
        12 << 20
    );
    // No presigned links for local files: the API serves them itself.
    assert_eq!(
        storage.download_url("videos/v1/small.bin").expect("ok"),
        None
    );
    // The check leaves nothing behind.
    assert!(
        !root.join("media/stillreel-check").exists() || {
            std::fs::read_dir(root.join("media/stillreel-check"))
                .expect("dir")
                .next()
                .is_none()
        }
    );
}

/// `GET /files/{key}` of an API whose storage is S3: a `302` to a presigned GET, which
/// answers Range requests with 206.
#[test]
fn files_redirect_to_a_presigned_get_that_answers_ranges() {
    let Some(garage) = Garage::start() else {
        return;
    };
    let rt = runtime();
    let db_guard = rt
        .block_on(TestDb::new(Backend::Sqlite))
        .expect("sqlite db");
    let dir = db_guard.dir.path().to_owned();
    let port = free_port();
    let mut vars: Vec<(&str, String)> = garage.env("api");
    vars.push(("STILLREEL_LISTEN", format!("127.0.0.1:{port}")));
    vars.push(("STILLREEL_DATA_DIR", dir.display().to_string()));
    vars.push(("STILLREEL_WORKERS", "0".to_owned()));
    vars.push((
        "STILLREEL_WEB_DIR",
        dir.join("no-web").display().to_string(),
    ));
    let config = Config::from_lookup(|name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    })
    .expect("config");
    assert!(matches!(config.storage, StorageConfig::S3(_)));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let state = rt.block_on(async {
        let storage = stillreel_server::storage::open(&config)
            .await
            .expect("open storage");
        let db = Db::connect(&db_guard.config).await.expect("db");
        let state = AppState::with_storage(db, config, storage);
        let listener = stillreel_server::serve::bind(&state).await.expect("bind");
        let serving = state.clone();
        tokio::spawn(async move {
            stillreel_server::serve::serve(listener, serving, async {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
        });
        state
    });
    let file = dir.join("clip.mp4");
    let bytes = pattern(300_000);
    std::fs::write(&file, &bytes).expect("write");
    let url_path = state
        .storage
        .put(&file, "videos/abc/clip-000.mp4")
        .expect("put");
    assert_eq!(url_path, "/files/videos/abc/clip-000.mp4");

    let (status, headers, _) =
        http(port, "GET", &url_path, &[("Range", "bytes=1000-1999")]).expect("API answers");
    assert_eq!(status, 302);
    assert_eq!(header(&headers, "cache-control"), Some("no-store"));
    let location = header(&headers, "location").expect("Location").to_owned();
    assert!(
        location.starts_with(&format!(
            "{}/{BUCKET}/api/videos/abc/clip-000.mp4?",
            garage.endpoint()
        )),
        "{location}"
    );
    let (status, headers, body) = get_url(&location, &[("Range", "bytes=1000-1999")]);
    assert_eq!(status, 206);
    assert_eq!(body, &bytes[1000..2000]);
    assert_eq!(
        header(&headers, "content-range"),
        Some("bytes 1000-1999/300000")
    );
    let (status, _, body) = get_url(&location, &[]);
    assert_eq!((status, body.len()), (200, 300_000));
    // Keys that are not keys are not signed.
    let (status, _, _) = http(port, "GET", "/files/videos/.hidden", &[]).expect("answers");
    assert_eq!(status, 404);
    // The API keeps no files of its own.
    assert!(!dir.join("media").exists());
    let _ = stop.send(());
}

/// A key the store does not know, a wrong secret for a known one, or a region the store does
/// not answer for stops the start, naming the variables to check; the store's own reason is
/// in the message.
#[test]
fn wrong_credentials_or_region_stop_the_start_naming_the_variables() {
    let Some(garage) = Garage::start() else {
        return;
    };
    let credentials = "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";
    let wrong_secret = "0".repeat(64);
    // (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, the store's reason, the hint)
    let cases = [
        (
            "GK000000000000000000000000",
            SECRET_ACCESS_KEY,
            REGION,
            "No such key: GK000000000000000000000000",
            credentials,
        ),
        (
            ACCESS_KEY_ID,
            wrong_secret.as_str(),
            REGION,
            "Invalid signature",
            credentials,
        ),
        // object_store's default region, which an operator who sets none gets.
        (
            ACCESS_KEY_ID,
            SECRET_ACCESS_KEY,
            "us-east-1",
            "AuthorizationHeaderMalformed",
            "is AWS_REGION the bucket's region?",
        ),
    ];
    for (key_id, secret, region, reason, hint) in cases {
        let mut settings = garage.settings_with_key("signed", key_id, secret);
        settings.region = Some(region.to_owned());
        let wrong = ObjectStorage::s3(&settings, "/files").expect("s3");
        let err = runtime().block_on(wrong.check()).expect_err("refused");
        assert!(err.0.contains(reason) && err.0.contains(hint), "{err}");

        // `serve` stops and says which variables to check.
        let data = tempfile::tempdir().expect("temp dir");
        let out = bin()
            .arg("serve")
            .env("STILLREEL_DATA_DIR", data.path())
            .env("STILLREEL_LISTEN", format!("127.0.0.1:{}", free_port()))
            .envs(garage.env("signed"))
            .env("AWS_ACCESS_KEY_ID", key_id)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .env("AWS_REGION", region)
            .output()
            .expect("run");
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("STILLREEL_STORAGE_URL=s3://reels/signed")
                && stderr.contains(reason)
                && stderr.contains(hint),
            "{stderr}"
        );
    }
}

/// The `stillreel` binary with a clean environment.
fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "info,sqlx=warn");
    cmd
}

#[test]
fn worker_on_sqlite_refuses_to_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = bin()
        .arg("worker")
        .env("STILLREEL_DATA_DIR", dir.path())
        .output()
        .expect("run stillreel worker");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stillreel worker needs a database shared with the API")
            && stderr.contains("STILLREEL_DATABASE_URL"),
        "{stderr}"
    );
    // It did not create a database or anything else.
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}

#[test]
fn a_store_that_cannot_be_used_stops_the_start_naming_the_variable() {
    let Some(garage) = Garage::start() else {
        return;
    };
    // A bucket that does not exist.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = bin();
    cmd.arg("serve")
        .env("STILLREEL_DATA_DIR", dir.path())
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{}", free_port()))
        .envs(garage.env("x"))
        .env("STILLREEL_STORAGE_URL", "s3://no-such-bucket/x");
    let out = cmd.output().expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("STILLREEL_STORAGE_URL=s3://no-such-bucket/x")
            && stderr.contains("does the bucket exist?"),
        "{stderr}"
    );
    // Nothing answers at the endpoint.
    let closed = free_port();
    let out = bin()
        .arg("serve")
        .env("STILLREEL_DATA_DIR", dir.path())
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{}", free_port()))
        .envs(garage.env("x"))
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{closed}"))
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("STILLREEL_STORAGE_URL=s3://reels/x")
            && stderr.contains("AWS_ENDPOINT_URL"),
        "{stderr}"
    );
}

/// Starts `stillreel <command>` with `env`, in a process group of its own, logging to `log`.
fn start(command: &str, env: &[(&str, String)], log: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    bin()
        .arg(command)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("start stillreel {command}: {e}"))
}

fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", "--", &format!("-{}", child.id())])
        .status()
        .expect("kill");
    assert!(status.success());
    child.wait().expect("wait")
}

fn api_json(port: u16, method: &str, path: &str, key: &str, body: Option<&Value>) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("API answers");
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send");
    stream.write_all(body.as_bytes()).expect("send");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("response");
    assert!(head.starts_with("HTTP/1.1 200"), "{method} {path}: {raw}");
    serde_json::from_str(body).expect("json")
}

fn ffprobe(path: &Path) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries"])
        .arg("format=format_name,duration:stream=codec_type,codec_name,width,height,nb_frames")
        .args(["-of", "json"])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ffprobe json")
}

/// Downloads one of the API's `/files/` URLs through its `302` and probes it.
fn download_through_redirect(api_port: u16, url: &str, dest: &Path) -> Value {
    let path = url
        .strip_prefix(&format!("http://127.0.0.1:{api_port}"))
        .unwrap_or_else(|| panic!("{url} is not the API's"));
    assert!(path.starts_with("/files/"), "{url}");
    let (status, headers, _) = http(api_port, "GET", path, &[]).expect("API answers");
    assert_eq!(status, 302, "{url}");
    let (status, headers2, body) = get_url(header(&headers, "location").expect("Location"), &[]);
    assert_eq!(status, 200, "{url}");
    assert_eq!(
        header(&headers2, "content-type"),
        Some("video/mp4"),
        "{url}"
    );
    std::fs::write(dest, body).expect("write download");
    ffprobe(dest)
}

/// The worked deployment of docs/SCALING.md: an API process (`stillreel serve`,
/// `STILLREEL_WORKERS=0`) and a render worker (`stillreel worker`) with data dirs of their own,
/// sharing only PostgreSQL and the bucket. A video rendered this way completes, its URLs are
/// the API's and lead to valid MP4s, an image stored in the bucket is read through storage,
/// combine reads the earlier clips from the bucket, and neither process keeps media on disk.
#[test]
fn api_and_separate_worker_render_on_postgres_and_s3() {
    let rt = runtime();
    let Some(db) = rt.block_on(TestDb::new(Backend::Postgres)) else {
        return;
    };
    let Some(garage) = Garage::start() else {
        return;
    };
    let stillreel_server::config::DatabaseConfig::Postgres(db_url) = &db.config else {
        panic!("postgres")
    };
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let api_dir = db.dir.path().join("api");
    let worker_dir = tempfile::tempdir().expect("worker dir");
    std::fs::create_dir_all(&api_dir).expect("api dir");
    let (api_port, worker_port) = (free_port(), free_port());
    let public = format!("http://127.0.0.1:{api_port}");
    let mut common_env = garage.env("media");
    common_env.push(("STILLREEL_DATABASE_URL", db_url.clone()));
    common_env.push(("STILLREEL_PUBLIC_URL", public.clone()));
    common_env.push(("STILLREEL_SAMPLES_DIR", samples.display().to_string()));

    let mut api_env = common_env.clone();
    api_env.push(("STILLREEL_DATA_DIR", api_dir.display().to_string()));
    api_env.push(("STILLREEL_LISTEN", format!("127.0.0.1:{api_port}")));
    api_env.push(("STILLREEL_WORKERS", "0".to_owned()));
    api_env.push((
        "STILLREEL_WEB_DIR",
        api_dir.join("no-web").display().to_string(),
    ));
    let mut worker_env = common_env;
    worker_env.push((
        "STILLREEL_DATA_DIR",
        worker_dir.path().display().to_string(),
    ));
    worker_env.push(("STILLREEL_WORKERS", "1".to_owned()));
    worker_env.push((
        "STILLREEL_WORKER_LISTEN",
        format!("127.0.0.1:{worker_port}"),
    ));

    let logs = db.dir.path();
    let (api_log, worker_log) = (logs.join("api.log"), logs.join("worker.log"));
    let show_logs = || {
        format!(
            "--- api log\n{}\n--- worker log\n{}",
            std::fs::read_to_string(&api_log).unwrap_or_default(),
            std::fs::read_to_string(&worker_log).unwrap_or_default()
        )
    };
    let mut api = start("serve", &api_env, &api_log);
    wait_healthy(api_port, "the API", &api_log);
    let mut worker = start("worker", &worker_env, &worker_log);
    wait_healthy(worker_port, "the worker", &worker_log);
    // The worker answers health and metrics, nothing of the API.
    let (status, _, metrics) = http(worker_port, "GET", "/metrics", &[]).expect("metrics");
    assert_eq!(status, 200);
    assert!(
        String::from_utf8_lossy(&metrics).contains("stillreel_"),
        "metrics"
    );
    let (status, _, _) = http(worker_port, "GET", "/api/v1/get_templates", &[]).expect("answers");
    assert_eq!(status, 404);

    let out = bin()
        .args(["accounts", "create", "scale"])
        .env("STILLREEL_DATABASE_URL", db_url)
        .env("STILLREEL_DATA_DIR", &api_dir)
        .output()
        .expect("accounts create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("account");
    let key = account["api_key"].as_str().expect("key").to_owned();

    // An image that exists only in the bucket, at a URL of the API: the worker must read it
    // through storage (127.0.0.1 is not on the fetch allow-list, so never over HTTP).
    let uploads = ObjectStorage::s3(&garage.settings("media"), "/files").expect("s3");
    let url_path = uploads
        .put(&samples.join("living-room.png"), "uploads/living-room.png")
        .expect("upload image");
    let body = json!({
        "image_inputs": [
            {"image_url": format!("{public}/samples/house-colonial.jpg")},
            {"image_url": format!("{public}{url_path}")},
        ],
        "orientation": "landscape",
        "resolution": "720p",
    });
    let created = api_json(api_port, "POST", "/api/v1/create_video", &key, Some(&body));
    let uuid = created["uuid"].as_str().expect("uuid").to_owned();
    let wait = |uuid: &str| {
        let started = Instant::now();
        loop {
            let video = api_json(
                api_port,
                "GET",
                &format!("/api/v1/get_video?uuid={uuid}"),
                &key,
                None,
            );
            if video["status"] == "complete" {
                return video;
            }
            assert_ne!(video["status"], "error", "{video}\n{}", show_logs());
            assert!(
                started.elapsed() < Duration::from_secs(300),
                "not complete after 300 s: {video}\n{}",
                show_logs()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    let done = wait(&uuid);
    let video_url = done["video_url"].as_str().expect("video_url");
    // `video-<lease token>.mp4`: the stitch's key carries its claim's token.
    let stem = format!("{public}/files/videos/{uuid}/video-");
    assert!(
        video_url.starts_with(&stem) && video_url.ends_with(".mp4"),
        "{video_url}"
    );
    let probe = download_through_redirect(api_port, video_url, &logs.join("video.mp4"));
    assert!(
        probe["format"]["format_name"]
            .as_str()
            .is_some_and(|f| f.contains("mp4")),
        "{probe}"
    );
    let duration: f64 = probe["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .expect("duration");
    assert!((duration - 10.0).abs() <= 0.1, "duration {duration}");
    let video = probe["streams"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["codec_type"] == "video"))
        .expect("video stream");
    assert_eq!(
        (&video["codec_name"], &video["width"], &video["height"]),
        (&json!("h264"), &json!(1280), &json!(720)),
        "{probe}"
    );
    let clips = done["video_clips"].as_array().expect("clips");
    assert_eq!(clips.len(), 2, "{done}");
    for (i, clip) in clips.iter().enumerate() {
        let url = clip["clip_url"].as_str().expect("clip_url");
        let probe = download_through_redirect(api_port, url, &logs.join(format!("clip-{i}.mp4")));
        assert_eq!(probe["streams"][0]["nb_frames"], "150", "clip {i}: {probe}");
    }
    // A Range request through the redirect.
    let path = video_url.strip_prefix(&public).expect("API URL");
    let (status, headers, _) = http(api_port, "GET", path, &[]).expect("API answers");
    assert_eq!(status, 302);
    let (status, headers, body) = get_url(
        header(&headers, "location").expect("Location"),
        &[("Range", "bytes=0-99")],
    );
    assert_eq!((status, body.len()), (206, 100));
    assert!(
        header(&headers, "content-range").is_some_and(|r| r.starts_with("bytes 0-99/")),
        "{headers:?}"
    );

    // Combine reads the stored clips back from the bucket.
    let ids: Vec<&str> = clips
        .iter()
        .map(|c| c["uuid"].as_str().expect("uuid"))
        .collect();
    let request = json!({
        "video_clip_uuids": [ids[1], ids[0]],
        "orientation": "landscape",
        "resolution": "720p",
    });
    let combined = api_json(
        api_port,
        "POST",
        "/api/v1/combine_video_clips",
        &key,
        Some(&request),
    );
    let combined = wait(combined["uuid"].as_str().expect("uuid"));
    let probe = download_through_redirect(
        api_port,
        combined["video_url"].as_str().expect("video_url"),
        &logs.join("combined.mp4"),
    );
    let duration: f64 = probe["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .expect("duration");
    assert!(
        (duration - 10.0).abs() <= 0.1,
        "combined duration {duration}"
    );

    let api_exit = terminate(&mut api);
    let worker_exit = terminate(&mut worker);
    assert!(
        api_exit.success() && worker_exit.success(),
        "{}",
        show_logs()
    );
    // Neither process kept media: the worker only its (now empty) scratch folder.
    // The API wrote nothing at all to its data dir: no media, no scratch (it rendered nothing).
    let api_files: Vec<_> = std::fs::read_dir(&api_dir)
        .expect("api dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(api_files.is_empty(), "{api_files:?}\n{}", show_logs());
    let worker_files: Vec<String> = std::fs::read_dir(worker_dir.path())
        .expect("worker dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(worker_files, ["work"], "{}", show_logs());
    assert_eq!(
        std::fs::read_dir(worker_dir.path().join("work"))
            .expect("work")
            .count(),
        0
    );
}

/// A worker paused past its lease (SIGSTOP) mid-clip: another worker process takes the clip
/// over and the video completes; when the paused one comes back (SIGCONT) it records nothing,
/// and its upload, if it made one, is removed: the video's folder holds exactly the recorded
/// clip and the video. PostgreSQL and a `file://` store shared by three processes.
#[test]
fn a_worker_paused_past_its_lease_cannot_record_its_clip() {
    let rt = runtime();
    let Some(db) = rt.block_on(TestDb::new(Backend::Postgres)) else {
        return;
    };
    let stillreel_server::config::DatabaseConfig::Postgres(db_url) = &db.config else {
        panic!("postgres")
    };
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let root = db.dir.path();
    let store = root.join("store");
    std::fs::create_dir_all(&store).expect("store");
    let api_port = free_port();
    let public = format!("http://127.0.0.1:{api_port}");
    let common = vec![
        ("STILLREEL_DATABASE_URL", db_url.clone()),
        ("STILLREEL_PUBLIC_URL", public.clone()),
        ("STILLREEL_SAMPLES_DIR", samples.display().to_string()),
        (
            "STILLREEL_STORAGE_URL",
            format!("file://{}", store.display()),
        ),
        ("STILLREEL_JOB_LEASE_SECS", "3".to_owned()),
        (
            "STILLREEL_WEB_DIR",
            root.join("no-web").display().to_string(),
        ),
    ];
    let node = |name: &str, extra: &[(&'static str, String)]| {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).expect("data dir");
        let mut env = common.clone();
        env.push(("STILLREEL_DATA_DIR", dir.display().to_string()));
        env.extend(extra.iter().cloned());
        (dir, env)
    };
    let (api_dir, mut api_env) = node("api", &[("STILLREEL_WORKERS", "0".to_owned())]);
    api_env.push(("STILLREEL_LISTEN", format!("127.0.0.1:{api_port}")));
    let logs: Vec<PathBuf> = ["api", "w1", "w2"]
        .iter()
        .map(|n| root.join(format!("{n}.log")))
        .collect();
    let show_logs = || {
        logs.iter()
            .map(|l| {
                format!(
                    "--- {}\n{}",
                    l.display(),
                    std::fs::read_to_string(l).unwrap_or_default()
                )
            })
            .collect::<String>()
    };
    let mut api = start("serve", &api_env, &logs[0]);
    wait_healthy(api_port, "the API", &logs[0]);
    let mut workers = Vec::new();
    for (i, name) in ["w1", "w2"].iter().enumerate() {
        let port = free_port();
        let (dir, env) = node(
            name,
            &[
                ("STILLREEL_WORKERS", "1".to_owned()),
                ("STILLREEL_WORKER_LISTEN", format!("127.0.0.1:{port}")),
            ],
        );
        let child = start("worker", &env, &logs[i + 1]);
        wait_healthy(port, name, &logs[i + 1]);
        workers.push((child, dir, i + 1));
    }

    let out = bin()
        .args(["accounts", "create", "paused"])
        .env("STILLREEL_DATABASE_URL", db_url)
        .env("STILLREEL_DATA_DIR", &api_dir)
        .output()
        .expect("accounts create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("account");
    let key = account["api_key"].as_str().expect("key").to_owned();
    let body = json!({
        "image_inputs": [{"image_url": format!("{public}/samples/house-colonial.jpg")}],
        "resolution": "1080p",
    });
    let created = api_json(api_port, "POST", "/api/v1/create_video", &key, Some(&body));
    let uuid = created["uuid"].as_str().expect("uuid").to_owned();

    // The worker whose ffmpeg renders the clip is paused.
    let started = Instant::now();
    let paused = loop {
        let busy = workers
            .iter()
            .position(|(_, dir, _)| !procs_ffmpeg_in(&dir.join("work")).is_empty());
        if let Some(i) = busy {
            break i;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no clip rendering\n{}",
            show_logs()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let pid = workers[paused].0.id().to_string();
    let signal = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .expect("kill")
                .success()
        );
    };
    signal("-STOP");

    // The other worker takes the clip over after the lease and completes the video.
    let started = Instant::now();
    let done = loop {
        let video = api_json(
            api_port,
            "GET",
            &format!("/api/v1/get_video?uuid={uuid}"),
            &key,
            None,
        );
        if video["status"] == "complete" {
            break video;
        }
        assert_ne!(video["status"], "error", "{video}\n{}", show_logs());
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{video}\n{}",
            show_logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    signal("-CONT");

    let clips = done["video_clips"].as_array().expect("clips");
    assert_eq!(clips.len(), 1, "{done}");
    let recorded = |url: &Value| {
        url.as_str()
            .and_then(|u| u.split_once("/files/"))
            .map(|(_, k)| k.to_owned())
            .expect("a /files/ URL")
    };
    // Each recorded file has its JPEG still beside it (thumbnail, poster).
    let mut expected: Vec<String> = [
        recorded(&clips[0]["clip_url"]),
        recorded(&done["video_url"]),
    ]
    .into_iter()
    .flat_map(|k| [k.replace(".mp4", ".jpg"), k])
    .collect();
    expected.sort();
    // Once the paused worker has noticed (its heartbeat fails at once, or its completion is
    // rejected and its upload removed), the folder holds what the records point at, nothing
    // else: no late clip, no checked inputs.
    let folder = store.join("videos").join(&uuid);
    let started = Instant::now();
    loop {
        let mut files: Vec<String> = std::fs::read_dir(&folder)
            .expect("video folder")
            .filter_map(Result::ok)
            .map(|e| format!("videos/{uuid}/{}", e.file_name().to_string_lossy()))
            .collect();
        files.sort();
        let noticed = std::fs::read_to_string(&logs[paused + 1])
            .unwrap_or_default()
            .contains("lease lost");
        if noticed && files == expected {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "files {files:?}, records {expected:?}, noticed {noticed}\n{}",
            show_logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let clip_key = expected
        .iter()
        .find(|k| k.ends_with(".mp4"))
        .expect("the clip's key");
    let file = folder.join(clip_key.rsplit('/').next().expect("name"));
    let probe = ffprobe(&file);
    assert!(
        probe["streams"].as_array().is_some_and(|s| !s.is_empty()),
        "{probe}"
    );

    for (child, _, _) in &mut workers {
        terminate(child);
    }
    terminate(&mut api);
}

/// Processes named ffmpeg whose working directory is inside `dir` (Linux `/proc`).
fn procs_ffmpeg_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter(|pid| {
                    let comm =
                        std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
                    comm.trim() == "ffmpeg" && cwd.starts_with(&dir)
                })
                .collect()
        })
        .unwrap_or_default()
}
