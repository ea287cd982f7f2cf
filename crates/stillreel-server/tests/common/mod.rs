//! `spawn_app()`: a real server on a random port with its own fresh database, SQLite (a temp
//! file) or PostgreSQL (a new database on `STILLREEL_TEST_PG_URL`), and a small HTTP client.
#![allow(
    dead_code,
    reason = "each test binary uses a different part of the harness"
)]

use std::collections::HashMap;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use stillreel_core::CreateProjectRequest;
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder};
use stillreel_server::config::{Config, DatabaseConfig};
use stillreel_server::repo::accounts::{self, NewAccount};
use stillreel_server::{AppState, Db};
use tokio::sync::oneshot;

pub mod cog;
pub mod garage;
pub mod media;
pub mod process;

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Generates `<name>_sqlite` and `<name>_postgres` tests from one `async fn <name>(app: TestApp)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),+ $(,)?) => {
        $crate::both_backends!(@pair (|_| {}); $($name),+);
    };
    // Tests whose server needs a configuration change first, in a module of their own so that
    // several such groups can live in one file.
    (mod $group:ident, configured by $config:ident: $($name:ident),+ $(,)?) => {
        mod $group {
            // The file's test functions and configuration, as `super::` items of the pair.
            use super::*;
            $crate::both_backends!(@pair (super::$config); $($name),+);
        }
    };
    (@pair ($config:expr); $($name:ident),+) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if let Some(app) = $crate::common::TestApp::spawn_with($crate::common::Backend::Sqlite, $config).await {
                        super::$name(app).await;
                    }
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if let Some(app) = $crate::common::TestApp::spawn_with($crate::common::Backend::Postgres, $config).await {
                        super::$name(app).await;
                    }
                }
            )+
        }
    };
}

/// The PostgreSQL server the PostgreSQL variants run on (`STILLREEL_TEST_PG_URL`), or `None`
/// after a loud notice when they are to be skipped. Every PostgreSQL test comes here (through
/// [`TestDb::new`]), so the rule is one: without the variable a test skips on a developer's
/// machine and fails under CI (`CI` set); with it, a server that cannot be reached fails the
/// test everywhere ([`TestDb::new`]).
pub fn pg_url() -> Option<String> {
    let url = std::env::var("STILLREEL_TEST_PG_URL").ok();
    match pg_url_from(url, std::env::var_os("CI").is_some()) {
        Ok(Some(url)) => Some(url),
        Ok(None) => {
            // Straight to stderr: the test harness captures `eprintln!` of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "\n!!!!! SKIPPED: PostgreSQL variant (STILLREEL_TEST_PG_URL is unset; `source scripts/postgres.sh` sets it) !!!!!\n"
            );
            None
        }
        Err(why) => panic!("{why}"),
    }
}

/// [`pg_url`]'s rule, given the variable and whether `CI` is set: the URL, a skip (`None`), or
/// the failure.
pub fn pg_url_from(url: Option<String>, ci: bool) -> Result<Option<String>, String> {
    match url {
        Some(url) if !url.is_empty() => Ok(Some(url)),
        _ if ci => Err(
            "STILLREEL_TEST_PG_URL is not set but CI is: PostgreSQL tests must run, not \
             skip (source scripts/postgres.sh)"
                .to_owned(),
        ),
        _ => Ok(None),
    }
}

/// A fresh database: a SQLite file in a temp dir, or a new PostgreSQL database dropped again
/// when the guard goes.
pub struct TestDb {
    pub config: DatabaseConfig,
    pub dir: tempfile::TempDir,
    pg_drop: Option<(String, String)>,
}

impl TestDb {
    /// Points a `stillreel` command at this database: its data directory, and its PostgreSQL
    /// database when it has one.
    pub fn apply_to(&self, cmd: &mut std::process::Command) {
        cmd.env("STILLREEL_DATA_DIR", self.dir.path());
        if let DatabaseConfig::Postgres(url) = &self.config {
            cmd.env("STILLREEL_DATABASE_URL", url);
        }
    }

    pub async fn new(backend: Backend) -> Option<TestDb> {
        let dir = tempfile::tempdir().expect("temp dir");
        match backend {
            Backend::Sqlite => Some(TestDb {
                config: DatabaseConfig::Sqlite(dir.path().join("stillreel.db")),
                dir,
                pg_drop: None,
            }),
            Backend::Postgres => {
                let admin_url = pg_url()?;
                let name = format!("stillreel_test_{}", uuid::Uuid::new_v4().simple());
                let admin = sqlx::PgPool::connect(&admin_url)
                    .await
                    .unwrap_or_else(|err| {
                        panic!(
                            "STILLREEL_TEST_PG_URL is set but PostgreSQL cannot be reached \
                             ({err}): start it (source scripts/postgres.sh) or unset the variable"
                        )
                    });
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&admin)
                    .await
                    .expect("create test database");
                admin.close().await;
                let url = with_database(&admin_url, &name);
                Some(TestDb {
                    config: DatabaseConfig::Postgres(url),
                    dir,
                    pg_drop: Some((admin_url, name)),
                })
            }
        }
    }
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let slash = base
        .rfind('/')
        .filter(|&i| i > "postgres://".len())
        .unwrap_or(base.len());
    let mut out = format!("{}/{name}", &base[..slash]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some((admin_url, name)) = self.pg_drop.take() {
            // Drop runs outside async; a short-lived runtime on its own thread does the work.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                rt.block_on(async {
                    if let Ok(admin) = sqlx::PgPool::connect(&admin_url).await {
                        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .execute(&admin)
                        .await;
                        admin.close().await;
                    }
                });
            })
            .join();
        }
    }
}

/// A running server.
pub struct TestApp {
    pub addr: SocketAddr,
    pub base: String,
    pub state: AppState,
    pub backend: Backend,
    client: Client<HttpConnector, Full<Bytes>>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
    // Last: dropped after the server stopped.
    pub db_guard: TestDb,
}

/// A response, with the body parsed as JSON when it is JSON.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Bytes,
    pub json: Value,
}

impl Resp {
    /// `error.code` of an envelope.
    pub fn code(&self) -> &str {
        self.json["error"]["code"].as_str().unwrap_or("")
    }

    /// `(field, code)` of every detail of an envelope.
    pub fn details(&self) -> Vec<(String, String)> {
        self.json["error"]["details"]
            .as_array()
            .map(|d| {
                d.iter()
                    .map(|e| {
                        (
                            e["field"].as_str().unwrap_or("").to_owned(),
                            e["code"].as_str().unwrap_or("").to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Asserts the response is an envelope with this status and code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "status; body: {}", self.json);
        assert_eq!(self.code(), code, "error.code; body: {}", self.json);
        assert!(
            self.json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "message: {}",
            self.json
        );
        assert!(
            self.json["error"]["details"].is_array(),
            "details: {}",
            self.json
        );
        assert_eq!(
            self.headers
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/json"),
            "envelope content type"
        );
    }
}

impl TestApp {
    /// Polls `get_video` until video `uuid` is `complete` or `error`, at most `limit`, and
    /// answers its record.
    pub async fn wait_final(&self, key: &str, uuid: &str, limit: std::time::Duration) -> Value {
        let started = std::time::Instant::now();
        loop {
            let r = self
                .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
                .await;
            assert_eq!(r.status, 200, "{}", r.json);
            if matches!(r.json["status"].as_str(), Some("complete" | "error")) {
                return r.json;
            }
            assert!(
                started.elapsed() < limit,
                "video {uuid} not final after {limit:?}: {}",
                r.json
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// A server with the default configuration on a fresh database.
    pub async fn spawn(backend: Backend) -> Option<TestApp> {
        Self::spawn_with(backend, |_| {}).await
    }

    /// A server whose configuration `adjust` may change first.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> Option<TestApp> {
        let db_guard = TestDb::new(backend).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let data_dir: PathBuf = db_guard.dir.path().to_owned();
        let vars: HashMap<&str, String> = HashMap::from([
            ("STILLREEL_LISTEN", addr.to_string()),
            ("STILLREEL_DATA_DIR", data_dir.display().to_string()),
            ("STILLREEL_WORKERS", "0".to_owned()),
            (
                "STILLREEL_WEB_DIR",
                data_dir.join("no-web").display().to_string(),
            ),
        ]);
        let mut config = Config::from_lookup(|name| vars.get(name).cloned()).expect("config");
        config.database = db_guard.config.clone();
        adjust(&mut config);
        let db = Db::connect(&config.database)
            .await
            .expect("connect test database");
        let state = AppState::new(db, config);
        let (stop, stopped) = oneshot::channel::<()>();
        let server_state = state.clone();
        let server = tokio::spawn(async move {
            stillreel_server::serve::serve(listener, server_state, async {
                let _ = stopped.await;
            })
            .await
            .expect("server ran");
        });
        let client = Client::builder(TokioExecutor::new()).build_http();
        Some(TestApp {
            addr,
            base: format!("http://{addr}"),
            state,
            backend,
            client,
            stop: Some(stop),
            server: Some(server),
            db_guard,
        })
    }

    pub fn db(&self) -> &Db {
        &self.state.db
    }

    /// A new account (default clip limit) with its key.
    pub async fn account(&self) -> NewAccount {
        self.account_with_limit(20).await
    }

    pub async fn account_with_limit(&self, limit: usize) -> NewAccount {
        accounts::create(self.db(), "test", limit)
            .await
            .expect("create account")
    }

    /// Any request.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Resp {
        let mut builder = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        let request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .expect("request");
        let response = self.client.request(request).await.expect("send request");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("read body")
            .to_bytes();
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            bytes,
            json,
        }
    }

    /// GET with `Authorization: <key>`.
    pub async fn get(&self, path: &str, key: &str) -> Resp {
        self.request(Method::GET, path, &[("authorization", key)], None)
            .await
    }

    /// POST JSON with `Authorization: <key>`.
    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Resp {
        self.post_with(path, key, body, &[]).await
    }

    /// POST JSON with extra headers.
    pub async fn post_with(
        &self,
        path: &str,
        key: &str,
        body: &Value,
        extra: &[(&str, &str)],
    ) -> Resp {
        let mut headers = vec![("authorization", key), ("content-type", "application/json")];
        headers.extend_from_slice(extra);
        self.request(
            Method::POST,
            path,
            &headers,
            Some(body.to_string().into_bytes()),
        )
        .await
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.expect("server task");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}

/// A request body as JSON: the core's request types serialize as the API spells them.
pub fn json_body(request: &impl serde::Serialize) -> Value {
    serde_json::to_value(request).expect("a request type serializes")
}

/// A valid `create_video` body with `n` images (the core's builder: every member spelled out).
pub fn create_body(n: usize) -> Value {
    json_body(&CreateVideoBuilder::new().images(n).build())
}

/// A valid `combine_video_clips` body of these clips, landscape 720p (the core's builder).
pub fn combine_body(clips: &[uuid::Uuid]) -> Value {
    json_body(&CombineBuilder::new().clips(clips.to_vec()).build())
}

/// A valid `create_project` body.
pub fn project_body(name: &str) -> Value {
    json_body(&CreateProjectRequest {
        name: name.to_owned(),
    })
}

/// `body` without the members the server fills in when they are absent (`orientation`,
/// `resolution`, `ai_engine`, each image's `camera_motion`): what tests of the defaults send.
pub fn without_defaults(mut body: Value) -> Value {
    if let Some(map) = body.as_object_mut() {
        for member in ["orientation", "resolution", "ai_engine"] {
            map.remove(member);
        }
    }
    if let Some(images) = body["image_inputs"].as_array_mut() {
        for image in images.iter_mut().filter_map(Value::as_object_mut) {
            image.remove("camera_motion");
        }
    }
    body
}
