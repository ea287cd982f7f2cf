//! Completion webhooks end to end, on SQLite and PostgreSQL, against a real receiver on
//! loopback that checks every signature with the account's secret: retried with one
//! `webhook-id` until a 2xx, stopped by `410 Gone`, `video.failed` carries the error, combine
//! sends `video.completed`, a loopback URL without an allow-list entry is never called, and a
//! `kill -9` between settling and delivering loses nothing.

mod common;

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::process::{self, bin, free_port, kill_group, request};
use common::{Backend, TestApp, TestDb, create_body, json_body};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder, slot};
use stillreel_core::{BrandingRequest, TemplateValue};
use stillreel_server::config::Config;
use stillreel_server::worker::{self, WorkerSettings, Workers};
use uuid::Uuid;

both_backends!(
    mod allowed, configured by allow_loopback:
    retried_until_a_2xx_with_one_id_and_combine_completes,
    a_failed_render_sends_video_failed_and_410_stops,
    after_a_rotation_both_secrets_sign,
    the_branded_render_sends_its_own_event,
);
both_backends!(
    mod not_allowed, configured by no_allow_list:
    a_loopback_receiver_is_never_called_without_an_allow_list,
);

/// Retries after 1 s, twice: the schedule's shape with test-sized delays.
fn short_schedule(config: &mut Config) {
    config.webhook_retry_schedule = vec![Duration::from_secs(1); 2];
    config.samples_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
}

fn allow_loopback(config: &mut Config) {
    short_schedule(config);
    config.fetch_allow = vec!["127.0.0.1".to_owned()];
}

fn no_allow_list(config: &mut Config) {
    short_schedule(config);
    config.fetch_allow = Vec::new();
}

async fn with_workers(app: &TestApp) -> Workers {
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.idle_poll = Duration::from_millis(100);
    worker::start(app.state.services.clone(), renderer, settings)
}

/// How the receiver answers one POST.
#[derive(Debug, Clone, Copy)]
enum Reply {
    Status(u16),
    /// Read the request, then never answer (the sender dies meanwhile).
    Hold,
}

/// One POST the receiver got.
#[derive(Debug, Clone)]
struct Hit {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Hit {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }
}

