//! A hostile client on real sockets: slow headers, trickled bodies, connection hoarding, bodies
//! built to draw huge error lists, and concurrent creates racing on one Idempotency-Key.

mod common;

use std::time::{Duration, Instant};

use common::TestApp;
use stillreel_core::builder::{CreateVideoBuilder, speed_ramp};
use stillreel_server::config::{Config, MetricsToken};
use stillreel_server::webhook;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads until the server closes the connection (or `limit` passes); what it sent.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let result = tokio::time::timeout(limit, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    result.ok().map(|()| seen)
}

fn short_http_limits(config: &mut Config) {
    config.http.header_timeout = Duration::from_secs(1);
    config.http.idle_timeout = Duration::from_secs(3);
    config.http.body_timeout = Duration::from_secs(2);
    config.http.max_connections = 3;
}

both_backends!(mod short, configured by short_http_limits:
    unfinished_headers_are_closed,
    trickled_body_gets_408,
    connections_beyond_the_cap_wait_their_turn,
    kept_alive_connections_idle_longer_than_the_header_timeout,
);

async fn kept_alive_connections_idle_longer_than_the_header_timeout(app: TestApp) {
    let mut stream = TcpStream::connect(app.addr).await.expect("connect");
    let mut buf = vec![0u8; 4096];
    for round in 0..2 {
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .expect("write");
        let n = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut buf))
            .await
            .expect("answered in time")
            .expect("read");
        assert!(
            buf[..n].starts_with(b"HTTP/1.1 200"),
            "round {round}: {}",
            String::from_utf8_lossy(&buf[..n])
        );
        // Idle for longer than the header timeout (1 s), less than the idle timeout (3 s).
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    let started = Instant::now();
    let closed = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(
        closed.is_some(),
        "an idle connection outlived the idle timeout"
    );
    assert!(started.elapsed() >= Duration::from_millis(1000));
}

async fn unfinished_headers_are_closed(app: TestApp) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(app.addr).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .expect("write");
    let closed = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(
        closed.is_some(),
        "a connection that never finished its headers was still open after 5 s"
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
}

