//! A **test double** of a generative provider (we cannot run a real model here). It speaks the
//! contract of `docs/EFFECTS.md` on 127.0.0.1: it decodes the picture, tints it red with ffmpeg
//! and answers it as a PNG (or, in `Clip` mode, as a 1 s MP4). Other modes misbehave on purpose:
//! it sleeps past the client's timeout, or answers garbage.
#![allow(dead_code)]

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How the double answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A red-tinted copy of the picture, as a PNG still.
    Tint,
    /// A 1 s MP4 clip made from the tinted picture.
    Clip,
    /// Says nothing for this long, then answers like `Tint`.
    Sleep(Duration),
    /// 200 with a body that is not the contract's JSON.
    Garbage,
    /// 200 with the contract's JSON but an HTML page as the "image".
    NotAnImage,
    /// 503 with an error object.
    Unavailable,
}

/// What the double saw of the last request.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub authorization: Option<String>,
    pub body: Option<serde_json::Value>,
}

#[derive(Debug, Clone)]
pub struct ProviderDouble {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
}

impl ProviderDouble {
    pub async fn start(mode: Mode) -> ProviderDouble {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind provider double");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Seen::default()));
        let record = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let record = Arc::clone(&record);
                tokio::spawn(async move {
                    let Some((head, body)) = read_request(&mut socket).await else {
                        return;
                    };
                    let auth = head.lines().find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("authorization")
                            .then(|| v.trim().to_owned())
                    });
                    let json: Option<serde_json::Value> = serde_json::from_slice(&body).ok();
                    if let Ok(mut s) = record.lock() {
                        s.authorization = auth;
                        s.body = json.clone();
                    }
                    let (status, answer) = answer(mode, json).await;
                    let reply = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        answer.len()
                    );
                    let _ = socket.write_all(reply.as_bytes()).await;
                    let _ = socket.write_all(&answer).await;
                    let _ = socket.flush().await;
                });
            }
        });
        ProviderDouble {
            url: format!("http://{addr}/v1/process"),
            seen,
        }
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
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
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    }
    Some((head, data[head_end..head_end + length].to_vec()))
}

async fn answer(mode: Mode, json: Option<serde_json::Value>) -> (u16, Vec<u8>) {
    match mode {
        Mode::Garbage => return (200, b"<html>model overloaded</html>".to_vec()),
        Mode::NotAnImage => {
            let body = serde_json::json!({"kind": "image", "media_type": "image/png",
                "data": BASE64.encode(b"<html>not a picture</html>")});
            return (200, body.to_string().into_bytes());
        }
        Mode::Unavailable => {
            let body = serde_json::json!({"error": {"code": "overloaded", "message": "try later"}});
            return (503, body.to_string().into_bytes());
        }
        Mode::Sleep(d) => tokio::time::sleep(d).await,
        Mode::Tint | Mode::Clip => {}
    }
    let Some(data) = json
        .as_ref()
        .and_then(|j| j["image"]["data"].as_str())
        .and_then(|d| BASE64.decode(d).ok())
    else {
        let body = serde_json::json!({"error": {"code": "bad_request", "message": "no image"}});
        return (400, body.to_string().into_bytes());
    };
    let clip = mode == Mode::Clip;
    let made = tokio::task::spawn_blocking(move || tint(&data, clip))
        .await
        .expect("tint thread");
    let (kind, media_type) = if clip {
        ("clip", "video/mp4")
    } else {
        ("image", "image/png")
    };
    let body =
        serde_json::json!({"kind": kind, "media_type": media_type, "data": BASE64.encode(made)});
    (200, body.to_string().into_bytes())
}

/// The picture with its green and blue channels dimmed (a strong red tint), as PNG or a 1 s MP4.
fn tint(image: &[u8], clip: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.img");
    std::fs::write(&input, image).expect("write input");
    let output = dir.path().join(if clip { "out.mp4" } else { "out.png" });
    let mut cmd = Command::new("ffmpeg");
    cmd.args(["-nostdin", "-v", "error", "-y"]);
    if clip {
        cmd.args(["-loop", "1"]);
    }
    cmd.arg("-i").arg(&input);
    cmd.args([
        "-vf",
        "scale=640:-2,colorchannelmixer=gg=0.25:bb=0.25,format=yuv420p",
    ]);
    if clip {
        cmd.args([
            "-t",
            "1",
            "-r",
            "25",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
        ]);
    } else {
        cmd.args(["-frames:v", "1"]);
    }
    let status = cmd.arg(&output).status().expect("run ffmpeg");
    assert!(status.success(), "double's ffmpeg failed");
    std::fs::read(&output).expect("read output")
}
