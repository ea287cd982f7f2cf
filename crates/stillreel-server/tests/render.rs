//! The render worker end to end, over HTTP with real ffmpeg, on SQLite and PostgreSQL:
//! bundled samples become a video (checked with ffprobe), a bad image fails only its own
//! video, and stored clips combine into a new one; every orientation × resolution renders at
//! its size while missing, oversized, disguised and damaged media fail with their codes.

mod common;
#[path = "../../stillreel-render/tests/common/procs.rs"]
mod procs;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{TestApp, combine_body, json_body};
use procs::ffmpeg_running_in;
use serde_json::{Value, json};
use stillreel_core::builder::{CreateVideoBuilder, speed_ramp};
use stillreel_core::{CameraMotion, Orientation, Resolution};
use stillreel_server::config::Config;
use stillreel_server::worker::{self, WorkerSettings, Workers};
use uuid::Uuid;

both_backends!(
    mod samples, configured by configure:
    samples_render_bad_image_fails_alone_and_clips_combine,
    every_size_renders_and_each_bad_medium_fails_with_its_code,
    a_mistyped_host_fails_at_once_saying_it_does_not_resolve,
    uploads_and_a_brand_kit_render_with_thumbnails_and_a_poster,
    fit_and_captions_reach_the_rendered_clips,
);
both_backends!(
    mod refused, configured by refusing_provider:
    a_video_failing_after_prepare_leaves_no_inputs,
);
both_backends!(
    mod lease, configured by short_lease:
    a_lost_lease_stops_ffmpeg_and_the_new_owner_is_left_alone,
);

/// The bundled samples, and 127.0.0.1 allow-listed for the local server of the bad image.
fn configure(config: &mut Config) {
    config.samples_dir = samples_dir();
    config.fetch_allow = vec!["127.0.0.1".to_owned()];
}

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

/// Starts two render loops on the server.
async fn rendering_app(app: TestApp) -> (TestApp, Workers) {
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    app.state.set_available_vfx(renderer.available_vfx());
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    (app, workers)
}

/// Waits for the branded render of a complete video; its URL.
async fn wait_branded(app: &TestApp, key: &str, uuid: &str) -> String {
    let started = Instant::now();
    loop {
        let r = app
            .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
            .await;
        let branding = &r.json["branding"];
        match branding["status"].as_str() {
            Some("complete") => {
                return branding["video_url"]
                    .as_str()
                    .expect("branded video_url")
                    .to_owned();
            }
            Some("error") => panic!("branded render failed: {}", r.json),
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "branding of {uuid} not final: {}",
            r.json
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// `text` with every run of 32 lowercase hex digits (a lease token) written `TOKEN`.
fn token_shape(text: &str) -> String {
    let (mut out, mut run) = (String::new(), String::new());
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || ('a'..='f').contains(&c) {
            run.push(c);
            continue;
        }
        out.push_str(if run.len() == 32 { "TOKEN" } else { &run });
        run.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// Waits (the files go just after the record changes) until no checked input is left
/// under `dir`.
async fn wait_no_inputs(dir: &Path) {
    let started = Instant::now();
    while !leftover_inputs(dir).is_empty() && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_no_inputs(dir);
}

/// No checked input (`input-NNN.*`, `music.*`) nor branded sound made ahead is left anywhere
/// under `dir`.
fn assert_no_inputs(dir: &Path) {
    let left = leftover_inputs(dir);
    assert!(left.is_empty(), "inputs were left: {left:?}");
}

/// The checked inputs (`input-NNN.*`, `music.*`) anywhere under `dir`.
fn leftover_inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            found.extend(leftover_inputs(&path));
        } else {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("input-")
                || name.starts_with("music.")
                || name.starts_with("branded-sound")
            {
                found.push(path);
            }
        }
    }
    found
}

/// A local server that answers every request with an HTML page labelled as a JPEG.
async fn html_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let body = "<!doctype html><html><body>not a picture</body></html>";
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/listing/photo.jpg")
}

