//! A **test double** of three model hosts (we cannot run a real model here), on 127.0.0.1,
//! written from their public documentation: Replicate's predictions API (create by model or
//! version, `Prefer: wait`, polling `urls.get`, outputs as file URLs), a Cog container
//! (`POST /predictions` answering when done with `data:` URIs, `409` while busy,
//! `GET /health-check`) and OpenAI's image edits (multipart in, `data[].b64_json` out). What it
//! "generates" is a fixed picture (a solid magenta frame) or clip, so a test can tell the
//! model's output from the photo; [`Script`] makes it misbehave the ways real hosts do.
#![allow(dead_code)]

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The colour of the double's generated picture (RGB).
pub const MAGENTA: [u8; 3] = [0xD0, 0x10, 0x90];

/// How the host behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// Answers within `Prefer: wait` (Replicate) or at once (Cog, OpenAI).
    Succeed,
    /// Replicate: `starting`, then `processing` for this many polls, then `succeeded`.
    Poll(usize),
    /// The first this-many creates get `429` with `Retry-After: 1`.
    RateLimited(usize),
    /// `429` whose detail is the account's spend limit (or OpenAI's `insufficient_quota`).
    Quota,
    /// A content-policy refusal (a `failed` prediction flagged NSFW, OpenAI's
    /// `moderation_blocked`).
    ContentPolicy,
    /// The prediction ends `failed` with a model error.
    Failed,
    /// The prediction ends `canceled`.
    Canceled,
    /// The output URL answers 404 (deleted before it was fetched).
    ExpiredOutput,
    /// Accepts the connection and never answers.
    Hang,
    /// Cog: the first this-many predictions get `409` (busy with another one).
    Busy(usize),
    /// Replicate: like `Poll(1)`, but the prediction carries no `urls` (only its `id`).
    NoGetUrl,
}

/// What the output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// A 640x360 magenta PNG.
    Staged,
    /// An HTML page served as `image/png`.
    HtmlAsPng,
    /// A 30 s, 25 fps clip with a sound track.
    LongClip,
    /// A grey depth map (16:9): a floor, far at the top, near at the bottom.
    GreyDepth,
    /// A grey depth map (16:9) of one value: no depth to use.
    FlatDepth,
    /// A grey map (16:9) of pixel noise: garbled.
    NoiseDepth,
    /// A colourful PNG answered as a depth map.
    ColourDepth,
    /// 100 MB that start like a PNG.
    Huge,
}

/// The host's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Replicate,
    Cog,
    OpenAi,
}

/// A request the double received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Debug)]
struct State {
    flavor: Flavor,
    script: Script,
    payload: Vec<u8>,
    payload_type: &'static str,
    base: String,
    creates: AtomicUsize,
    polls: AtomicUsize,
    downloads: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
}

/// A running double.
#[derive(Debug, Clone)]
pub struct ModelHostDouble {
    /// The base URL (what `STILLREEL_<ROLE>_URL` would name).
    pub base: String,
    state: Arc<State>,
}

impl ModelHostDouble {
    pub async fn start(flavor: Flavor, script: Script, payload: Payload) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (bytes, payload_type) = tokio::task::spawn_blocking(move || make_payload(payload))
            .await
            .expect("payload");
        let state = Arc::new(State {
            flavor,
            script,
            payload: bytes,
            payload_type,
            base: base.clone(),
            creates: AtomicUsize::new(0),
            polls: AtomicUsize::new(0),
            downloads: AtomicUsize::new(0),
            seen: Mutex::new(Vec::new()),
        });
        let shared = Arc::clone(&state);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                tokio::spawn(async move {
                    let Some(seen) = read_request(&mut socket).await else {
                        return;
                    };
                    if let Ok(mut all) = state.seen.lock() {
                        all.push(seen.clone());
                    }
                    let reply = route(&state, &seen).await;
                    let mut head = format!(
                        "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                        reply.status,
                        reply.content_type,
                        reply.body.len()
                    );
                    if let Some(after) = reply.retry_after {
                        head.push_str(&format!("Retry-After: {after}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&reply.body).await;
                    let _ = socket.flush().await;
                });
            }
        });
        ModelHostDouble { base, state }
    }

    /// Predictions (or edits) started.
    pub fn creates(&self) -> usize {
        self.state.creates.load(Ordering::SeqCst)
    }

    /// Polls of a running prediction.
    pub fn polls(&self) -> usize {
        self.state.polls.load(Ordering::SeqCst)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().expect("seen").clone()
    }

    /// The output it serves.
    pub fn payload(&self) -> &[u8] {
        &self.state.payload
    }
}

struct Reply {
    status: u16,
    content_type: &'static str,
    retry_after: Option<u64>,
    body: Vec<u8>,
}

