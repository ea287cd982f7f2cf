//! Every setting `.env.example` lists is checked before anything happens: for each variable,
//! bad values from the table below (wrong type, out of range, conflicting with another) stop
//! the real `serve` with status 2, naming the variable, printing nothing on standard output
//! and creating nothing (no data folder). A variable `.env.example` lists without a row here
//! fails the test, so a new setting comes with its bad values (or the reason it has none).
//! An empty value means unset for every variable (the default applies), so it is never bad.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::process::free_port;

/// One bad value: the value, other variables set with it, and the variable the error must
/// name (`None`: the row's own).
struct Bad {
    value: String,
    with: Vec<(String, String)>,
    names: Option<String>,
}

fn bad(value: &str) -> Bad {
    Bad {
        value: value.to_owned(),
        with: Vec::new(),
        names: None,
    }
}

fn bad_with(value: &str, with: &[(&str, &str)]) -> Bad {
    Bad {
        value: value.to_owned(),
        with: with
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        names: None,
    }
}

/// A value that is fine alone but names another variable as the one at fault.
fn bad_naming(value: &str, with: &[(&str, &str)], names: &str) -> Bad {
    Bad {
        names: Some(names.to_owned()),
        ..bad_with(value, with)
    }
}

/// A variable's row: its bad values, or why it has none.
enum Row {
    Bad(Vec<Bad>),
    NoBadValue(&'static str),
}

/// The rows of the five provider roles (`STILLREEL_<ROLE>_*`): each setting is refused with a
/// bad value, or, set without `_PROVIDER`, names `_PROVIDER` as the one forgotten.
fn role_rows(role: &str) -> Vec<(String, Row)> {
    let var = |s: &str| format!("STILLREEL_{role}_{s}");
    let provider = var("PROVIDER");
    let url = var("URL");
    let token = var("TOKEN");
    let cog: Vec<(&str, &str)> = vec![(&provider, "cog"), (&url, "http://gpu.internal:5000")];
    let replicate: Vec<(&str, &str)> = vec![(&provider, "replicate"), (&token, "r8_k")];
    vec![
        (
            provider.clone(),
            Row::Bad(vec![
                bad("midjourney"),
                bad("42"),
                // A model host's protocol needs its address.
                bad_naming("cog", &[], &url),
                // replicate needs its key.
                bad_naming("replicate", &[], &token),
            ]),
        ),
        (
            url.clone(),
            Row::Bad(vec![
                bad_naming("http://gpu.internal/", &[], &provider),
                bad_with("ftp://gpu.internal/", &[(&provider, "cog")]),
                bad_with("not a url", &[(&provider, "cog")]),
                bad_with("http://", &[(&provider, "cog")]),
            ]),
        ),
        (
            token.clone(),
            Row::Bad(vec![
                // Any text is a key; set without a provider it is a forgotten `_PROVIDER`.
                bad_naming("r8_k", &[], &provider),
            ]),
        ),
        (
            var("MODEL"),
            Row::Bad(vec![
                bad_with("flux", &replicate),
                bad_with("a/b/c", &replicate),
                bad_with("a/b:v-1", &replicate),
                bad_naming("owner/model", &[], &provider),
            ]),
        ),
        (
            var("INPUT"),
            Row::Bad(vec![
                bad_with("[1]", &cog),
                bad_with("{", &cog),
                bad_with("not json", &cog),
                bad_naming("{}", &[], &provider),
            ]),
        ),
        (
            var("PROMPT"),
            Row::Bad(vec![
                bad_with("stage {{roomtype}}", &replicate),
                bad_naming("a prompt", &[], &provider),
            ]),
        ),
        (
            var("TIMEOUT_SECS"),
            Row::Bad(vec![
                bad_with("0", &cog),
                bad_with("3601", &cog),
                bad_with("x", &cog),
                bad_with("1.5", &cog),
                bad_naming("30", &[], &provider),
            ]),
        ),
    ]
}

/// The table. `listen` is the API's address every case runs with.
fn table(listen: &str) -> Vec<(String, Row)> {
    let every = listen.replace("127.0.0.1", "0.0.0.0");
    let row = |var: &str, values: &[&str]| {
        (
            var.to_owned(),
            Row::Bad(values.iter().map(|v| bad(v)).collect()),
        )
    };
    let mut rows = vec![
        row(
            "STILLREEL_LISTEN",
            &["localhost", "127.0.0.1:99999", "8080", "127.0.0.1:x"],
        ),
        (
            "STILLREEL_DATA_DIR".to_owned(),
            Row::NoBadValue(
                "any path is a folder to create (a relative one is taken from the working folder)",
            ),
        ),
        row(
            "STILLREEL_DATABASE_URL",
            &["mysql://x/db", "stillreel", "http://127.0.0.1/db"],
        ),
        row("STILLREEL_DATABASE_POOL_SIZE", &["0", "1001", "many", "-1"]),
        row(
            "STILLREEL_PUBLIC_URL",
            &[
                "http://",
                "ftp://x",
                "https://a.example?x=1",
                "video.example.com",
            ],
        ),
        row(
            "STILLREEL_FETCH_ALLOW",
            &["localhost:8091", "10.0.0.0/8, http://x", "10.0.0.0/99"],
        ),
        row("STILLREEL_WORKERS", &["many", "-1", "1.5"]),
        row("STILLREEL_MIN_FREE_BYTES", &["lots", "-1", "1.5", "512MiB"]),
        row(
            "STILLREEL_STORAGE_URL",
            &["gs://b", "s3:///x", "s3://b/../x", "file://relative/x"],
        ),
        (
            "STILLREEL_STORAGE_PRESIGN_SECS".to_owned(),
            Row::Bad(vec![
                bad_with("0", &[("STILLREEL_STORAGE_URL", "s3://b")]),
                bad_with("x", &[("STILLREEL_STORAGE_URL", "s3://b")]),
                bad_with("-5", &[("STILLREEL_STORAGE_URL", "s3://b")]),
            ]),
        ),
        row(
            "STILLREEL_METRICS_TOKEN",
            &["short", "a token with spaces in it, long enough"],
        ),
        (
            "STILLREEL_METRICS_LISTEN".to_owned(),
            Row::Bad(vec![
                bad("9464"),
                bad("metrics.internal"),
                // The API's own address, or its port on every address.
                bad(listen),
                bad_with(listen, &[("STILLREEL_LISTEN", &every)]),
            ]),
        ),
        row(
            "STILLREEL_WORKER_LISTEN",
            &["9090", "localhost", "127.0.0.1:70000"],
        ),
        row("STILLREEL_ACCOUNT_MAX_RUNNING", &["0", "x", "-2"]),
        row(
            "STILLREEL_MEDIA_MAX_BYTES",
            &["lots", "1,2,3", "40TiB", "-1"],
        ),
        row("STILLREEL_MEDIA_MAX_PIXELS", &["0", "x", "-1"]),
        row("STILLREEL_FETCH_DEADLINE_SECS", &["0", "x", "-1"]),
        row("STILLREEL_FETCH_CONCURRENCY", &["0", "x"]),
        row("STILLREEL_FETCH_MIN_RATE", &["fast", "-1"]),
        row("STILLREEL_FETCH_RATE_WINDOW_SECS", &["0", "3601", "x"]),
        row(
            "STILLREEL_FFMPEG_MAX_MEMORY",
            &["on", "1", "255MiB", "lots"],
        ),
        row("STILLREEL_JOB_LEASE_SECS", &["1", "x", "-30"]),
        (
            "STILLREEL_SAMPLES_DIR".to_owned(),
            Row::NoBadValue(
                "any path: a missing folder serves no samples (/samples/ answers 404), as documented",
            ),
        ),
        row("STILLREEL_PROVIDER_CONCURRENCY", &["0", "x", "-1"]),
        row("STILLREEL_DISCLOSURE_CAPTION", &["maybe", "1", "yes"]),
        row(
            "STILLREEL_PROVIDER_URL",
            &["ftp://provider.example/", "not a url", "http://"],
        ),
        (
            "STILLREEL_PROVIDER_TOKEN".to_owned(),
            Row::NoBadValue(
                "any text is a key; it is sent only when STILLREEL_PROVIDER_URL is set",
            ),
        ),
        (
            "STILLREEL_PROVIDER_TIMEOUT_SECS".to_owned(),
            Row::Bad(vec![
                bad_with("0", &[("STILLREEL_PROVIDER_URL", "http://p.internal/")]),
                bad_with("x", &[("STILLREEL_PROVIDER_URL", "http://p.internal/")]),
                bad_with("3601", &[("STILLREEL_PROVIDER_URL", "http://p.internal/")]),
            ]),
        ),
        row("STILLREEL_RATE_LIMIT", &["120", "10/fortnight", "fast"]),
        row(
            "STILLREEL_HTTP_HEADER_TIMEOUT_SECS",
            &["0", "3601", "x", "1.5"],
        ),
        row("STILLREEL_HTTP_IDLE_TIMEOUT_SECS", &["0", "3601", "x"]),
        row("STILLREEL_HTTP_BODY_TIMEOUT_SECS", &["0", "3601", "1.5"]),
        row("STILLREEL_HTTP_MAX_CONNECTIONS", &["0", "1000001", "x"]),
        row("STILLREEL_HTTP_ACCOUNT_UPLOADS", &["0", "1025", "many"]),
        row(
            "STILLREEL_HTTP_AUTH_FAILURES_PER_MIN",
            &["0", "1000001", "x"],
        ),
        row("STILLREEL_DEFAULT_ENGINE", &["v26", "generative", "x"]),
        row(
            "STILLREEL_FFMPEG",
            &["/nonexistent/ffmpeg", "/bin/true", "/etc/hostname"],
        ),
        (
            "STILLREEL_WEB_DIR".to_owned(),
            Row::NoBadValue("any path: a missing folder serves no form (the API works without it)"),
        ),
        row("STILLREEL_LOG_FORMAT", &["xml", "text2"]),
        row("STILLREEL_GET_VIDEO_CACHE", &["maybe", "1"]),
        row("STILLREEL_WEBHOOK_RETRY_SCHEDULE", &["1,x", "soon", "-5"]),
        row(
            "STILLREEL_TEMPLATES_DIR",
            &["/nonexistent/templates", "/etc/hostname"],
        ),
    ];
    for role in ["STAGING", "LIFESTYLE", "FAN", "DEPTH", "CLIP"] {
        rows.extend(role_rows(role));
    }
    rows
}

/// The variables `.env.example` lists (set or commented out).
fn listed_variables() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.env.example");
    let text = std::fs::read_to_string(path).expect("read .env.example");
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start_matches('#').trim();
            let (name, _) = line.split_once('=')?;
            (name.starts_with("STILLREEL_")
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .then(|| name.to_owned())
        })
        .collect()
}