/// A webhook receiver on loopback (plain threads, so the `kill -9` test can use it too).
/// POSTs are recorded and answered from a script (then 200); any GET gets an HTML page
/// labelled as a JPEG, which fails a render that uses it as an image.
#[derive(Clone)]
struct Receiver {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Receiver {
    fn start(script: &[Reply]) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let hits = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script.iter().copied().collect::<VecDeque<_>>()));
        let (h, s) = (Arc::clone(&hits), Arc::clone(&script));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (h, s) = (Arc::clone(&h), Arc::clone(&s));
                std::thread::spawn(move || serve_one(stream, &h, &s));
            }
        });
        Receiver { addr, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn hits(&self) -> Vec<Hit> {
        self.hits.lock().expect("hits").clone()
    }

    /// Waits until at least `n` POSTs arrived.
    fn wait_for(&self, n: usize, within: Duration) -> Vec<Hit> {
        let started = Instant::now();
        loop {
            let hits = self.hits();
            if hits.len() >= n {
                return hits;
            }
            assert!(
                started.elapsed() < within,
                "{} of {n} deliveries after {within:?}",
                hits.len()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn serve_one(mut stream: TcpStream, hits: &Mutex<Vec<Hit>>, script: &Mutex<VecDeque<Reply>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    if request_line.starts_with("GET ") {
        let body = "<!doctype html><p>not a picture</p>";
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return;
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while raw.len() < head_end + length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    let path = request_line
        .split(' ')
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let reply = script
        .lock()
        .expect("script")
        .pop_front()
        .unwrap_or(Reply::Status(200));
    hits.lock().expect("hits").push(Hit {
        path,
        headers,
        body: raw[head_end..head_end + length].to_vec(),
    });
    match reply {
        Reply::Status(status) => {
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
            );
        }
        Reply::Hold => std::thread::sleep(Duration::from_secs(60)),
    }
}

/// Standard Webhooks verification, written here from the specification (not with the
/// server's code): HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the base64 part of
/// the `whsec_` secret; the message is genuine when any `v1,` signature in the list matches.
/// Also refuses a timestamp more than 5 minutes from now, as receivers should.
fn verify(secret: &str, hit: &Hit) -> bool {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_ secret"))
        .expect("base64 secret");
    let (id, ts) = (hit.header("webhook-id"), hit.header("webhook-timestamp"));
    let Ok(ts_secs) = ts.parse::<i64>() else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    if (i64::try_from(now).expect("now") - ts_secs).abs() > 300 {
        return false;
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("key");
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(&hit.body);
    let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    hit.header("webhook-signature")
        .split(' ')
        .any(|s| s == expected)
}

/// Polls `get_video` until `done` holds for the record.
async fn wait_record(app: &TestApp, key: &str, uuid: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let r = app
            .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        if done(&r.json) {
            return r.json;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "video {uuid} not there after 180 s: {}",
            r.json
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A valid `create_video` body of one image that reports to `hook`.
fn hooked(image_url: &str, hook: &str) -> Value {
    json_body(
        &CreateVideoBuilder::new()
            .image_urls([image_url])
            .webhook(hook)
            .build(),
    )
}

fn metric(text: &str, outcome: &str) -> u64 {
    let prefix = format!("stillreel_webhook_deliveries_total{{outcome=\"{outcome}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {outcome} counter in /metrics:\n{text}"))
}

async fn retried_until_a_2xx_with_one_id_and_combine_completes(app: TestApp) {
    let receiver = Receiver::start(&[Reply::Status(500)]);
    let workers = with_workers(&app).await;
    let account = app.account().await;
    let key = account.api_key.as_str();
    let hook = receiver.url("/hooks/create?token=t1");
    let body = hooked(&format!("{}/samples/house-colonial.jpg", app.base), &hook);
    let created = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(created.status, 200, "{}", created.json);
    assert_eq!(
        created.json["webhook"],
        json!({"url": hook, "status": "pending", "attempts": 0, "last_status": null})
    );
    let uuid = created.json["uuid"].as_str().expect("uuid").to_owned();

    let hits = tokio::task::spawn_blocking({
        let r = receiver.clone();
        move || r.wait_for(2, Duration::from_secs(180))
    })
    .await
    .expect("receiver");
    assert_eq!(hits.len(), 2, "one 500, one 200, nothing more");
    let (first, second) = (&hits[0], &hits[1]);
    assert_eq!(first.path, "/hooks/create?token=t1");
    assert!(first.header("webhook-id").starts_with("msg_"));
    assert_eq!(first.header("webhook-id"), second.header("webhook-id"));
    assert_eq!(first.body, second.body, "every attempt sends the same body");
    assert_eq!(first.header("content-type"), "application/json");
    for hit in &hits {
        assert!(verify(&account.webhook_secret, hit), "signature: {hit:?}");
        let other = Hit {
            body: b"{}".to_vec(),
            ..hit.clone()
        };
        assert!(
            !verify(&account.webhook_secret, &other),
            "a changed body must not verify"
        );
    }
    let event = first.json();
    assert_eq!(event["type"], "video.completed");
    assert!(
        event["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert_eq!(event["data"]["uuid"], uuid.as_str());
    assert_eq!(event["data"]["status"], "complete");
    assert!(
        event["data"]["video_url"]
            .as_str()
            .is_some_and(|u| !u.is_empty())
    );
    assert_eq!(event["data"]["webhook"]["url"], hook.as_str());

    let record = wait_record(&app, key, &uuid, |v| v["webhook"]["status"] == "delivered").await;
    assert_eq!(
        record["webhook"],
        json!({"url": hook, "status": "delivered", "attempts": 2, "last_status": 200})
    );
    let metrics = app.get("/metrics", "").await;
    let text = String::from_utf8_lossy(&metrics.bytes).into_owned();
    assert_eq!(metric(&text, "retry"), 1);
    assert_eq!(metric(&text, "delivered"), 1);

    // Combine the rendered clip twice: its own video.completed, to its own URL.
    let clip = record["video_clips"][0]["uuid"]
        .as_str()
        .expect("clip")
        .to_owned();
    let combine_hook = receiver.url("/hooks/combine");
    let combined = app
        .post("/api/v1/combine_video_clips", key, &{
            let clip = Uuid::parse_str(&clip).expect("clip uuid");
            json_body(
                &CombineBuilder::new()
                    .clips(vec![clip, clip])
                    .webhook(&combine_hook)
                    .build(),
            )
        })
        .await;
    assert_eq!(combined.status, 200, "{}", combined.json);
    let combined_uuid = combined.json["uuid"].as_str().expect("uuid").to_owned();
    let hits = tokio::task::spawn_blocking({
        let r = receiver.clone();
        move || r.wait_for(3, Duration::from_secs(120))
    })
    .await
    .expect("receiver");
    let third = &hits[2];
    assert_eq!(third.path, "/hooks/combine");
    assert!(verify(&account.webhook_secret, third));
    assert_ne!(third.header("webhook-id"), first.header("webhook-id"));
    let event = third.json();
    assert_eq!(event["type"], "video.completed");
    assert_eq!(event["data"]["uuid"], combined_uuid.as_str());
    assert_eq!(
        event["data"]["video_clips"].as_array().map(Vec::len),
        Some(2)
    );
    let record = wait_record(&app, key, &combined_uuid, |v| {
        v["webhook"]["status"] == "delivered"
    })
    .await;
    assert_eq!(record["webhook"]["attempts"], 1);
    workers.shutdown().await;
}

async fn a_failed_render_sends_video_failed_and_410_stops(app: TestApp) {
    let receiver = Receiver::start(&[Reply::Status(410)]);
    let workers = with_workers(&app).await;
    let account = app.account().await;
    let key = account.api_key.as_str();
    let hook = receiver.url("/gone");
    let mut body = hooked(&receiver.url("/listing/photo.jpg"), &hook);
    body["title"] = json!(" 12 Oak Lane\n");
    let created = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(created.status, 200, "{}", created.json);
    let uuid = created.json["uuid"].as_str().expect("uuid").to_owned();
    let record = wait_record(&app, key, &uuid, |v| v["webhook"]["status"] == "failed").await;
    assert_eq!(record["status"], "error");
    assert_eq!(
        record["webhook"],
        json!({"url": hook, "status": "failed", "attempts": 1, "last_status": 410})
    );
    // The schedule would retry after 1 s: wait longer and check nothing more came.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1, "410 Gone stops retrying");
    assert!(verify(&account.webhook_secret, &hits[0]));
    let event = hits[0].json();
    assert_eq!(event["type"], "video.failed");
    assert_eq!(event["data"]["uuid"], uuid.as_str());
    assert_eq!(event["data"]["status"], "error");
    assert_eq!(event["data"]["error"]["code"], "media_unsupported");
    assert_eq!(event["data"]["error"]["field"], "image_inputs[0].image_url");
    // The payload carries the title as the record does: cleaned.
    assert_eq!(event["data"]["title"], "12 Oak Lane");
    let metrics = app.get("/metrics", "").await;
    assert_eq!(metric(&String::from_utf8_lossy(&metrics.bytes), "gone"), 1);
    workers.shutdown().await;
}

async fn after_a_rotation_both_secrets_sign(app: TestApp) {
    let receiver = Receiver::start(&[]);
    let workers = with_workers(&app).await;
    let account = app.account().await;
    let rotated =
        stillreel_server::repo::accounts::rotate_webhook_secret(app.db(), account.account)
            .await
            .expect("rotate")
            .expect("account exists");
    assert_ne!(rotated.webhook_secret, account.webhook_secret);
    let key = account.api_key.as_str();
    let body = hooked(
        &receiver.url("/listing/photo.jpg"),
        &receiver.url("/rotated"),
    );
    let created = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(created.status, 200, "{}", created.json);
    let hits = tokio::task::spawn_blocking({
        let r = receiver.clone();
        move || r.wait_for(1, Duration::from_secs(60))
    })
    .await
    .expect("receiver");
    let hit = &hits[0];
    assert_eq!(hit.header("webhook-signature").split(' ').count(), 2);
    assert!(
        verify(&rotated.webhook_secret, hit),
        "the new secret verifies"
    );
    assert!(
        verify(&account.webhook_secret, hit),
        "the old secret still verifies"
    );
    let stranger = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    assert!(!verify(stranger, hit), "another secret does not");
    workers.shutdown().await;
}

async fn the_branded_render_sends_its_own_event(app: TestApp) {
    let receiver = Receiver::start(&[]);
    let workers = with_workers(&app).await;
    let account = app.account().await;
    let key = account.api_key.as_str();
    // The logo is an HTML page: the main video completes, its branded render fails.
    let mut intro = slot("intro-title-card", &[("headline", "Open house")]);
    intro.config.insert(
        "logo".to_owned(),
        TemplateValue::Image {
            url: receiver.url("/logo.png"),
        },
    );
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([format!("{}/samples/house-colonial.jpg", app.base)])
            .branding(BrandingRequest {
                intro: Some(intro),
                ..BrandingRequest::default()
            })
            .webhook(&receiver.url("/branded"))
            .build(),
    );
    let created = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(created.status, 200, "{}", created.json);
    let uuid = created.json["uuid"].as_str().expect("uuid").to_owned();
    let hits = tokio::task::spawn_blocking({
        let r = receiver.clone();
        move || r.wait_for(2, Duration::from_secs(180))
    })
    .await
    .expect("receiver");
    // Deliveries are separate jobs that two slots may send at once: find each by its type.
    let by_type = |t: &str| {
        hits.iter()
            .map(|h| h.json())
            .find(|j| j["type"] == t)
            .unwrap_or_else(|| panic!("no {t} delivery"))
    };
    let (video, branding) = (by_type("video.completed"), by_type("branding.failed"));
    assert_eq!(video["type"], "video.completed");
    assert_eq!(video["data"]["status"], "complete");
    assert_eq!(branding["type"], "branding.failed");
    assert_eq!(branding["data"]["uuid"], uuid.as_str());
    assert_eq!(branding["data"]["branding"]["status"], "error");
    assert_eq!(
        branding["data"]["branding"]["error"]["code"], "media_unsupported",
        "{branding}"
    );
    assert_ne!(hits[0].header("webhook-id"), hits[1].header("webhook-id"));
    assert!(hits.iter().all(|h| verify(&account.webhook_secret, h)));
    // The record shows the latest event's delivery: the branded render's.
    let record = wait_record(&app, key, &uuid, |v| {
        v["webhook"]["status"] == "delivered" && v["branding"]["status"] == "error"
    })
    .await;
    assert_eq!(record["webhook"]["attempts"], 1);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(receiver.hits().len(), 2, "one event per settled subject");
    workers.shutdown().await;
}

async fn a_loopback_receiver_is_never_called_without_an_allow_list(app: TestApp) {
    let receiver = Receiver::start(&[]);
    let workers = with_workers(&app).await;
    let account = app.account().await;
    let key = account.api_key.as_str();
    let hook = receiver.url("/private");
    // The image is one of the server's own files (no network), so the video completes and
    // only the delivery meets the address rule.
    let body = hooked(&format!("{}/samples/house-colonial.jpg", app.base), &hook);
    let created = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(created.status, 200, "{}", created.json);
    let uuid = created.json["uuid"].as_str().expect("uuid").to_owned();
    let record = wait_record(&app, key, &uuid, |v| v["webhook"]["status"] == "failed").await;
    assert_eq!(record["status"], "complete");
    assert_eq!(record["webhook"]["last_status"], Value::Null);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        receiver.hits().is_empty(),
        "the loopback receiver was called"
    );
    let record = app
        .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
        .await;
    assert_eq!(
        record.json["webhook"]["status"], "failed",
        "no retry after a refusal"
    );
    assert_eq!(record.json["webhook"]["attempts"], 1, "{}", record.json);
    let metrics = app.get("/metrics", "").await;
    assert_eq!(
        metric(&String::from_utf8_lossy(&metrics.bytes), "failed"),
        1
    );
    workers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_webhook_url_is_a_field_error() {
    let Some(app) = TestApp::spawn(Backend::Sqlite).await else {
        return;
    };
    let account = app.account().await;
    let r = app
        .post(
            "/api/v1/create_video",
            &account.api_key,
            &json_body(
                &CreateVideoBuilder::new()
                    .webhook("ftp://hooks.example.com/x")
                    .build(),
            ),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        [("webhook_url".to_owned(), "invalid_url".to_owned())]
    );
    let r = app
        .post("/api/v1/combine_video_clips", &account.api_key, &{
            let mut body = json_body(&CombineBuilder::new().build());
            body["webhook_url"] = json!(7);
            body
        })
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        [("webhook_url".to_owned(), "invalid_type".to_owned())]
    );
    // Without a webhook_url the record has no webhook member at all.
    let r = app
        .post("/api/v1/create_video", &account.api_key, &create_body(1))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert!(r.json.get("webhook").is_none(), "{}", r.json);
    let uuid = r.json["uuid"].as_str().expect("uuid");
    let r = app
        .get(&format!("/api/v1/get_video?uuid={uuid}"), &account.api_key)
        .await;
    assert!(r.json.get("webhook").is_none(), "{}", r.json);
}

// ---- kill -9 between settling and delivering, with the real binary ----

/// `stillreel serve` with a 3 s lease (a dead process's delivery is back in the queue within
/// about 5 s) and loopback allow-listed.
fn serve(db: &TestDb, port: u16, log: &Path) -> Child {
    process::serve(
        db,
        port,
        log,
        &[
            ("STILLREEL_FETCH_ALLOW", "127.0.0.1"),
            ("STILLREEL_WEBHOOK_RETRY_SCHEDULE", "1,1"),
        ],
    )
}

fn kill_9(child: &mut Child) {
    let _ = kill_group(child, "-9");
}

fn killed_between_settling_and_delivering(backend: Backend) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let Some(db) = rt.block_on(TestDb::new(backend)) else {
        return;
    };
    // The first delivery is received and never answered: the video is settled and its event
    // is in flight when the process dies.
    let receiver = Receiver::start(&[Reply::Hold]);
    let log = db.dir.path().join("serve.log");
    let port = free_port();
    let mut server = serve(&db, port, &log);
    let out = bin(&db)
        .args(["accounts", "create", "crash"])
        .output()
        .expect("accounts create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("account JSON");
    let key = account["api_key"].as_str().expect("api_key");
    let secret = account["webhook_secret"].as_str().expect("webhook_secret");
    assert!(secret.starts_with("whsec_"));

    let body = hooked(&receiver.url("/listing/photo.jpg"), &receiver.url("/hook"));
    let (status, created) =
        request(port, "POST", "/api/v1/create_video", key, Some(&body)).expect("create");
    assert_eq!(status, 200, "{created}");
    let uuid = created["uuid"].as_str().expect("uuid").to_owned();
    let first = receiver.wait_for(1, Duration::from_secs(60));
    kill_9(&mut server);
    let jobs = rt.block_on(async {
        let db = stillreel_server::Db::connect(&db.config).await.expect("db");
        let jobs = stillreel_server::queue::jobs_of_video(&db, uuid.parse().expect("uuid"))
            .await
            .expect("jobs");
        db.close().await;
        jobs
    });
    assert!(
        jobs.iter()
            .any(|(kind, state, _)| kind.as_str() == "video_webhook" && state == "running"),
        "the delivery was in flight when the process died: {jobs:?}"
    );

    let mut server = serve(&db, port, &log);
    let hits = receiver.wait_for(2, Duration::from_secs(60));
    assert_eq!(hits[0].header("webhook-id"), hits[1].header("webhook-id"));
    assert_eq!(hits[0].body, first[0].body);
    assert!(verify(secret, &hits[1]));
    assert_eq!(hits[1].json()["type"], "video.failed");
    let started = Instant::now();
    loop {
        let (_, v) = request(
            port,
            "GET",
            &format!("/api/v1/get_video?uuid={uuid}"),
            key,
            None,
        )
        .expect("get_video");
        if v["webhook"]["status"] == "delivered" {
            assert_eq!(v["webhook"]["last_status"], 200);
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{v}");
        std::thread::sleep(Duration::from_millis(100));
    }
    kill_9(&mut server);
    // Each attempt's log line names the video and the webhook-id, so an operator can follow
    // one event across processes and restarts.
    let text = std::fs::read_to_string(&log).expect("serve.log");
    let id = hits[1].header("webhook-id");
    assert!(id.starts_with("msg_"), "{id}");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("webhook delivery attempt") && l.contains(&uuid))
        .collect();
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.contains(id)),
        "attempt lines: {lines:?}"
    );
}

#[test]
fn kill_9_between_settling_and_delivering_sqlite() {
    killed_between_settling_and_delivering(Backend::Sqlite);
}

#[test]
fn kill_9_between_settling_and_delivering_postgres() {
    killed_between_settling_and_delivering(Backend::Postgres);
}