fn json_reply(status: u16, value: serde_json::Value) -> Reply {
    Reply {
        status,
        content_type: "application/json",
        retry_after: None,
        body: value.to_string().into_bytes(),
    }
}

async fn route(state: &State, seen: &Seen) -> Reply {
    let path = seen.path.as_str();
    let method = seen.method.as_str();
    if path == "/files/output" {
        state.downloads.fetch_add(1, Ordering::SeqCst);
        if state.script == Script::ExpiredOutput {
            return json_reply(404, json!({"detail": "Not found."}));
        }
        return Reply {
            status: 200,
            content_type: state.payload_type,
            retry_after: None,
            body: state.payload.clone(),
        };
    }
    match (state.flavor, method) {
        (Flavor::Cog, "GET") if path == "/health-check" => json_reply(
            200,
            json!({"status": "READY", "setup": {"status": "succeeded"}}),
        ),
        (Flavor::Cog, "POST") if path == "/predictions" => cog_predict(state, seen).await,
        (Flavor::Replicate, "POST")
            if path == "/v1/predictions"
                || (path.starts_with("/v1/models/") && path.ends_with("/predictions")) =>
        {
            replicate_create(state, seen).await
        }
        (Flavor::Replicate, "GET") if path == "/v1/predictions/p1" => replicate_poll(state, seen),
        (Flavor::OpenAi, "POST") if path == "/v1/images/edits" => openai_edit(state, seen).await,
        _ => json_reply(404, json!({"detail": "Not found."})),
    }
}

fn authorized(seen: &Seen) -> bool {
    seen.header("authorization")
        .is_some_and(|v| v.starts_with("Bearer ") && v.len() > 7)
}

/// Common misbehaviour at the start of a call; `None` to go on.
async fn opening(state: &State, n: usize) -> Option<Reply> {
    match state.script {
        Script::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            None
        }
        Script::RateLimited(times) if n <= times => Some(Reply {
            retry_after: Some(1),
            ..json_reply(
                429,
                json!({"title": "Request was throttled.", "detail": "Request was throttled. Expected available in 1 second.", "status": 429}),
            )
        }),
        _ => None,
    }
}

fn prediction(state: &State, status: &str) -> serde_json::Value {
    let get = format!("{}/v1/predictions/p1", state.base);
    let mut p = json!({
        "id": "p1", "model": "o/n", "version": "v1", "status": status,
        "input": {}, "logs": "", "output": null, "error": null, "data_removed": false,
        "urls": {"get": get, "cancel": format!("{get}/cancel"), "web": "https://replicate.com/p/p1"},
    });
    if state.script == Script::NoGetUrl
        && let Some(p) = p.as_object_mut()
    {
        p.remove("urls");
    }
    match status {
        "succeeded" => p["output"] = json!(format!("{}/files/output", state.base)),
        "failed" => {
            p["error"] = json!(if state.script == Script::ContentPolicy {
                "NSFW content detected. Try running it again, or try a different prompt."
            } else {
                "CUDA error: out of memory on http://10.0.0.7:5000/ (worker gpu-3)"
            });
        }
        _ => {}
    }
    p
}

async fn replicate_create(state: &State, seen: &Seen) -> Reply {
    if !authorized(seen) {
        return json_reply(
            401,
            json!({"title": "Unauthenticated", "detail": "You did not pass a valid authentication token", "status": 401}),
        );
    }
    let n = state.creates.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(reply) = opening(state, n).await {
        return reply;
    }
    if state.script == Script::Quota {
        return json_reply(
            429,
            json!({"title": "Monthly spend limit reached", "detail": "You have reached the monthly spend limit set in your billing settings.", "status": 429}),
        );
    }
    let waits = seen.header("prefer").is_some_and(|p| p.starts_with("wait"));
    let status = match state.script {
        Script::Succeed | Script::RateLimited(_) | Script::ExpiredOutput if waits => "succeeded",
        _ => "starting",
    };
    json_reply(201, prediction(state, status))
}

fn replicate_poll(state: &State, seen: &Seen) -> Reply {
    if !authorized(seen) {
        return json_reply(401, json!({"detail": "Unauthenticated"}));
    }
    let n = state.polls.fetch_add(1, Ordering::SeqCst) + 1;
    let status = match state.script {
        Script::Poll(times) if n <= times => "processing",
        Script::NoGetUrl if n <= 1 => "processing",
        Script::Failed | Script::ContentPolicy => "failed",
        Script::Canceled => "canceled",
        _ => "succeeded",
    };
    json_reply(200, prediction(state, status))
}