/// Polls `get_video` until the video is final; checks on the way that status never moves
/// back and progress never decreases.
async fn wait_final(app: &TestApp, key: &str, uuid: &str) -> Value {
    let order = |s: &str| match s {
        "queued" => 0,
        "in_progress" => 1,
        _ => 2,
    };
    let (mut last_status, mut last_progress) = (0, 0);
    let started = Instant::now();
    loop {
        let r = app
            .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        let status = r.json["status"].as_str().expect("status").to_owned();
        let progress = r.json["progress"].as_u64().expect("progress");
        assert!(
            order(&status) >= last_status,
            "status went back: {}",
            r.json
        );
        assert!(progress >= last_progress, "progress went down: {}", r.json);
        (last_status, last_progress) = (order(&status), progress);
        if status == "complete" || status == "error" {
            return r.json;
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "video {uuid} not final after 240 s: {}",
            r.json
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// ffprobe's view of a file: (format duration, streams).
fn probe(path: &Path) -> (f64, Vec<Value>) {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-show_entries"])
        .arg("format=duration:stream=codec_type,codec_name,width,height,pix_fmt,sample_rate,channels,r_frame_rate")
        .args(["-of", "json"])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("ffprobe json");
    let duration = json["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .expect("duration");
    (
        duration,
        json["streams"].as_array().cloned().unwrap_or_default(),
    )
}

/// Downloads an absolute URL of this server to a temp file and probes it.
async fn fetch_and_probe(app: &TestApp, url: &str, dir: &Path, name: &str) -> (f64, Vec<Value>) {
    let path = url
        .strip_prefix(&app.base)
        .unwrap_or_else(|| panic!("{url} is not under {}", app.base));
    let r = app.get(path, "").await;
    assert_eq!(r.status, 200, "GET {url}");
    assert_eq!(
        r.headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("video/mp4"),
        "content type of {url}"
    );
    let file = dir.join(name);
    std::fs::write(&file, &r.bytes).expect("write download");
    probe(&file)
}

/// A 720p video with its audio track; see [`assert_standard_720p_clip`] for clips.
#[track_caller]
fn assert_standard_720p(duration: f64, streams: &[Value], seconds: f64, what: &str) {
    assert_standard_720p_video(duration, streams, seconds, what);
    let audio = streams
        .iter()
        .find(|s| s["codec_type"] == "audio")
        .unwrap_or_else(|| panic!("{what}: no audio stream"));
    assert_eq!(audio["codec_name"], "aac", "{what}");
    assert_eq!(audio["sample_rate"], "48000", "{what}");
}

/// A clip: the video of a standard 720p video and no audio (the stitch mixes the music or
/// silence once over the whole video).
#[track_caller]
fn assert_standard_720p_clip(duration: f64, streams: &[Value], what: &str) {
    assert_standard_720p_video(duration, streams, 5.0, what);
    assert!(
        streams.iter().all(|s| s["codec_type"] != "audio"),
        "{what}: a clip has no audio"
    );
}

#[track_caller]
fn assert_standard_720p_video(duration: f64, streams: &[Value], seconds: f64, what: &str) {
    assert!(
        (duration - seconds).abs() <= 0.1,
        "{what}: duration {duration}, expected {seconds}"
    );
    let video = streams
        .iter()
        .find(|s| s["codec_type"] == "video")
        .unwrap_or_else(|| panic!("{what}: no video stream"));
    assert_eq!(video["codec_name"], "h264", "{what}");
    assert_eq!(video["width"], 1280, "{what}");
    assert_eq!(video["height"], 720, "{what}");
    assert_eq!(video["pix_fmt"], "yuv420p", "{what}");
    assert_eq!(video["r_frame_rate"], "30/1", "{what}");
}

async fn samples_render_bad_image_fails_alone_and_clips_combine(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let bad_url = html_server().await;

    // The bundled samples are served, so a browser (and the README's demo) can see them.
    let r = app.get("/samples/house-colonial.jpg", "").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("image/jpeg")
    );

    let good = json_body(
        &CreateVideoBuilder::new()
            .image_urls([sample("house-colonial.jpg"), sample("living-room.png")])
            .audio(&music_server().await)
            .branding(speed_ramp())
            .build(),
    );
    let bad = json_body(
        &CreateVideoBuilder::new()
            .image_urls([sample("house-modern.webp"), bad_url.clone()])
            .build(),
    );
    let r = app.post("/api/v1/create_video", key, &good).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let good_id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let r = app.post("/api/v1/create_video", key, &bad).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let bad_id = r.json["uuid"].as_str().expect("uuid").to_owned();

    let failed = wait_final(&app, key, &bad_id).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_eq!(failed["error"]["code"], "media_unsupported", "{failed}");
    assert_eq!(
        failed["error"]["field"], "image_inputs[1].image_url",
        "{failed}"
    );
    assert_eq!(failed["video_url"], "", "{failed}");

    let done = wait_final(&app, key, &good_id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(done["progress"], 100, "{done}");
    assert!(done.get("error").is_none_or(Value::is_null), "{done}");
    let dir = tempfile::tempdir().expect("temp dir");
    let video_url = done["video_url"].as_str().expect("video_url");
    let (duration, streams) = fetch_and_probe(&app, video_url, dir.path(), "video.mp4").await;
    assert_standard_720p(duration, &streams, 10.0, "main video");

    let clips = done["video_clips"].as_array().expect("video_clips");
    assert_eq!(clips.len(), 2, "{done}");
    let mut clip_ids = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let expected = if i == 0 {
            sample("house-colonial.jpg")
        } else {
            sample("living-room.png")
        };
        assert_eq!(clip["image_url"], expected.as_str(), "input order");
        let url = clip["clip_url"].as_str().expect("clip_url");
        let (d, s) = fetch_and_probe(&app, url, dir.path(), &format!("clip-{i}.mp4")).await;
        assert_standard_720p_clip(d, &s, &format!("clip {i}"));
        clip_ids.push(clip["uuid"].as_str().expect("clip uuid").to_owned());
    }
    assert_ne!(clip_ids[0], clip_ids[1]);

    // Combine: stored clips, stream copy, in request order (a clip may repeat).
    let clip = |i: usize| Uuid::parse_str(&clip_ids[i]).expect("clip uuid");
    let request = combine_body(&[clip(1), clip(0), clip(1)]);
    let r = app.post("/api/v1/combine_video_clips", key, &request).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let combined_id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let combined = wait_final(&app, key, &combined_id).await;
    assert_eq!(combined["status"], "complete", "{combined}");
    let url = combined["video_url"].as_str().expect("video_url");
    assert_ne!(url, video_url);
    let (duration, streams) = fetch_and_probe(&app, url, dir.path(), "combined.mp4").await;
    assert_standard_720p(duration, &streams, 15.0, "combined video");

    // Every served name carries a token no other URL gives away; the checked inputs are kept
    // out of the served tree and gone once the video is stitched.
    let branded = wait_branded(&app, key, &good_id).await;
    let files = format!("{}/files/videos", app.base);
    for (url, shape) in [
        (video_url, format!("{files}/{good_id}/video-TOKEN.mp4")),
        (
            clips[0]["clip_url"].as_str().expect("clip_url"),
            format!("{files}/{good_id}/clip-000-TOKEN.mp4"),
        ),
        (
            branded.as_str(),
            format!("{files}/{good_id}/TOKEN/branded.mp4"),
        ),
        (url, format!("{files}/{combined_id}/TOKEN/video.mp4")),
    ] {
        assert_eq!(token_shape(url), shape, "{url}");
    }
    // The branded copy lays the stored music (kept past the stitch for it) under its outro.
    let (d, s) = fetch_and_probe(&app, &branded, dir.path(), "branded.mp4").await;
    assert!(
        d > 0.0 && s.iter().any(|s| s["codec_type"] == "video"),
        "branded"
    );
    assert!(
        s.iter().any(|s| s["codec_type"] == "audio"),
        "the branded copy has the video's music: {s:?}"
    );
    for guess in [
        format!("/files/videos/{good_id}/branded.mp4"),
        format!("/files/videos/{good_id}/video.mp4"),
        format!("/files/videos/{combined_id}/video.mp4"),
        format!("/files/videos/{good_id}/input-000.jpg"),
        format!("/files/private/videos/{good_id}/input-000.jpg"),
    ] {
        assert_eq!(app.get(&guess, "").await.status, 404, "{guess}");
    }
    let media = app.state.config.media_dir();
    assert_no_inputs(&media.join("videos"));
    wait_no_inputs(&media.join("private/videos").join(&good_id)).await;

    workers.shutdown().await;
    app.stop().await;
}

/// A local server that answers every request with the same MP3 (12 s of a tone, made by
/// ffmpeg), labelled as audio/mpeg: the music of a branded video.
async fn music_server() -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("music.mp3");
    let status = std::process::Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg("sine=frequency=440:duration=12")
        .args(["-c:a", "libmp3lame", "-b:a", "96k"])
        .arg(&path)
        .status()
        .expect("ffmpeg");
    assert!(status.success(), "ffmpeg made no mp3");
    let body = std::fs::read(&path).expect("mp3");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let body = std::sync::Arc::new(body);
        while let Ok((mut socket, _)) = listener.accept().await {
            let body = std::sync::Arc::clone(&body);
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}/music/theme.mp3")
}

/// A local media server with one route per way a medium can be bad.
async fn bad_media_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]);
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, body): (&str, Vec<u8>) = match path.as_str() {
                    // An HLS playlist named like a picture: ffmpeg would open it as HLS.
                    "/playlist.png" => (
                        "200 OK",
                        b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n"
                            .to_vec(),
                    ),
                    // Over the 40 MiB limit, starting like a JPEG.
                    "/huge.jpg" => {
                        let mut body = vec![0xFF, 0xD8, 0xFF, 0xE0];
                        body.resize(41 * 1024 * 1024, 0x55);
                        ("200 OK", body)
                    }
                    // A JPEG header and then nothing a decoder can use: the renderer's decode
                    // check fails, and a damaged picture is the client's medium, not our fault.
                    "/corrupt.jpg" => {
                        let mut body = vec![
                            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0,
                        ];
                        body.extend(std::iter::repeat_n(0x42, 4096));
                        ("200 OK", body)
                    }
                    _ => ("404 Not Found", b"gone".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}")
}