async fn trickled_body_gets_408(app: TestApp) {
    let account = app.account().await;
    let mut stream = TcpStream::connect(app.addr).await.expect("connect");
    let head = format!(
        "POST /api/v1/create_video HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
        account.api_key
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let started = Instant::now();
    let (mut read_half, mut write_half) = stream.into_split();
    let trickle = tokio::spawn(async move {
        // A byte every 300 ms: each chunk arrives well within any per-read timeout.
        for _ in 0..40 {
            if write_half.write_all(b" ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    let mut answer = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            match read_half.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(8), read).await;
    trickle.abort();
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.starts_with("HTTP/1.1 408"),
        "want 408 for a body trickled past the deadline, got {text:?}"
    );
    assert!(text.contains("request_timeout"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

async fn connections_beyond_the_cap_wait_their_turn(app: TestApp) {
    // Three connections hold every slot (one sends nothing yet, two are mid-headers).
    let mut hoarders = Vec::new();
    for _ in 0..3 {
        let mut s = TcpStream::connect(app.addr).await.expect("connect");
        s.write_all(b"GET /healthz HTTP/1.1\r\n").await.expect("w");
        hoarders.push(s);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut late = TcpStream::connect(app.addr)
        .await
        .expect("the backlog takes it");
    late.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut buf = [0u8; 64];
    let early = tokio::time::timeout(Duration::from_millis(500), late.read(&mut buf)).await;
    assert!(
        early.is_err(),
        "a fourth connection was served while the cap is 3"
    );
    // The hoarders hit the header timeout (1 s) and are closed; the waiting one is served.
    let answer = read_until_closed(&mut late, Duration::from_secs(5))
        .await
        .expect("served once a slot freed");
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

both_backends!(
    huge_error_lists_are_cut,
    concurrent_creates_with_one_key_make_one_video,
    crashed_attempts_end_the_video_and_its_branding,
);

async fn huge_error_lists_are_cut(app: TestApp) {
    let account = app.account().await;
    // About 1 MB: half a million elements of the wrong type.
    let mut body = String::from("{\"image_inputs\":[1");
    let mut elements = 1;
    while body.len() < 1_040_000 {
        body.push_str(",1");
        elements += 1;
    }
    body.push_str("]}");
    let resp = app
        .request(
            hyper::Method::POST,
            "/api/v1/create_video",
            &[
                ("authorization", account.api_key.as_str()),
                ("content-type", "application/json"),
            ],
            Some(body.into_bytes()),
        )
        .await;
    resp.assert_error(422, "validation_failed");
    assert!(
        resp.bytes.len() <= 64 * 1024,
        "answer of {} bytes",
        resp.bytes.len()
    );
    let details = resp.json["error"]["details"].as_array().expect("details");
    assert_eq!(details.len(), 100);
    assert_eq!(details[0]["field"], "image_inputs");
    assert_eq!(details[1]["field"], "image_inputs[0]");
    assert_eq!(details[99]["field"], "image_inputs[98]");
    assert_eq!(resp.json["error"]["truncated"], true);
    assert_eq!(
        resp.json["error"]["message"],
        format!(
            "{} fields are invalid; the first 100 are listed",
            elements + 1
        )
    );

    // 90,000 unknown members.
    let mut body = String::from("{\"image_inputs\":[{\"image_url\":\"https://e.com/a.jpg\"}]");
    for i in 0..90_000 {
        body.push_str(&format!(",\"k{i}\":1"));
    }
    body.push('}');
    let resp = app
        .request(
            hyper::Method::POST,
            "/api/v1/create_video",
            &[
                ("authorization", account.api_key.as_str()),
                ("content-type", "application/json"),
            ],
            Some(body.into_bytes()),
        )
        .await;
    resp.assert_error(422, "validation_failed");
    assert!(resp.bytes.len() <= 64 * 1024);
    assert_eq!(
        resp.json["error"]["message"],
        "90000 fields are invalid; the first 100 are listed"
    );
}

async fn concurrent_creates_with_one_key_make_one_video(app: TestApp) {
    let account = app.account().await;
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for key in 0..4 {
        for _ in 0..20 {
            let app = app.clone();
            let api_key = account.api_key.clone();
            tasks.push(tokio::spawn(async move {
                let idem = format!("race-{key}");
                let resp = app
                    .post_with(
                        "/api/v1/create_video",
                        &api_key,
                        &common::create_body(1),
                        &[("Idempotency-Key", idem.as_str())],
                    )
                    .await;
                (key, resp)
            }));
        }
    }
    let mut videos: Vec<std::collections::HashSet<String>> = vec![Default::default(); 4];
    for task in tasks {
        let (key, resp) = task.await.expect("task");
        match resp.status.as_u16() {
            200 => {
                videos[key].insert(resp.json["uuid"].as_str().expect("uuid").to_owned());
            }
            409 => resp.assert_error(409, "idempotency_in_progress"),
            other => panic!("key {key}: status {other}: {}", resp.json),
        }
    }
    for (key, uuids) in videos.iter().enumerate() {
        assert!(uuids.len() <= 1, "key {key} made {} videos", uuids.len());
    }
    // Once settled, every key answers with its one video: the one every 200 above named,
    // and a different one per key.
    let mut settled = std::collections::HashSet::new();
    for (key, made) in videos.iter().enumerate() {
        let idem = format!("race-{key}");
        let resp = app
            .post_with(
                "/api/v1/create_video",
                &account.api_key,
                &common::create_body(1),
                &[("Idempotency-Key", idem.as_str())],
            )
            .await;
        assert_eq!(resp.status.as_u16(), 200, "{}", resp.json);
        let uuid = resp.json["uuid"].as_str().expect("uuid").to_owned();
        assert!(made.is_empty() || made.contains(&uuid));
        assert!(
            settled.insert(uuid),
            "key {key} answered another key's video"
        );
    }
}

/// A worker killed during each of a job's attempts: the last lease expiry fails the job and,
/// in the same transaction, the video and its branding (they used to stay `in_progress` and
/// `queued` forever).
async fn crashed_attempts_end_the_video_and_its_branding(app: TestApp) {
    use stillreel_server::queue;
    let account = app.account().await;
    let body = common::json_body(
        &CreateVideoBuilder::new()
            .images(2)
            .branding(speed_ramp())
            .webhook("https://hooks.example.com/stillreel")
            .build(),
    );
    let created = app
        .post("/api/v1/create_video", &account.api_key, &body)
        .await;
    assert_eq!(created.status, 200, "{}", created.json);
    let uuid = created.json["uuid"].as_str().expect("uuid").to_owned();
    let db = app.db();
    let short = Duration::from_millis(300);
    for _ in 0..3 {
        let job = queue::claim(db, "dying", short)
            .await
            .expect("claim")
            .expect("job");
        // The worker got as far as starting the render, then the process died.
        stillreel_server::repo::render::start_video(db, job.video_id)
            .await
            .expect("start");
        tokio::time::sleep(Duration::from_millis(450)).await;
        stillreel_server::repo::sweep::expired_leases(db)
            .await
            .expect("requeue");
    }
    let video = app
        .get(&format!("/api/v1/get_video?uuid={uuid}"), &account.api_key)
        .await;
    assert_eq!(video.status, 200, "{}", video.json);
    assert_eq!(video.json["status"], "error", "{}", video.json);
    assert_eq!(video.json["error"]["code"], "render_failed");
    assert_eq!(
        video.json["error"]["message"],
        "rendering was interrupted 3 times"
    );
    assert_eq!(video.json["branding"]["status"], "error", "{}", video.json);
    assert_eq!(video.json["branding"]["error"]["code"], "render_failed");
    // The client's callback is not lost either: the same transaction wrote the video.failed
    // event and its delivery job (one event: the branding ended with its video).
    assert_eq!(video.json["webhook"]["status"], "pending", "{}", video.json);
    let id = uuid::Uuid::parse_str(&uuid).expect("uuid");
    let jobs = queue::jobs_of_video(db, id).await.expect("jobs");
    let deliveries: Vec<_> = jobs
        .iter()
        .filter(|j| j.0 == webhook::VIDEO_WEBHOOK)
        .collect();
    assert_eq!(deliveries.len(), 1, "{jobs:?}");
    assert_eq!(deliveries[0].1, "queued", "{jobs:?}");
    assert!(
        !jobs.iter().any(|j| j.0 == webhook::BRANDING_WEBHOOK),
        "{jobs:?}"
    );
}

fn samples_in_temp(config: &mut Config) {
    let dir = std::env::temp_dir().join(format!("sr-samples-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(dir.join("sub")).expect("dir");
    for name in [
        "house.jpg",
        "README.md",
        "generate.py",
        ".secret.jpg",
        "sub/x.jpg",
    ] {
        std::fs::write(dir.join(name), b"x").expect("write");
    }
    config.samples_dir = dir;
}

both_backends!(mod files, configured by samples_in_temp:
    only_finished_media_and_sample_pictures_are_served,
);

async fn only_finished_media_and_sample_pictures_are_served(app: TestApp) {
    let media = app.state.config.media_dir().join("videos/v1");
    std::fs::create_dir_all(&media).expect("media dir");
    std::fs::write(media.join("main.mp4"), b"done").expect("write");
    std::fs::write(media.join(".main.mp4.7-1.part"), b"half").expect("write");
    std::fs::write(media.join("main.mp4.part"), b"half").expect("write");
    let private = app.state.config.media_dir().join("private/videos/v1");
    std::fs::create_dir_all(&private).expect("private dir");
    std::fs::write(private.join("input-000.png"), b"photo").expect("write");
    let get = |path: &'static str| {
        let app = &app;
        async move { app.get(path, "").await.status.as_u16() }
    };
    assert_eq!(get("/files/videos/v1/main.mp4").await, 200);
    assert_eq!(get("/files/videos/v1/.main.mp4.7-1.part").await, 404);
    assert_eq!(get("/files/videos/v1/main.mp4.part").await, 404);
    assert_eq!(get("/files/videos/v1/%2emain.mp4.7-1.part").await, 404);
    // A video's checked inputs are stored, never served.
    assert_eq!(get("/files/private/videos/v1/input-000.png").await, 404);
    assert_eq!(get("/files//private/videos/v1/input-000.png").await, 404);
    assert_eq!(get("/samples/house.jpg").await, 200);
    assert_eq!(get("/samples/README.md").await, 404);
    assert_eq!(get("/samples/generate.py").await, 404);
    assert_eq!(get("/samples/.secret.jpg").await, 404);
    assert_eq!(get("/samples/sub/x.jpg").await, 404);
    let _ = std::fs::remove_dir_all(&app.state.config.samples_dir);
}

/// The sample pictures, a built form (one page) and a metrics token.
fn browser_and_operator(config: &mut Config) {
    samples_in_temp(config);
    let web = config.samples_dir.join("web");
    std::fs::create_dir_all(&web).expect("dir");
    std::fs::write(
        web.join("index.html"),
        b"<!doctype html><title>form</title>",
    )
    .expect("write");
    config.web_dir = web;
    config.metrics_token =
        Some(MetricsToken::parse("metrics-token-0123456789").expect("valid token"));
}

both_backends!(mod browser, configured by browser_and_operator:
    every_answer_tells_browsers_what_may_run_and_load,
    metrics_answers_only_the_operators_token,
);

/// The form, stored files, sample pictures and the API each carry their
/// Content-Security-Policy, and all of them nosniff, no referrer, no framing.
async fn every_answer_tells_browsers_what_may_run_and_load(app: TestApp) {
    let media = app.state.config.media_dir().join("videos/v1");
    std::fs::create_dir_all(&media).expect("media dir");
    std::fs::write(media.join("main.mp4"), b"done").expect("write");
    for (path, status, policy) in [
        ("/", 200, "script-src 'self' 'wasm-unsafe-eval'"),
        ("/files/videos/v1/main.mp4", 200, "sandbox"),
        ("/files/videos/v1/none.mp4", 404, "sandbox"),
        ("/samples/house.jpg", 200, "sandbox"),
        ("/api/v1/get_projects", 401, "default-src 'none'"),
    ] {
        let r = app.get(path, "").await;
        assert_eq!(r.status, status, "{path}");
        let header = |name: &str| {
            r.headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_else(|| panic!("{path}: no {name}"))
                .to_owned()
        };
        let csp = header("content-security-policy");
        assert!(csp.contains(policy), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{path}");
        assert_eq!(header("x-frame-options"), "DENY", "{path}");
    }
    let form = app.get("/", "").await;
    let csp = form.headers["content-security-policy"]
        .to_str()
        .expect("ascii");
    assert!(!csp.contains("'unsafe-inline'"), "{csp}");
}

/// With `STILLREEL_METRICS_TOKEN` set, `/metrics` needs it as a bearer token.
async fn metrics_answers_only_the_operators_token(app: TestApp) {
    app.get("/metrics", "")
        .await
        .assert_error(401, "unauthorized");
    app.get("/metrics", "Bearer wrong-token-0123456789")
        .await
        .assert_error(401, "unauthorized");
    let account = app.account().await;
    app.get("/metrics", &account.api_key)
        .await
        .assert_error(401, "unauthorized");
    let r = app.get("/metrics", "Bearer metrics-token-0123456789").await;
    assert_eq!(r.status, 200);
    let text = String::from_utf8_lossy(&r.bytes);
    assert!(text.contains("stillreel_http_requests_total"), "{text}");
    // The rest of the operations endpoints stay open for probes.
    assert_eq!(app.get("/healthz", "").await.status, 200);
}

/// `STILLREEL_METRICS_LISTEN` on a free port of the loopback.
fn metrics_elsewhere(config: &mut Config) {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    config.metrics_listen = Some(free.local_addr().expect("addr"));
}

both_backends!(mod metrics_listen, configured by metrics_elsewhere:
    metrics_move_to_their_own_address,
);

/// With `STILLREEL_METRICS_LISTEN`, `/metrics` answers there (with the queue depth) and the
/// API's port no longer has it; the API is not served on the metrics address.
async fn metrics_move_to_their_own_address(app: TestApp) {
    let addr = app.state.config.metrics_listen.expect("configured");
    app.get("/metrics", "").await.assert_error(404, "not_found");
    assert_eq!(app.get("/healthz", "").await.status, 200);
    let account = app.account().await;
    assert_eq!(
        app.get("/api/v1/get_account", &account.api_key)
            .await
            .status,
        200
    );
    let fetch = |path: &'static str| async move {
        let mut stream = TcpStream::connect(addr)
            .await
            .expect("metrics address answers");
        stream
            .write_all(
                format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes(),
            )
            .await
            .expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.expect("read");
        String::from_utf8_lossy(&answer).into_owned()
    };
    let metrics = fetch("/metrics").await;
    assert!(metrics.starts_with("HTTP/1.1 200"), "{metrics}");
    assert!(
        metrics.contains("stillreel_http_requests_total"),
        "{metrics}"
    );
    assert!(
        metrics.contains("stillreel_jobs"),
        "the queue depth: {metrics}"
    );
    let api = fetch("/api/v1/get_account").await;
    assert!(api.starts_with("HTTP/1.1 404"), "{api}");
}

fn three_auth_failures(config: &mut Config) {
    config.http.auth_failures_per_minute = 3;
}

both_backends!(mod auth, configured by three_auth_failures:
    floods_of_unknown_keys_are_cut_off_per_address,
    thirty_unknown_keys_never_lock_out_a_valid_one,
);

async fn floods_of_unknown_keys_are_cut_off_per_address(app: TestApp) {
    let account = app.account().await;
    // A key in use before the flood stays usable (it is answered from the cache).
    assert_eq!(
        app.get("/api/v1/get_projects", &account.api_key)
            .await
            .status,
        200
    );
    for i in 0..3 {
        let r = app
            .get("/api/v1/get_projects", &format!("sr_guess{i}"))
            .await;
        r.assert_error(401, "unauthorized");
    }
    let r = app.get("/api/v1/get_projects", "sr_guess-next").await;
    r.assert_error(429, "rate_limited");
    let message = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("too many unknown API keys from this client address")
            && message.contains("a valid key is still accepted"),
        "the message says what is counted: {message}"
    );
    let retry: u64 = r.headers["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(
        app.get("/api/v1/get_projects", &account.api_key)
            .await
            .status,
        200
    );
}

/// Thirty unknown keys from one address (a NAT, a proxy: one address, many clients) do not
/// refuse a valid key that address never used before: it is looked up and answered; the
/// wrong keys keep getting 429.
async fn thirty_unknown_keys_never_lock_out_a_valid_one(app: TestApp) {
    for i in 0..30 {
        let r = app
            .get("/api/v1/get_projects", &format!("sr_neighbour{i}"))
            .await;
        assert!(matches!(r.status.as_u16(), 401 | 429), "{}", r.json);
    }
    // Made after the flood: in no cache of the server.
    let account = app.account().await;
    let r = app.get("/api/v1/get_projects", &account.api_key).await;
    assert_eq!(r.status, 200, "a valid key was refused: {}", r.json);
    let other = app.account().await;
    let r = app.get("/api/v1/get_account", &other.api_key).await;
    assert_eq!(r.status, 200, "{}", r.json);
    app.get("/api/v1/get_projects", "sr_neighbour-more")
        .await
        .assert_error(429, "rate_limited");
}

/// The real binary, a 1 MB body of wrong values: a small answer and a bounded peak RSS (it
/// was a 62 MB answer and about 200 MB of memory).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_megabyte_of_errors_stays_small_in_the_real_binary() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().expect("temp dir");
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        probe.local_addr().expect("addr").port()
    };
    let command = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
        cmd.env("STILLREEL_DATA_DIR", dir.path())
            .env("STILLREEL_LISTEN", format!("127.0.0.1:{port}"))
            .env("STILLREEL_WORKERS", "0")
            .env_remove("STILLREEL_DATABASE_URL");
        cmd
    };
    let created = command()
        .args(["accounts", "create", "rss"])
        .output()
        .expect("accounts create");
    let key =
        serde_json::from_slice::<serde_json::Value>(&created.stdout).expect("json")["api_key"]
            .as_str()
            .expect("key")
            .to_owned();
    let mut server = command()
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve");
    let pid = server.id();
    let mut up = false;
    for _ in 0..100 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(up, "the server did not start");
    let mut body = String::from("{\"image_inputs\":[1");
    while body.len() < 1_040_000 {
        body.push_str(",1");
    }
    body.push_str("]}");
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let head = format!(
        "POST /api/v1/create_video HTTP/1.1\r\nHost: x\r\nAuthorization: {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(body.as_bytes()).await.expect("body");
    let answer = read_until_closed(&mut stream, Duration::from_secs(60))
        .await
        .expect("answered");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let _ = server.kill();
    let _ = server.wait();
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.starts_with("HTTP/1.1 422"),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(
        answer.len() <= 64 * 1024,
        "answer of {} bytes",
        answer.len()
    );
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    assert!(peak_kib < 150 * 1024, "peak RSS {peak_kib} KiB");
}