async fn cog_predict(state: &State, seen: &Seen) -> Reply {
    let n = state.creates.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(reply) = opening(state, n).await {
        return reply;
    }
    if let Script::Busy(times) = state.script
        && n <= times
    {
        return json_reply(409, json!({"detail": "Already running a prediction"}));
    }
    if seen.json()["input"].is_null() {
        return json_reply(
            422,
            json!({"detail": [{"msg": "field required", "loc": ["body", "input"]}]}),
        );
    }
    match state.script {
        Script::Failed => json_reply(
            200,
            json!({"status": "failed", "output": null, "error": "RuntimeError: model weights missing", "logs": ""}),
        ),
        _ => {
            let data = format!(
                "data:{};base64,{}",
                state.payload_type,
                BASE64.encode(&state.payload)
            );
            json_reply(
                200,
                json!({"status": "succeeded", "output": data, "error": null, "logs": ""}),
            )
        }
    }
}

async fn openai_edit(state: &State, seen: &Seen) -> Reply {
    if !authorized(seen) {
        return json_reply(
            401,
            json!({"error": {"message": "Missing bearer authentication.", "type": "invalid_request_error", "code": null}}),
        );
    }
    let n = state.creates.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(reply) = opening(state, n).await {
        return reply;
    }
    let form = String::from_utf8_lossy(&seen.body);
    if !form.contains("name=\"image\"") || !form.contains("name=\"prompt\"") {
        return json_reply(
            400,
            json!({"error": {"message": "image and prompt are required", "type": "invalid_request_error", "code": null}}),
        );
    }
    match state.script {
        Script::Quota => json_reply(
            429,
            json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
        ),
        Script::ContentPolicy => json_reply(
            400,
            json!({"error": {"message": "Your request was rejected by the safety system.", "type": "image_generation_user_error", "param": null, "code": "moderation_blocked"}}),
        ),
        _ => json_reply(
            200,
            json!({"created": 1_700_000_000, "data": [{"b64_json": BASE64.encode(&state.payload)}], "usage": {"total_tokens": 100}}),
        ),
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut data = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    let head_end = loop {
        if let Some(p) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    }
    Some(Seen {
        method,
        path,
        headers,
        body: data[head_end..head_end + length].to_vec(),
    })
}

fn ffmpeg_out(args: &[&str], name: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(name);
    let status = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-y"])
        .args(args)
        .arg(&out)
        .status()
        .expect("run ffmpeg");
    assert!(status.success(), "the double's ffmpeg failed");
    std::fs::read(&out).expect("read")
}

fn make_payload(payload: Payload) -> (Vec<u8>, &'static str) {
    let [r, g, b] = MAGENTA;
    let colour = format!("color=c=0x{r:02X}{g:02X}{b:02X}:s=640x360");
    match payload {
        Payload::Staged => (
            ffmpeg_out(
                &["-f", "lavfi", "-i", &colour, "-frames:v", "1"],
                "staged.png",
            ),
            "image/png",
        ),
        Payload::HtmlAsPng => (
            b"<!doctype html><html><body>502 Bad Gateway</body></html>".to_vec(),
            "image/png",
        ),
        Payload::LongClip => (
            ffmpeg_out(
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    &format!("{colour}:r=25:d=30"),
                    "-f",
                    "lavfi",
                    "-i",
                    "sine=frequency=440:duration=30",
                    "-c:v",
                    "libx264",
                    "-preset",
                    "ultrafast",
                    "-pix_fmt",
                    "yuv420p",
                    "-c:a",
                    "aac",
                    "-shortest",
                ],
                "long.mp4",
            ),
            "video/mp4",
        ),
        Payload::GreyDepth => (
            ffmpeg_out(
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    // Top to bottom (the filter's own points are random).
                    "gradients=s=320x180:c0=black:c1=white:n=2:x0=0:y0=0:x1=0:y1=179",
                    "-vf",
                    "format=gray",
                    "-frames:v",
                    "1",
                ],
                "depth.png",
            ),
            "image/png",
        ),
        Payload::FlatDepth => (
            ffmpeg_out(
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    "color=c=gray:s=320x180",
                    "-vf",
                    "format=gray",
                    "-frames:v",
                    "1",
                ],
                "flat.png",
            ),
            "image/png",
        ),
        Payload::NoiseDepth => (
            ffmpeg_out(
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    "nullsrc=s=320x180",
                    "-vf",
                    "format=gray,geq=lum='random(1)*255'",
                    "-frames:v",
                    "1",
                ],
                "noise.png",
            ),
            "image/png",
        ),
        Payload::ColourDepth => (
            ffmpeg_out(
                &["-f", "lavfi", "-i", "testsrc2=s=320x180", "-frames:v", "1"],
                "colour.png",
            ),
            "image/png",
        ),
        Payload::Huge => {
            let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
            bytes.resize(100 * 1024 * 1024, 0);
            (bytes, "image/png")
        }
    }
}
