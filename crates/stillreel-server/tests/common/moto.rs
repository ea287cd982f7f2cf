//! moto's S3 server for the tests that store in S3 (`scale.rs`, `scale_out.rs`): installed by
//! `scripts/setup.sh` into `target/moto`, started on a free port with one bucket, stoppable and
//! started again on the same port (an object-store outage), killed when dropped. Without moto
//! the tests skip with a loud notice, or fail under `STILLREEL_REQUIRE_MOTO=1` (CI).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use stillreel_render::{ObjectStorage, S3Settings};

use super::process::{free_port, http};

/// The bucket every test stores in.
pub const BUCKET: &str = "reels";

/// The loud skip (or, under `STILLREEL_REQUIRE_MOTO=1`, the failure) for a missing test
/// server: `bin`, which `scripts/setup.sh` installs as `what`.
pub fn missing(bin: &Path, what: &str) {
    assert!(
        std::env::var("STILLREEL_REQUIRE_MOTO").as_deref() != Ok("1"),
        "STILLREEL_REQUIRE_MOTO=1 but {} is missing: run scripts/setup.sh",
        bin.display()
    );
    eprintln!(
        "\n!!!!! SKIPPED: S3 test ({} is missing; scripts/setup.sh installs {what}) !!!!!\n",
        bin.display()
    );
}

/// Where `scripts/setup.sh` installs moto's server (`STILLREEL_MOTO_SERVER` overrides).
fn server_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("STILLREEL_MOTO_SERVER") {
        return PathBuf::from(bin);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/moto/venv/bin/moto_server")
}

/// A moto server with bucket [`BUCKET`].
#[derive(Debug)]
pub struct Moto {
    child: Option<Child>,
    pub port: u16,
    bin: PathBuf,
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Moto {
    /// Starts moto, or returns `None` after [`missing`]'s notice when it is not installed.
    pub fn start() -> Option<Moto> {
        let bin = server_bin();
        if !bin.is_file() {
            missing(&bin, "moto[server]");
            return None;
        }
        let mut moto = Moto {
            child: None,
            port: free_port(),
            bin,
        };
        moto.run();
        Some(moto)
    }

    /// Starts the server on its port (retrying while the port is still being released) and
    /// creates the bucket.
    pub fn run(&mut self) {
        let started = Instant::now();
        loop {
            let mut child = Command::new(&self.bin)
                .args(["-H", "127.0.0.1", "-p", &self.port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start moto_server");
            let up = Instant::now();
            while up.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                if let Some((status, _, _)) = http(self.port, "PUT", &format!("/{BUCKET}"), &[]) {
                    assert_eq!(status, 200, "create bucket {BUCKET}");
                    self.child = Some(child);
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "moto_server did not start on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Stops the server (its objects are lost: moto keeps them in memory).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Settings for keys under `prefix` in the bucket. moto takes any credentials.
    pub fn settings(&self, prefix: &str) -> S3Settings {
        S3Settings {
            bucket: BUCKET.to_owned(),
            prefix: prefix.to_owned(),
            region: Some("us-east-1".to_owned()),
            endpoint: Some(self.endpoint()),
            access_key_id: Some("test".to_owned()),
            secret_access_key: Some("test".to_owned()),
            session_token: None,
            allow_http: true,
            presign_expiry: Duration::from_secs(600),
        }
    }

    /// The whole bucket as a storage (for snapshots and inspection).
    pub fn store(&self) -> ObjectStorage {
        ObjectStorage::s3(&self.settings(""), "/files").expect("s3 storage")
    }

    /// The `STILLREEL_*`/`AWS_*` variables of a process storing under `prefix`.
    pub fn env(&self, prefix: &str) -> Vec<(&'static str, String)> {
        vec![
            ("STILLREEL_STORAGE_URL", format!("s3://{BUCKET}/{prefix}")),
            ("AWS_ACCESS_KEY_ID", "test".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "test".to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
        ]
    }
}
