//! The `stillreel` binary: `accounts create`, `add-key` and `revoke-key`, and `serve` creating
//! the first account, answering with its key, and shutting down cleanly on SIGTERM.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::process::free_port;
use common::{Backend, TestDb};

fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn");
    cmd
}

async fn accounts_create_prints_one_json_object(backend: Backend) {
    let Some(db) = TestDb::new(backend).await else {
        return;
    };
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let out = cmd
        .args(["accounts", "create", "Acme Realty", "--clip-limit", "7"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    let keys: Vec<&str> = json
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        vec!["account", "api_key", "default_project", "webhook_secret"]
    );
    let key = json["api_key"].as_str().expect("key");
    let secret = json["webhook_secret"].as_str().expect("secret");
    assert!(
        secret.starts_with("whsec_") && secret.len() == 50,
        "{secret}"
    );

    // A new secret; the old one still signs for 24 h.
    let account = json["account"].as_str().expect("account");
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let out = cmd
        .args(["accounts", "rotate-webhook-secret", account])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rotated: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(rotated["account"], account);
    let new_secret = rotated["webhook_secret"].as_str().expect("new secret");
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    let until = rotated["previous_valid_until"].as_str().expect("until");
    let until = time::OffsetDateTime::parse(until, &time::format_description::well_known::Rfc3339)
        .expect("RFC 3339");
    let hours = (until - time::OffsetDateTime::now_utc()).whole_minutes();
    assert!(
        (23 * 60..=24 * 60).contains(&hours),
        "{hours} minutes of grace"
    );
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let out = cmd
        .args([
            "accounts",
            "rotate-webhook-secret",
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "an unknown account is an error");

    // The key authenticates against that database, with the requested clip limit.
    let handle = stillreel_server::Db::connect(&db.config).await.expect("db");
    let ctx = stillreel_server::repo::accounts::authenticate(&handle, key)
        .await
        .expect("auth")
        .expect("known key");
    assert_eq!(ctx.clip_limit, 7);
    assert_eq!(
        ctx.default_project.to_string(),
        json["default_project"].as_str().expect("project")
    );
    handle.close().await;

    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let out = cmd
        .args(["accounts", "create", "x", "--clip-limit", "0"])
        .output()
        .expect("run");
    assert!(!out.status.success(), "a zero clip limit is refused");
}

async fn serve_creates_first_account_and_stops_on_sigterm(backend: Backend) {
    let Some(db) = TestDb::new(backend).await else {
        return;
    };
    let port = free_port();
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let mut child = cmd
        .args(["serve"])
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{port}"))
        .env("STILLREEL_WORKERS", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let _notice = lines.next().expect("a notice line").expect("read");
    let json: serde_json::Value =
        serde_json::from_str(&lines.next().expect("the account line").expect("read"))
            .expect("json");
    let key = json["api_key"].as_str().expect("key").to_owned();

    // The key works against the running server.
    let mut ok = false;
    for _ in 0..50 {
        let probe = Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-H",
                &format!("Authorization: {key}"),
            ])
            .arg(format!("http://127.0.0.1:{port}/api/v1/get_projects"))
            .output();
        if probe.is_ok_and(|o| o.stdout == b"200") {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "serve answered with the printed key");

    // SIGTERM: graceful shutdown, exit status 0.
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let mut exited = None;
    for _ in 0..100 {
        if let Some(status) = child.try_wait().expect("wait") {
            exited = Some(status);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = exited.unwrap_or_else(|| {
        let _ = child.kill();
        panic!("serve did not stop within 5 s of SIGTERM")
    });
    assert!(status.success(), "exit status {status:?}");

    // A second start does not create another account (nothing printed).
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let child = cmd
        .args(["serve"])
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("STILLREEL_WORKERS", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn serve");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.stdout.is_empty(),
        "no second account: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Runs `stillreel accounts <args>` on `db`, with `stdin` as its input; (success, stdout, stderr).
fn accounts(db: &TestDb, args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut cmd = bin();
    db.apply_to(&mut cmd);
    let mut child = cmd
        .arg("accounts")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Key rotation: a second key works beside the first; a revoked key stops working; unknown
/// keys and accounts are errors.
async fn keys_are_added_and_revoked(backend: Backend) {
    let Some(db) = TestDb::new(backend).await else {
        return;
    };
    let (ok, out, err) = accounts(&db, &["create", "Rotating Realty"], "");
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(&out).expect("json");
    let account = created["account"].as_str().expect("account").to_owned();
    let first = created["api_key"].as_str().expect("key").to_owned();

    let (ok, out, err) = accounts(&db, &["add-key", &account], "");
    assert!(ok, "{err}");
    let added: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(added["account"], account.as_str());
    let second = added["api_key"].as_str().expect("key").to_owned();
    assert_ne!(first, second);
    assert!(second.starts_with("sr_"));

    let handle = stillreel_server::Db::connect(&db.config).await.expect("db");
    let account_of = |key: String| {
        let handle = &handle;
        async move {
            stillreel_server::repo::accounts::authenticate(handle, &key)
                .await
                .expect("auth")
                .map(|ctx| ctx.account_id.to_string())
        }
    };
    assert_eq!(
        account_of(first.clone()).await.as_deref(),
        Some(account.as_str())
    );
    assert_eq!(
        account_of(second.clone()).await.as_deref(),
        Some(account.as_str())
    );

    // Revoked from standard input (`-`), so the key is not in the process list.
    let (ok, out, err) = accounts(&db, &["revoke-key", "-"], &format!("{first}\n"));
    assert!(ok, "{err}");
    assert_eq!(out.trim(), r#"{"revoked":true}"#);
    assert_eq!(
        account_of(first.clone()).await,
        None,
        "the revoked key is refused"
    );
    assert_eq!(
        account_of(second.clone()).await.as_deref(),
        Some(account.as_str())
    );

    let (ok, _, err) = accounts(&db, &["revoke-key", &first], "");
    assert!(!ok, "revoking twice is an error");
    assert!(err.contains("no such API key"), "{err}");
    let (ok, _, err) = accounts(
        &db,
        &["add-key", "0190b5a4-0000-7000-8000-000000000000"],
        "",
    );
    assert!(!ok, "an unknown account is an error");
    assert!(err.contains("no account"), "{err}");
    let (ok, _, _) = accounts(&db, &["add-key", "not-a-uuid"], "");
    assert!(!ok, "a malformed account id is an error");
    handle.close().await;
}

#[tokio::test]
async fn keys_sqlite() {
    keys_are_added_and_revoked(Backend::Sqlite).await;
}

#[tokio::test]
async fn keys_postgres() {
    keys_are_added_and_revoked(Backend::Postgres).await;
}

#[tokio::test]
async fn accounts_create_sqlite() {
    accounts_create_prints_one_json_object(Backend::Sqlite).await;
}

#[tokio::test]
async fn accounts_create_postgres() {
    accounts_create_prints_one_json_object(Backend::Postgres).await;
}

#[tokio::test]
async fn serve_lifecycle_sqlite() {
    serve_creates_first_account_and_stops_on_sigterm(Backend::Sqlite).await;
}

#[tokio::test]
async fn serve_lifecycle_postgres() {
    serve_creates_first_account_and_stops_on_sigterm(Backend::Postgres).await;
}

#[test]
fn config_errors_exit_with_status_2() {
    let out = bin()
        .args(["serve"])
        .env("STILLREEL_WORKERS", "many")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("STILLREEL_WORKERS"));
}

/// A bad provider role setting stops `serve` with status 2 naming the variable, and the
/// message shows neither the key nor the address.
#[test]
fn a_bad_provider_role_exits_2_naming_the_variable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let out = bin()
        .args(["serve"])
        .env("STILLREEL_DATA_DIR", &data)
        .env("STILLREEL_STAGING_PROVIDER", "replicate")
        .env("STILLREEL_STAGING_TOKEN", "r8_secretkey")
        .env("STILLREEL_STAGING_MODEL", "not a model")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("STILLREEL_STAGING_MODEL"), "{stderr}");
    assert!(!stderr.contains("r8_secretkey"), "{stderr}");
    assert!(!data.exists(), "the data folder was created");
}

/// An allow-list entry with a port (the natural thing to write) stops `serve` with status 2,
/// naming the variable and the fix, before anything is created, bound or printed: no data
/// folder, no database, nothing on standard output.
#[test]
fn a_fetch_allow_entry_with_a_port_exits_2_before_anything_is_created() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let port = free_port();
    let out = bin()
        .args(["serve"])
        .env("STILLREEL_DATA_DIR", &data)
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{port}"))
        .env("STILLREEL_FETCH_ALLOW", "localhost:8091")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("STILLREEL_FETCH_ALLOW: entry \"localhost:8091\" has a port"),
        "{stderr}"
    );
    assert!(stderr.contains("leave the port out"), "{stderr}");
    assert!(!stderr.contains("listening"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!data.exists(), "the data folder was created");
}

/// A variable, its bad value, and other variables it is set with.
type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// Settings that used to fail only after the database was made (or not at all) stop `serve`
/// with status 2 naming the variable, before the data folder is created: a public URL
/// without a host, the metrics listener on the API's port of every address, an ffmpeg that
/// is not there, a memory limit no render fits in.
#[test]
fn late_failing_settings_exit_2_before_anything_is_created() {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let every = format!("0.0.0.0:{port}");
    let cases: [Case; 5] = [
        ("STILLREEL_PUBLIC_URL", "http://", &[]),
        (
            "STILLREEL_METRICS_LISTEN",
            &listen,
            &[("STILLREEL_LISTEN", &every)],
        ),
        ("STILLREEL_FFMPEG", "/nonexistent/ffmpeg", &[]),
        ("STILLREEL_FFMPEG", "/bin/true", &[]),
        ("STILLREEL_FFMPEG_MAX_MEMORY", "1", &[]),
    ];
    for (var, value, also) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        let mut cmd = bin();
        cmd.args(["serve"])
            .env("STILLREEL_DATA_DIR", &data)
            .env("STILLREEL_LISTEN", &listen)
            .env(var, value);
        for (k, v) in also {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{var}={value}: {stderr}");
        assert!(stderr.contains(var), "{var}={value}: {stderr}");
        assert!(out.stdout.is_empty(), "{var}={value}: nothing printed");
        assert!(!data.exists(), "{var}={value}: the data folder was created");
    }
}