async fn every_size_renders_and_each_bad_medium_fails_with_its_code(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = format!("{}/samples/house-bungalow.jpg", app.base);
    let media = bad_media_server().await;

    // Bad media first in the queue, good renders of every size beside them.
    let bad = [
        ("/missing.jpg", "media_unreachable"),
        ("/huge.jpg", "media_too_large"),
        ("/playlist.png", "media_unsupported"),
        ("/corrupt.jpg", "media_unsupported"),
    ];
    let mut bad_ids = Vec::new();
    for (path, _) in bad {
        let body = json_body(
            &CreateVideoBuilder::new()
                .image_urls([sample.clone(), format!("{media}{path}")])
                .build(),
        );
        let r = app.post("/api/v1/create_video", key, &body).await;
        assert_eq!(r.status, 200, "{}", r.json);
        bad_ids.push(r.json["uuid"].as_str().expect("uuid").to_owned());
    }
    let sizes = [
        (Orientation::Landscape, Resolution::P720, 1280, 720),
        (Orientation::Portrait, Resolution::P720, 720, 1280),
        (Orientation::Landscape, Resolution::P1080, 1920, 1080),
        (Orientation::Portrait, Resolution::P1080, 1080, 1920),
    ];
    let mut good_ids = Vec::new();
    for (orientation, resolution, _, _) in sizes {
        let body = json_body(
            &CreateVideoBuilder::new()
                .image_urls([&sample])
                .motion(CameraMotion::PushIn)
                .orientation(orientation)
                .resolution(resolution)
                .build(),
        );
        let r = app.post("/api/v1/create_video", key, &body).await;
        assert_eq!(r.status, 200, "{}", r.json);
        good_ids.push(r.json["uuid"].as_str().expect("uuid").to_owned());
    }

    for ((path, code), id) in bad.iter().zip(&bad_ids) {
        let failed = wait_final(&app, key, id).await;
        assert_eq!(failed["status"], "error", "{path}: {failed}");
        assert_eq!(failed["error"]["code"], *code, "{path}: {failed}");
        assert_eq!(
            failed["error"]["field"], "image_inputs[1].image_url",
            "{path}: {failed}"
        );
        assert!(
            !failed["error"]["message"].as_str().unwrap_or("").is_empty(),
            "{failed}"
        );
        assert_eq!(failed["video_url"], "", "{path}: {failed}");
        // Inputs stored by prepare (the corrupt picture fails later, in its clip) are removed
        // with the failure.
        wait_no_inputs(&app.state.config.media_dir().join("private/videos").join(id)).await;
    }

    let dir = tempfile::tempdir().expect("temp dir");
    for ((orientation, resolution, width, height), id) in sizes.iter().zip(&good_ids) {
        let done = wait_final(&app, key, id).await;
        assert_eq!(
            done["status"], "complete",
            "{orientation} {resolution}: {done}"
        );
        let url = done["video_url"].as_str().expect("video_url");
        let name = format!("{orientation}-{resolution}.mp4");
        let (duration, streams) = fetch_and_probe(&app, url, dir.path(), &name).await;
        assert!((duration - 5.0).abs() <= 0.1, "{name}: duration {duration}");
        let video = streams
            .iter()
            .find(|s| s["codec_type"] == "video")
            .expect("video stream");
        assert_eq!(
            (video["width"].clone(), video["height"].clone()),
            (json!(width), json!(height)),
            "{name}"
        );
        assert_eq!(video["codec_name"], "h264", "{name}");
        assert_eq!(video["pix_fmt"], "yuv420p", "{name}");
        assert_eq!(video["r_frame_rate"], "30/1", "{name}");
        assert!(
            streams
                .iter()
                .any(|s| s["codec_type"] == "audio" && s["codec_name"] == "aac"),
            "{name}: audio"
        );
    }

    workers.shutdown().await;
    app.stop().await;
}