/// Runs `serve` with `vars` (and nothing else from the environment but `PATH`) for at most a
/// few seconds: its status (`None` when it was still running and was stopped), stdout, stderr.
fn serve(vars: &[(String, String)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn")
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run stillreel");
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = child.wait_with_output().expect("output");
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_listed_setting_refuses_its_bad_values_before_anything_is_created() {
    let listen = format!("127.0.0.1:{}", free_port());
    let rows = table(&listen);
    let covered: BTreeSet<String> = rows.iter().map(|(var, _)| var.clone()).collect();
    let listed = listed_variables();
    assert!(listed.len() > 40, "read .env.example: {listed:?}");
    let missing: Vec<_> = listed.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "variables in .env.example without a row in this table: {missing:?}"
    );
    let stale: Vec<_> = covered.difference(&listed).collect();
    assert!(
        stale.is_empty(),
        "rows for variables .env.example does not list: {stale:?}"
    );

    let mut failures = Vec::new();
    let mut cases = 0;
    for (var, row) in &rows {
        let values = match row {
            Row::Bad(values) => values,
            Row::NoBadValue(reason) => {
                assert!(!reason.is_empty(), "{var}: say why it has no bad value");
                continue;
            }
        };
        assert!(
            values.len() >= 2 || var.ends_with("_TOKEN"),
            "{var}: give several bad values"
        );
        for case in values {
            cases += 1;
            let dir = tempfile::tempdir().expect("temp dir");
            let data = dir.path().join("data");
            let mut vars = vec![
                ("STILLREEL_DATA_DIR".to_owned(), data.display().to_string()),
                ("STILLREEL_LISTEN".to_owned(), listen.clone()),
            ];
            vars.extend(case.with.iter().cloned());
            vars.push((var.clone(), case.value.clone()));
            let named = case.names.as_deref().unwrap_or(var);
            let (code, stdout, stderr) = serve(&vars);
            let what = format!("{var}={:?} with {:?}", case.value, case.with);
            if code != Some(2) {
                failures.push(format!("{what}: exit {code:?}, not 2: {stderr}"));
            } else if !stderr.contains(named) {
                failures.push(format!("{what}: stderr does not name {named}: {stderr}"));
            } else if !stdout.is_empty() {
                failures.push(format!("{what}: printed {stdout:?}"));
            } else if data.exists() {
                failures.push(format!("{what}: the data folder was created"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} bad values were not refused as they should be:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
