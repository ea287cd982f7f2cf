//! Test helpers: a tiny HTTP server that counts its connections, media made with ffmpeg,
//! ffprobe; HEIC fixtures made with heif-enc (`heic`).
#![allow(dead_code)]

pub mod heic;
pub mod procs;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the test server answers on a path.
#[derive(Debug, Clone)]
pub enum Route {
    Body {
        content_type: &'static str,
        body: Arc<Vec<u8>>,
    },
    Redirect(String),
    Status(u16),
    /// `total` bytes of JPEG-looking data, chunked, without a Content-Length.
    Stream {
        total: usize,
    },
    /// The first `sent` bytes of `body` (announced whole by Content-Length), then silence.
    HeadThenHang {
        body: Arc<Vec<u8>>,
        sent: usize,
    },
    /// `body` in pieces of `step` bytes, one every `every`: a source that trickles.
    Trickle {
        body: Arc<Vec<u8>>,
        step: usize,
        every: std::time::Duration,
    },
    /// `body`, after a pause of `delay` before the response headers.
    Delayed {
        body: Arc<Vec<u8>>,
        delay: std::time::Duration,
    },
}

/// A local HTTP/1.1 server; `connections()` counts accepted TCP connections.
#[derive(Debug, Clone)]
pub struct TestServer {
    pub addr: SocketAddr,
    count: Arc<AtomicUsize>,
    /// Requests being answered now, and the most at any one time.
    active: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl TestServer {
    pub async fn start(ip: &str, routes: Vec<(&str, Route)>) -> TestServer {
        let ip: IpAddr = ip.parse().expect("server ip");
        let listener = TcpListener::bind((ip, 0)).await.expect("bind test server");
        let addr = listener.local_addr().expect("local addr");
        let count = Arc::new(AtomicUsize::new(0));
        let routes: Arc<HashMap<String, Route>> =
            Arc::new(routes.into_iter().map(|(p, r)| (p.to_owned(), r)).collect());
        let counter = Arc::clone(&count);
        let active = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (active_in, peak_in) = (Arc::clone(&active), Arc::clone(&peak));
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    break;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                let routes = Arc::clone(&routes);
                let (active, peak) = (Arc::clone(&active_in), Arc::clone(&peak_in));
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let text = String::from_utf8_lossy(&head);
                    let path = text.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let route = routes.get(&path).cloned().unwrap_or(Route::Status(404));
                    let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    let _ = respond(&mut socket, route).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        TestServer {
            addr,
            count,
            active,
            peak,
        }
    }

    /// The most requests this server was answering at the same time.
    pub fn peak_in_flight(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    pub fn connections(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

async fn respond(socket: &mut tokio::net::TcpStream, route: Route) -> std::io::Result<()> {
    match route {
        Route::Body { content_type, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
        }
        Route::Redirect(location) => {
            let head = format!(
                "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            socket.write_all(head.as_bytes()).await?;
        }
        Route::Status(code) => {
            let head =
                format!("HTTP/1.1 {code} Status\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            socket.write_all(head.as_bytes()).await?;
        }
        Route::Stream { total } => {
            socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                .await?;
            let mut chunk = vec![0x55u8; 64 * 1024];
            chunk[..3].copy_from_slice(&[0xff, 0xd8, 0xff]);
            let mut sent = 0;
            while sent < total {
                let n = chunk.len().min(total - sent);
                socket.write_all(format!("{n:x}\r\n").as_bytes()).await?;
                socket.write_all(&chunk[..n]).await?;
                socket.write_all(b"\r\n").await?;
                sent += n;
            }
            socket.write_all(b"0\r\n\r\n").await?;
        }
        Route::HeadThenHang { body, sent } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body[..sent.min(body.len())]).await?;
            socket.flush().await?;
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
        Route::Trickle { body, step, every } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            for piece in body.chunks(step.max(1)) {
                socket.write_all(piece).await?;
                socket.flush().await?;
                tokio::time::sleep(every).await;
            }
        }
        Route::Delayed { body, delay } => {
            tokio::time::sleep(delay).await;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
        }
    }
    socket.flush().await
}

/// A real PNG of 16000 × 16000 grey pixels: about 300 KB on the wire, 256 MB decoded (the
/// kind of file that made ffmpeg peak at 1.9 GB).
pub fn huge_png(dir: &Path) -> PathBuf {
    let path = dir.join("huge.png");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=gray:s=16000x16000",
        "-frames:v",
        "1",
        "-pix_fmt",
        "gray",
        path.to_str().expect("utf-8 path"),
    ]);
    path
}

/// A 6000 × 4000 JPEG of noise at the highest quality: about 16.8 MiB, like a full-size
/// camera photo (noise does not compress).
pub fn camera_jpeg(dir: &Path) -> PathBuf {
    let path = dir.join("camera.jpg");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "nullsrc=s=6000x4000,geq=lum='random(1)*255':cb=128:cr=128",
        "-frames:v",
        "1",
        "-q:v",
        "1",
        "-pix_fmt",
        "yuvj444p",
        path.to_str().expect("utf-8 path"),
    ]);
    path
}

/// Runs ffmpeg with `args`, panicking with its stderr on failure.
pub fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .output()
        .expect("run ffmpeg");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test picture (ffmpeg's testsrc2) of the given size, JPEG or PNG by extension.
pub fn picture(dir: &Path, name: &str, w: u32, h: u32) -> PathBuf {
    let path = dir.join(name);
    let src = format!("testsrc2=s={w}x{h}:d=1");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &src,
        "-frames:v",
        "1",
        path.to_str().expect("utf-8 path"),
    ]);
    path
}