/// A host name that does not exist fails the video within seconds (no retries), as
/// `media_unreachable` on the photo's field, saying the name does not resolve.
async fn a_mistyped_host_fails_at_once_saying_it_does_not_resolve(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = format!("{}/samples/house-bungalow.jpg", app.base);
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([sample, "https://no-such-host.invalid/photo.jpg".to_owned()])
            .build(),
    );
    let started = Instant::now();
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let failed = wait_final(&app, key, r.json["uuid"].as_str().expect("uuid")).await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(failed["status"], "error", "{failed}");
    assert_eq!(failed["error"]["code"], "media_unreachable", "{failed}");
    assert_eq!(
        failed["error"]["field"], "image_inputs[1].image_url",
        "{failed}"
    );
    let message = failed["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("no-such-host.invalid does not resolve"),
        "{failed}"
    );
    assert!(!message.contains("public address"), "{failed}");
    workers.shutdown().await;
    app.stop().await;
}

/// The samples, and a generative provider that is a test double refusing every picture with
/// 422 (a permanent failure, in the clip step: after prepare stored the video's inputs).
fn refusing_provider(config: &mut Config) {
    configure(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1/process", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in listener.incoming().filter_map(Result::ok) {
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let mut buf = [0u8; 65536];
            // Read until the client pauses: the whole request of a small picture.
            while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
            let body = r#"{"error": {"code": "no_room", "message": "no room to stage"}}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let legacy = stillreel_providers::ProviderConfig::from_values(Some(&url), None, Some("20"))
        .expect("provider config")
        .expect("a provider URL");
    config.providers = stillreel_providers::ProviderRoles::legacy(&legacy);
}

/// A video that fails after its inputs were stored (the provider refuses the second picture
/// in its clip) removes the customer's checked photos with the failure.
async fn a_video_failing_after_prepare_leaves_no_inputs(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let body = json!({"image_inputs": [
        {"image_url": sample("house-colonial.jpg")},
        {"image_url": sample("living-room.png"), "vfx": {"type": "virtual-staging"}},
    ]});
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let inputs = app
        .state
        .config
        .media_dir()
        .join("private/videos")
        .join(&id);
    // Prepare stores the checked copies before any clip runs.
    let started = Instant::now();
    let mut seen = false;
    while !seen && started.elapsed() < Duration::from_secs(60) {
        seen = !leftover_inputs(&inputs).is_empty();
        let status = app
            .get(&format!("/api/v1/get_video?uuid={id}"), key)
            .await
            .json["status"]
            .clone();
        if status == "error" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let failed = wait_final(&app, key, &id).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_eq!(failed["error"]["code"], "render_failed", "{failed}");
    assert_eq!(failed["error"]["field"], "image_inputs[1].vfx", "{failed}");
    assert!(
        seen || inputs.exists(),
        "the inputs were never stored under {}",
        inputs.display()
    );
    wait_no_inputs(&inputs).await;
    workers.shutdown().await;
    app.stop().await;
}

/// The samples, and a 3 s lease: the heartbeat runs every second.
fn short_lease(config: &mut Config) {
    configure(config);
    config.job_lease_secs = 3;
}

/// Another worker takes the jobs over (their lease owner changes under the running clips):
/// the heartbeat notices, the clip render is dropped, and its ffmpeg is killed instead of
/// running on. Nothing is written for the jobs by the worker that lost them.
async fn a_lost_lease_stops_ffmpeg_and_the_new_owner_is_left_alone(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let key = app.account().await.api_key;
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let mut request = CreateVideoBuilder::new()
        .image_urls([
            sample("house-colonial.jpg"),
            sample("house-bungalow.jpg"),
            sample("living-room.png"),
        ])
        .resolution(Resolution::P1080)
        .build();
    for (input, motion) in request.image_inputs.iter_mut().zip([
        CameraMotion::PushIn,
        CameraMotion::PushOut,
        CameraMotion::OrbitLeft,
    ]) {
        input.camera_motion = motion;
    }
    let body = json_body(&request);
    let r = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let uuid = r.json["uuid"].as_str().expect("uuid").to_owned();

    let work = worker::work_root(&app.state.config);
    let started = Instant::now();
    while ffmpeg_running_in(&work).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no ffmpeg started within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Every job of the video moves to another node (the clips running here, and those still
    // queued, so no new run starts here either), with a lease that outlasts the test.
    let stolen = "UPDATE jobs SET lease_owner = 'another-node/0', state = 'running',
                      lease_expires_at = 9000000000000
                  WHERE state IN ('running', 'queued')";
    let taken = match &app.state.db {
        stillreel_server::db::Db::Sqlite { write, .. } => sqlx::query(stolen)
            .execute(write)
            .await
            .map(|r| r.rows_affected()),
        stillreel_server::db::Db::Postgres(pool) => sqlx::query(stolen)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()),
    }
    .expect("take the lease");
    assert!(taken >= 1, "the running clips were taken");
    let stolen_at = Instant::now();

    // One heartbeat (1 s) to notice, 0.1 s for the runner to see the flag.
    while !ffmpeg_running_in(&work).is_empty() {
        assert!(
            stolen_at.elapsed() < Duration::from_secs(4),
            "ffmpeg still running {:?} after the lease was lost: {:?}",
            stolen_at.elapsed(),
            ffmpeg_running_in(&work)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The job belongs to the other node: still running, under its name; the video is not
    // failed or completed by the worker that lost it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        ffmpeg_running_in(&work).is_empty(),
        "no new run for the lost job"
    );
    let r = app
        .get(&format!("/api/v1/get_video?uuid={uuid}"), &key)
        .await;
    assert_eq!(r.json["status"], "in_progress", "{}", r.json);
    workers.shutdown().await;
}

/// Decodes a stored JPEG still with ffprobe: (codec, width, height).
fn probe_still(app: &TestApp, url: &str) -> (String, u64, u64) {
    let key = url
        .strip_prefix(&format!("{}/files/", app.base))
        .unwrap_or_else(|| panic!("{url} is not a stored file"));
    let path = app.state.storage.local_path(key).expect("local storage");
    assert!(path.is_file(), "{} was not made", path.display());
    let (_, streams) = probe(&path);
    let v = &streams[0];
    (
        v["codec_name"].as_str().unwrap_or("").to_owned(),
        v["width"].as_u64().unwrap_or(0),
        v["height"].as_u64().unwrap_or(0),
    )
}

/// Uploaded photos and music, a brand kit naming the music and an outro, rendered by the real
/// worker: the renderer reads the uploads from storage (no allow-list entry for them), every
/// clip gets a JPEG thumbnail and the video a poster, and deleting the video removes them.
async fn uploads_and_a_brand_kit_render_with_thumbnails_and_a_poster(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let dir = tempfile::tempdir().expect("temp dir");
    let wav = dir.path().join("theme.wav");
    let made = std::process::Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=4",
            "-c:a",
            "pcm_s16le",
        ])
        .arg(&wav)
        .status()
        .expect("ffmpeg");
    assert!(made.success());
    let upload = |content_type: &'static str, bytes: Vec<u8>| {
        let app = &app;
        async move {
            let r = app
                .request(
                    axum::http::Method::POST,
                    "/api/v1/upload_media",
                    &[("authorization", key), ("content-type", content_type)],
                    Some(bytes),
                )
                .await;
            assert_eq!(r.status, 200, "{}", r.json);
            r.json["url"].as_str().expect("url").to_owned()
        }
    };
    let read = |name: &str| std::fs::read(samples_dir().join(name)).expect("sample");
    let front = upload("image/jpeg", read("house-colonial.jpg")).await;
    let room = upload("image/png", read("living-room.png")).await;
    let music = upload("audio/wav", std::fs::read(&wav).expect("wav")).await;

    let kit = app
        .post(
            "/api/v1/create_brand_kit",
            key,
            &json!({"name": "Acme", "audio_url": music,
                    "outro": {"template": "outro-minimal",
                              "config": {"brokerage": {"value": "Acme Realty"}}}}),
        )
        .await;
    assert_eq!(kit.status, 200, "{}", kit.json);
    let mut body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([&front, &room])
            .build(),
    );
    body["branding"] = json!({"brand_kit": kit.json["uuid"]});
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(
        done["audio_url"],
        music.as_str(),
        "the kit's music is echoed"
    );
    let video_url = done["video_url"].as_str().expect("video_url");
    let (duration, streams) = fetch_and_probe(&app, video_url, dir.path(), "video.mp4").await;
    assert_standard_720p(duration, &streams, 10.0, "uploaded photos and music");

    for clip in done["video_clips"].as_array().expect("clips") {
        let thumb = clip["thumbnail_url"].as_str().expect("thumbnail_url");
        assert_eq!(
            probe_still(&app, thumb),
            ("mjpeg".to_owned(), 640, 360),
            "{thumb}"
        );
    }
    let poster = done["poster_url"].as_str().expect("poster_url");
    assert_eq!(probe_still(&app, poster), ("mjpeg".to_owned(), 640, 360));
    let served = app
        .get(poster.strip_prefix(&app.base).expect("ours"), "")
        .await;
    assert_eq!(
        served
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/jpeg")
    );

    // The branded render with the kit's outro, then the library and deletion.
    let started = Instant::now();
    let branded = loop {
        let r = app.get(&format!("/api/v1/get_video?uuid={id}"), key).await;
        let status = r.json["branding"]["status"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if status == "complete" || status == "error" {
            break r.json;
        }
        assert!(started.elapsed() < Duration::from_secs(240), "{}", r.json);
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(branded["branding"]["status"], "complete", "{branded}");
    assert_eq!(
        branded["branding"]["templates"]["outro"]["template"],
        "outro-minimal"
    );
    let listed = app.get("/api/v1/get_videos", key).await;
    assert_eq!(listed.json["videos"][0], branded);
    let r = app
        .post("/api/v1/delete_video", key, &json!({"uuid": id}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    for url in [
        video_url,
        poster,
        branded["branding"]["video_url"].as_str().expect("branded"),
    ] {
        let key = url
            .strip_prefix(&format!("{}/files/", app.base))
            .expect("stored");
        assert_eq!(
            app.state.storage.size(key).expect("size"),
            None,
            "{key} left behind"
        );
    }
    workers.shutdown().await;
}

/// The mean luma of frame `n` of the video at `path` inside `crop` (an ffmpeg crop).
fn region_luma(path: &Path, n: u32, crop: &str) -> f64 {
    let out = std::process::Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args([
            "-vf",
            &format!("select=eq(n\\,{n}),crop={crop}"),
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "gray",
            "-",
        ])
        .output()
        .expect("ffmpeg");
    assert!(out.status.success() && !out.stdout.is_empty(), "decoded");
    out.stdout.iter().map(|&v| f64::from(v)).sum::<f64>() / out.stdout.len() as f64
}

async fn fit_and_captions_reach_the_rendered_clips(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    // A portrait photo (contained by `auto`), a WebP (made by ffmpeg: its contain-blur graph)
    // and a landscape photo with a caption.
    let body = json!({
        "image_inputs": [
            {"image_url": sample("house-townhouse-portrait.jpg"), "camera_motion": "push-out"},
            {"image_url": sample("house-modern.webp"), "camera_motion": "push-out", "fit": "contain-blur"},
            {"image_url": sample("house-bungalow.jpg"), "camera_motion": "push-in", "fit": "smart",
             "caption": {"text": "  Chef's kitchen\u{202e}  "}},
        ],
    });
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    let dir = tempfile::tempdir().expect("dir");
    let url = done["video_url"].as_str().expect("video url");
    let (duration, streams) = fetch_and_probe(&app, url, dir.path(), "video.mp4").await;
    assert_standard_720p(duration, &streams, 15.0, "video");
    let video = dir.path().join("video.mp4");
    // Clips 1 and 2 (frames 0..150, 150..300) end their push-out showing the whole canvas:
    // the photo in the middle, the dimmed fill at the sides.
    for last in [149, 299] {
        let side = region_luma(&video, last, "160:720:0:0");
        let middle = region_luma(&video, last, "300:720:490:0");
        assert!(
            side < middle * 0.75,
            "frame {last}: fill {side}, photo {middle}"
        );
    }
    // Clip 3's caption: a dark plate at the lower left in the middle of the clip, where the
    // first frame shows the photo.
    let caption = stillreel_render::ffmpeg::command::clip_caption::ClipCaption {
        text: "Chef's kitchen".to_owned(),
        style: stillreel_core::CaptionStyle::Label,
        plate: stillreel_render::ffmpeg::command::clip_caption::DEFAULT_PLATE.to_owned(),
        at_top: false,
    };
    let layout = stillreel_render::ffmpeg::command::clip_caption::layout(&caption, 1280, 720);
    let (_, left, top) = &layout.lines[0];
    let plate = format!(
        "{}:{}:{}:{}",
        layout.size,
        layout.size / 2,
        left.expect("left") - layout.pad + 2,
        top - layout.pad + 2
    );
    let shown = region_luma(&video, 375, &plate);
    let before = region_luma(&video, 300, &plate);
    assert!(shown < 45.0, "plate luma {shown}");
    assert!(
        before > shown + 20.0,
        "the photo before the fade-in: {before}, plate {shown}"
    );
    workers.shutdown().await;
}
