//! Garage, the S3-compatible object store for self-hosting, for the tests that store in S3
//! (`scale.rs`, `scale_out.rs`): installed by `scripts/setup.sh` (`cargo install garage`),
//! started here as `garage server --single-node --default-bucket` on free ports with its
//! metadata and data in a temp dir, killed with `-9` and started again on the same data and
//! ports (an object-store outage), killed when dropped. Without Garage the tests skip with a
//! loud notice, or fail under `STILLREEL_REQUIRE_S3=1` (CI).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use stillreel_render::store::storage::Storage;
use stillreel_render::{ObjectStorage, S3Settings};

use super::process::{free_port, http};

/// The bucket every test stores in (`GARAGE_DEFAULT_BUCKET`).
pub const BUCKET: &str = "reels";
/// The key `--default-bucket` creates and allows on [`BUCKET`]. The shape of the keys
/// `garage key create` makes (`GK` + 24 hex digits, a secret of 64); Garage 2.5 itself only
/// asks for at least 8 and 16 characters.
pub const ACCESS_KEY_ID: &str = "GK3b82502dd46589ddd8d9936a";
pub const SECRET_ACCESS_KEY: &str =
    "e1b4ac8ff83b02ef189178afb6e676a0ec9fb8d8ad05c686255f151fb1a4438f";
/// The region Garage answers for (`s3_region`); a request signed for another is refused.
pub const REGION: &str = "garage";
/// The secret that Garage nodes share (32 bytes, hex); one node here, on loopback only.
const RPC_SECRET: &str = "2e72357155574f9585ddbe892313f86b6602206db2c302cde9a1f037474be68c";

/// The loud skip (or, under `STILLREEL_REQUIRE_S3=1`, the failure) for a missing test
/// server: `bin`, which `scripts/setup.sh` installs as `what`.
pub fn missing(bin: &Path, what: &str) {
    assert!(
        std::env::var("STILLREEL_REQUIRE_S3").as_deref() != Ok("1"),
        "STILLREEL_REQUIRE_S3=1 but {} is missing: run scripts/setup.sh",
        bin.display()
    );
    eprintln!(
        "\n!!!!! SKIPPED: S3 test ({} is missing; scripts/setup.sh installs {what}) !!!!!\n",
        bin.display()
    );
}

/// The `garage` binary: `STILLREEL_GARAGE`, else `garage` on `PATH`, else cargo's bin dir
/// (where `cargo install` puts it).
fn server_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("STILLREEL_GARAGE") {
        return PathBuf::from(bin);
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("garage"))
        .find(|bin| bin.is_file());
    on_path.unwrap_or_else(|| {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo")
            });
        cargo_home.join("bin/garage")
    })
}

/// A one-node Garage with bucket [`BUCKET`] and key [`ACCESS_KEY_ID`].
#[derive(Debug)]
pub struct Garage {
    child: Option<Child>,
    /// S3 API port.
    pub port: u16,
    admin_port: u16,
    bin: PathBuf,
    config: PathBuf,
    log: PathBuf,
    /// Config, metadata, data and log; removed when dropped.
    dir: tempfile::TempDir,
}

impl Drop for Garage {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Garage {
    /// Starts Garage, or returns `None` after [`missing`]'s notice when it is not installed.
    pub fn start() -> Option<Garage> {
        let bin = server_bin();
        if !bin.is_file() {
            missing(&bin, "garage (cargo install garage)");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let (port, rpc_port, admin_port) = (free_port(), free_port(), free_port());
        let config = dir.path().join("garage.toml");
        std::fs::write(
            &config,
            format!(
                "metadata_dir = \"{meta}\"\n\
                 data_dir = \"{data}\"\n\
                 replication_factor = 1\n\
                 rpc_bind_addr = \"127.0.0.1:{rpc_port}\"\n\
                 rpc_secret = \"{RPC_SECRET}\"\n\
                 [s3_api]\n\
                 s3_region = \"{REGION}\"\n\
                 api_bind_addr = \"127.0.0.1:{port}\"\n\
                 [admin]\n\
                 api_bind_addr = \"127.0.0.1:{admin_port}\"\n",
                meta = dir.path().join("meta").display(),
                data = dir.path().join("data").display(),
            ),
        )
        .expect("write garage.toml");
        let mut garage = Garage {
            child: None,
            port,
            admin_port,
            bin,
            config,
            log: dir.path().join("garage.log"),
            dir,
        };
        garage.run();
        Some(garage)
    }

    /// Starts the server on its data and ports and waits until the bucket takes requests
    /// with the key. Started again after [`Garage::kill`], it finds its layout, key and
    /// bucket in place and keeps every object.
    pub fn run(&mut self) {
        assert!(self.child.is_none(), "garage is already running");
        let started = Instant::now();
        loop {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.log)
                .expect("garage log");
            let mut child = Command::new(&self.bin)
                .arg("-c")
                .arg(&self.config)
                .args(["server", "--single-node", "--default-bucket"])
                .env("GARAGE_DEFAULT_ACCESS_KEY", ACCESS_KEY_ID)
                .env("GARAGE_DEFAULT_SECRET_KEY", SECRET_ACCESS_KEY)
                .env("GARAGE_DEFAULT_BUCKET", BUCKET)
                .env("RUST_LOG", "garage=info")
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("start garage");
            // `/health` on the admin API answers 200 once the node's layout is in place.
            let up = Instant::now();
            let mut exited = false;
            while up.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = child.try_wait() {
                    exited = true;
                    break;
                }
                let healthy = http(self.admin_port, "GET", "/health", &[])
                    .is_some_and(|(status, _, _)| status == 200);
                if healthy && http(self.port, "GET", "/", &[]).is_some() {
                    self.child = Some(child);
                    // A signed request with the key, in the bucket: what the tests need.
                    self.store()
                        .size("garage-ready")
                        .unwrap_or_else(|e| panic!("garage is up but refuses the key: {e}"));
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
            // Exited at once: a port of the last run not released yet, or a real fault (the
            // log says which); try again for a while.
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "garage did not start (exited: {exited}); log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// `kill -9`: the server stops at once, without a word to its clients; its data stays.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Garage's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Settings for keys under `prefix` in the bucket, with `key_id` and `secret`.
    pub fn settings_with_key(&self, prefix: &str, key_id: &str, secret: &str) -> S3Settings {
        S3Settings {
            bucket: BUCKET.to_owned(),
            prefix: prefix.to_owned(),
            region: Some(REGION.to_owned()),
            endpoint: Some(self.endpoint()),
            access_key_id: Some(key_id.to_owned()),
            secret_access_key: Some(secret.to_owned()),
            session_token: None,
            allow_http: true,
            presign_expiry: Duration::from_secs(600),
        }
    }

    /// Settings for keys under `prefix` in the bucket, with the bucket's key.
    pub fn settings(&self, prefix: &str) -> S3Settings {
        self.settings_with_key(prefix, ACCESS_KEY_ID, SECRET_ACCESS_KEY)
    }

    /// The whole bucket as a storage (for inspection).
    pub fn store(&self) -> ObjectStorage {
        ObjectStorage::s3(&self.settings(""), "/files").expect("s3 storage")
    }

    /// The `STILLREEL_*`/`AWS_*` variables of a process storing under `prefix`.
    pub fn env(&self, prefix: &str) -> Vec<(&'static str, String)> {
        vec![
            ("STILLREEL_STORAGE_URL", format!("s3://{BUCKET}/{prefix}")),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY_ID.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_ACCESS_KEY.to_owned()),
            ("AWS_REGION", REGION.to_owned()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
        ]
    }
}