/// A tone of `seconds` at 44.1 kHz mono, encoded by extension (mp3, wav, ogg, flac, m4a).
pub fn tone(dir: &Path, name: &str, seconds: f64) -> PathBuf {
    let path = dir.join(name);
    let src = format!("sine=frequency=440:sample_rate=44100:duration={seconds}");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &src,
        path.to_str().expect("utf-8 path"),
    ]);
    path
}

/// ffprobe's JSON for a file (streams and format).
pub fn probe(path: &Path) -> serde_json::Value {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_streams",
            "-show_format",
            "-count_frames",
            "-of",
            "json",
        ])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "ffprobe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ffprobe json")
}

/// The stream of a type from a probe.
pub fn stream<'a>(probe: &'a serde_json::Value, kind: &str) -> &'a serde_json::Value {
    probe["streams"]
        .as_array()
        .expect("streams")
        .iter()
        .find(|s| s["codec_type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} stream"))
}

pub fn num(v: &serde_json::Value) -> f64 {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .or_else(|| v.as_f64())
        .expect("number")
}

/// MD5 of every video packet, in order (proves stream copy when lists concatenate).
pub fn packet_hashes(path: &Path) -> Vec<String> {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args(["-map", "0:v", "-c", "copy", "-f", "framemd5", "-"])
        .output()
        .expect("run ffmpeg framemd5");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit(',').next().map(|h| h.trim().to_owned()))
        .collect()
}

/// Frame `n` of a video, scaled to 32×18 grey, as bytes.
pub fn frame_gray(path: &Path, n: u32, scale: &str) -> Vec<u8> {
    let select = format!("select=eq(n\\,{n}),scale={scale},format=gray");
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args(["-vf", &select, "-frames:v", "1", "-f", "rawvideo", "-"])
        .output()
        .expect("run ffmpeg frame");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Frame `n` of a video, scaled, as RGB bytes.
pub fn frame_rgb(path: &Path, n: u32, scale: &str) -> Vec<u8> {
    let select = format!("select=eq(n\\,{n}),scale={scale},format=rgb24");
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args(["-vf", &select, "-frames:v", "1", "-f", "rawvideo", "-"])
        .output()
        .expect("run ffmpeg frame");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Mean of each RGB channel of frame `n`, scaled to 64×36 first.
pub fn mean_rgb(path: &Path, n: u32) -> [f64; 3] {
    let rgb = frame_rgb(path, n, "64:36");
    let mut sum = [0.0; 3];
    for px in rgb.chunks(3) {
        for c in 0..3 {
            sum[c] += f64::from(px[c]);
        }
    }
    sum.map(|s| s / (rgb.len() / 3) as f64)
}

pub fn mean_abs_diff(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x.abs_diff(*y)))
        .sum::<f64>()
        / a.len() as f64
}

/// Mean volume in dB of `seconds` of audio starting at `start` (ffmpeg volumedetect).
pub fn mean_volume(path: &Path, start: f64, seconds: f64) -> f64 {
    let out = Command::new("ffmpeg")
        .args([
            "-nostdin",
            "-hide_banner",
            "-ss",
            &start.to_string(),
            "-t",
            &seconds.to_string(),
            "-i",
        ])
        .arg(path)
        .args(["-map", "0:a", "-af", "volumedetect", "-f", "null", "-"])
        .output()
        .expect("run volumedetect");
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .find_map(|l| l.split("mean_volume:").nth(1))
        .and_then(|v| v.trim().trim_end_matches("dB").trim().parse().ok())
        .unwrap_or(-120.0)
}

/// Which video packets are keyframes, in order.
pub fn keyframes(path: &Path) -> Vec<bool> {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v",
            "-show_entries",
            "packet=flags",
            "-of",
            "csv=p=0",
        ])
        .arg(path)
        .output()
        .expect("run ffprobe packets");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.starts_with('K'))
        .collect()
}

/// Asserts the video at `joined` is the videos at `parts` concatenated packet for packet. The
/// concat demuxer puts the parameter sets in front of keyframes (its `auto_convert`), so
/// keyframes may differ; every other packet must be byte-identical: nothing was re-encoded.
pub fn assert_stream_copy(joined: &Path, parts: &[PathBuf]) {
    let got = packet_hashes(joined);
    let keys = keyframes(joined);
    let want: Vec<String> = parts.iter().flat_map(|p| packet_hashes(p)).collect();
    assert_eq!(got.len(), want.len(), "packet count");
    assert_eq!(keys.len(), got.len());
    let mut compared = 0;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if !keys[i] {
            assert_eq!(g, w, "packet {i} differs: re-encoded?");
            compared += 1;
        }
    }
    assert!(compared * 10 > got.len() * 9, "most packets compared");
}

/// Every frame of a video, scaled to `w`×`h` grey, as bytes (one `Vec` per frame).
pub fn frames_gray(path: &Path, w: u32, h: u32) -> Vec<Vec<u8>> {
    let vf = format!("scale={w}:{h},format=gray");
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args(["-vf", &vf, "-f", "rawvideo", "-"])
        .output()
        .expect("run ffmpeg frames");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let size = (w * h) as usize;
    assert_eq!(out.stdout.len() % size, 0, "whole frames");
    out.stdout.chunks(size).map(<[u8]>::to_vec).collect()
}
