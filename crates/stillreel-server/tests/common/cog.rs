//! Replicate's real Cog server (the `cog` Python package and its Rust HTTP server, coglet) for
//! the tests of the `cog` provider protocol (`tests/cog.rs`): installed by `scripts/setup.sh`
//! into `target/cog/venv`, started without Docker on a free port, one server per predictor of
//! `tests/cog/`, killed (its whole process group) when dropped.
//!
//! Each server runs in a copy of its predictor's folder, so that the input schema Cog
//! validates with (`.cog/openapi_schema.json`, which `cog build` would write) can be written
//! there or left out. Every predictor appends a `start` line per prediction (and an `end` line
//! when it answers) to a file of its own, which [`CogModel::calls`] counts. [`Occupied`] keeps a
//! server busy with a prediction of the test's own.

use std::io::Write as _;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::process::{free_port, http};

/// Whether the server gets the input schema `cog build` would write (then Cog validates
/// inputs and answers 422), or runs without it (as a bare `python -m cog.server.http` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    Written,
    Absent,
}

/// The virtual environment `scripts/setup.sh` installs Cog into (`STILLREEL_COG_VENV`
/// overrides).
pub fn venv() -> PathBuf {
    if let Some(dir) = std::env::var_os("STILLREEL_COG_VENV") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/cog/venv")
}

/// The test predictors (`tests/cog/`).
pub fn predictors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cog")
}

/// One running Cog server.
#[derive(Debug)]
pub struct CogModel {
    pub port: u16,
    /// Its base URL, as a role's `url`.
    pub url: String,
    child: Option<Child>,
    calls: PathBuf,
    log: PathBuf,
    // Last: removed after the server is gone.
    dir: tempfile::TempDir,
}

impl Drop for CogModel {
    fn drop(&mut self) {
        self.kill();
    }
}

impl CogModel {
    /// Starts `tests/cog/<predictor>` with `env` added to its environment, and waits until its
    /// setup has finished (succeeded or failed).
    pub fn start(predictor: &str, schema: Schema, env: &[(&str, &str)]) -> CogModel {
        let model = Self::spawn(predictor, schema, env);
        model.wait_setup();
        model
    }

    /// Starts it without waiting for anything.
    pub fn spawn(predictor: &str, schema: Schema, env: &[(&str, &str)]) -> CogModel {
        let python = venv().join("bin/python");
        assert!(
            python.is_file(),
            "{} is missing: run scripts/setup.sh (it installs cog into target/cog/venv)",
            python.display()
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join(predictor);
        std::fs::create_dir(&work).expect("predictor dir");
        std::fs::copy(
            predictors().join(predictor).join("predict.py"),
            work.join("predict.py"),
        )
        .unwrap_or_else(|e| panic!("tests/cog/{predictor}/predict.py: {e}"));
        let path = format!(
            "{}:{}",
            venv().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let support = predictors().display().to_string();
        if schema == Schema::Written {
            let out = Command::new(&python)
                .arg(predictors().join("openapi_schema.py"))
                .arg("predict.py:Predictor")
                .current_dir(&work)
                .env("PATH", &path)
                .env("PYTHONPATH", &support)
                // No __pycache__ beside the shared module in the repository.
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .output()
                .expect("run openapi_schema.py");
            assert!(
                out.status.success(),
                "openapi_schema.py for {predictor}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let calls = dir.path().join("calls");
        let log = dir.path().join("cog.log");
        let port = free_port();
        let log_file = std::fs::File::create(&log).expect("log file");
        let child = Command::new(&python)
            .args(["-m", "cog.server.http", "--host", "127.0.0.1"])
            .current_dir(&work)
            .env("PATH", &path)
            .env("PYTHONPATH", &support)
            // No __pycache__ beside the shared module in the repository.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PORT", port.to_string())
            .env("COG_PREDICT_TYPE_STUB", "predict.py:Predictor")
            .env("STILLREEL_COG_CALLS", &calls)
            .envs(env.iter().copied())
            .stdout(log_file.try_clone().expect("log file"))
            .stderr(log_file)
            .stdin(Stdio::null())
            // Its own group: the worker subprocess Cog starts goes with it.
            .process_group(0)
            .spawn()
            .expect("start python -m cog.server.http");
        CogModel {
            port,
            url: format!("http://127.0.0.1:{port}"),
            child: Some(child),
            calls,
            log,
            dir,
        }
    }

    /// `GET /health-check`: its status and body, or `None` while nothing answers.
    pub fn health(&self) -> Option<(u16, Value)> {
        let (status, _, body) = http(self.port, "GET", "/health-check", &[])?;
        Some((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }

    /// The health check's `status` (`STARTING`, `READY`, `BUSY`, `SETUP_FAILED`, ...), or
    /// `None` while nothing answers.
    pub fn status(&self) -> Option<String> {
        self.health()
            .and_then(|(_, body)| body["status"].as_str().map(str::to_owned))
    }

    /// Waits (at most 60 s) until setup has finished; answers the status.
    pub fn wait_setup(&self) -> String {
        let started = Instant::now();
        loop {
            match self.status() {
                Some(status) if status != "STARTING" => return status,
                _ => {}
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Cog did not finish its setup; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits (at most `within`) until the health check says `want`; answers how long it took.
    pub fn wait_status(&self, want: &str, within: Duration) -> Duration {
        let started = Instant::now();
        loop {
            let status = self.status();
            if status.as_deref() == Some(want) {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < within,
                "Cog is {status:?}, not {want}, after {within:?}; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The times (Unix seconds) at which predictions started.
    pub fn starts(&self) -> Vec<f64> {
        self.events("start")
    }

    /// The times at which predictions answered.
    pub fn ends(&self) -> Vec<f64> {
        self.events("end")
    }

    /// How many predictions the model ran.
    pub fn calls(&self) -> usize {
        self.starts().len()
    }

    fn events(&self, kind: &str) -> Vec<f64> {
        std::fs::read_to_string(&self.calls)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' '))
            .filter(|(k, _)| *k == kind)
            .filter_map(|(_, t)| t.parse().ok())
            .collect()
    }

    /// The server's log (coglet writes JSON lines).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The prediction ids the log says were started.
    pub fn prediction_ids(&self) -> Vec<String> {
        self.log()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|v| v["fields"]["message"] == "Starting prediction")
            .filter_map(|v| v["fields"]["prediction_id"].as_str().map(str::to_owned))
            .collect()
    }

    /// Kills the server's process group (Cog and its worker) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
        }
    }
}

/// Keeps a Cog server busy: a prediction whose connection stays open (Cog cancels a
/// prediction whose client goes away) until this is dropped.
pub struct Occupied {
    _connection: TcpStream,
}

impl Occupied {
    pub fn new(cog: &CogModel) -> Occupied {
        let body = json!({"input": {"image": "data:image/png;base64,iVBORw0KGgo="}}).to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", cog.port)).expect("connect");
        write!(
            stream,
            "POST /predictions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        cog.wait_status("BUSY", Duration::from_secs(10));
        Occupied {
            _connection: stream,
        }
    }
}
