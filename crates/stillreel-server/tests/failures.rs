//! Every kind of input of a render, broken on purpose, fails its video (or its branded
//! render) naming that input's field, a code and what to do, through the real server and
//! worker with real ffmpeg, on SQLite and PostgreSQL: a photo cut short, a photo that does not
//! decode, music that is not audio, an intro logo that does not decode, a brand kit's broken
//! headshot and music (reported at `branding.brand_kit`), a combine whose clip file is gone or
//! unreadable and a combine whose music is not audio.
//! docs/API-DESIGN.md#render-failures.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{TestApp, combine_body, json_body};
use serde_json::{Value, json};
use stillreel_core::builder::CreateVideoBuilder;
use stillreel_core::{CameraMotion, Orientation, Resolution};
use stillreel_server::config::Config;
use stillreel_server::worker::{self, WorkerSettings, Workers};

both_backends!(
    mod broken, configured by configure:
    each_broken_input_is_named_on_the_failed_record,
    a_combine_names_the_clip_or_the_music_that_failed,
);

/// The bundled samples, and 127.0.0.1 allow-listed for the local server of broken media.
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

/// A PNG whose chunks are all there (its header reads, it ends with `IEND`) and whose pixel
/// data is noise: only decoding it finds the fault.
fn garbled_png() -> Vec<u8> {
    fn chunk(kind: &[u8], data: &[u8]) -> Vec<u8> {
        let mut crc_input = kind.to_vec();
        crc_input.extend_from_slice(data);
        let mut out = u32::try_from(data.len())
            .expect("small")
            .to_be_bytes()
            .to_vec();
        out.extend_from_slice(&crc_input);
        out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
        out
    }
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&640u32.to_be_bytes());
    ihdr.extend_from_slice(&480u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let noise: Vec<u8> = (0u32..6000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &ihdr));
    png.extend(chunk(b"IDAT", &noise));
    png.extend(chunk(b"IEND", b""));
    png
}

/// CRC-32 (IEEE), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An ID3 tag (so it is taken for MP3) followed by noise: no frame of audio in it.
fn noise_mp3() -> Vec<u8> {
    let mut body = b"ID3\x04\x00\x00\x00\x00\x00\x00".to_vec();
    body.extend((0u32..20_000).map(|i| (i.wrapping_mul(40_503) >> 7) as u8));
    body
}

/// A local server of broken media: `/cut.jpg` (a sample photo's first third), `/garbled.png`
/// ([`garbled_png`]) and `/noise.mp3` ([`noise_mp3`]).
async fn broken_media_server() -> String {
    let photo = std::fs::read(samples_dir().join("house-bungalow.jpg")).expect("sample");
    let cut = photo[..photo.len() / 3].to_vec();
    let (garbled, noise) = (garbled_png(), noise_mp3());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let (cut, garbled, noise) = (cut.clone(), garbled.clone(), noise.clone());
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]);
                let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, kind, body) = match path.as_str() {
                    "/cut.jpg" => ("200 OK", "image/jpeg", cut),
                    "/garbled.png" => ("200 OK", "image/png", garbled),
                    "/noise.mp3" => ("200 OK", "audio/mpeg", noise),
                    _ => ("404 Not Found", "text/plain", b"gone".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    format!("http://{addr}")
}
/// Sends a combine that must be accepted and then fail; answers its final record.
async fn combine_fails(app: &TestApp, key: &str, body: &Value) -> Value {
    let r = app.post("/api/v1/combine_video_clips", key, body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let failed = wait_final(app, key, &id, false).await;
    assert_eq!(failed["status"], "error", "{failed}");
    failed
}

/// The local file of clip `i` of a completed video's record.
fn stored_clip_path(app: &TestApp, done: &Value, i: usize) -> PathBuf {
    let clip_url = done["video_clips"][i]["clip_url"]
        .as_str()
        .expect("clip_url");
    let stored = clip_url
        .strip_prefix(&format!("{}/files/", app.base))
        .expect("a stored file");
    app.state.storage.local_path(stored).expect("local storage")
}

/// Polls `get_video` until the video is final (and, with `branded`, its branded render too).
async fn wait_final(app: &TestApp, key: &str, uuid: &str, branded: bool) -> Value {
    let started = Instant::now();
    loop {
        let r = app
            .get(&format!("/api/v1/get_video?uuid={uuid}"), key)
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
        let done = |s: &Value| s == "complete" || s == "error";
        let video_done = done(&r.json["status"]);
        let branding_done =
            !branded || r.json["status"] == "error" || done(&r.json["branding"]["status"]);
        if video_done && branding_done {
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

/// Asserts that `error` (a record's or its branding's `error`) is `{code, field, message}`
/// with `code` and `field`, and a message naming the field and containing each of `says`.
fn assert_failure(error: &Value, code: &str, field: &str, says: &[&str], record: &Value) {
    assert_eq!(error["code"], code, "{record}");
    assert_eq!(error["field"], field, "{record}");
    let message = error["message"].as_str().unwrap_or("");
    for part in says {
        assert!(message.contains(part), "{part:?} missing from {message:?}");
    }
    assert_eq!(
        error.as_object().map(|o| o.len()),
        Some(3),
        "exactly code, message and field: {record}"
    );
}

async fn create(app: &TestApp, key: &str, body: &Value) -> String {
    let r = app.post("/api/v1/create_video", key, body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json["uuid"].as_str().expect("uuid").to_owned()
}

async fn each_broken_input_is_named_on_the_failed_record(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = format!("{}/samples/house-bungalow.jpg", app.base);
    let media = broken_media_server().await;
    let photos = |broken: &[(usize, &str)], n: usize| {
        let mut urls = vec![sample.clone(); n];
        for (i, path) in broken {
            urls[*i] = format!("{media}{path}");
        }
        json_body(
            &CreateVideoBuilder::new()
                .image_urls(urls)
                .motion(CameraMotion::PushIn)
                .build(),
        )
    };

    // A photo cut short: refused when fetched, before any clip is rendered.
    let cut = create(&app, key, &photos(&[(1, "/cut.jpg")], 2)).await;
    // A photo whose every chunk is there but whose pixels do not decode: its clip fails.
    let garbled = create(&app, key, &photos(&[(2, "/garbled.png")], 3)).await;
    // Music that is not audio: the stitch fails on it.
    let mut body = photos(&[], 1);
    body["audio_url"] = json!(format!("{media}/noise.mp3"));
    let music = create(&app, key, &body).await;
    // An intro logo that does not decode: the video completes, its branded render fails.
    let mut body = photos(&[], 1);
    body["branding"] = json!({"intro": {"template": "intro-lower-third", "config": {
        "address": {"value": "12 Oak Lane"},
        "logo": {"url": format!("{media}/garbled.png")}}}});
    let logo = create(&app, key, &body).await;
    // A brand kit whose outro headshot is cut short.
    let kit = app
        .post(
            "/api/v1/create_brand_kit",
            key,
            &json!({"name": "Acme", "outro": {"template": "outro-contact-card", "config": {
                "agent_name": {"value": "Ana"}, "phone": {"value": "+1 555 0100"},
                "headshot": {"url": format!("{media}/cut.jpg")}}}}),
        )
        .await;
    assert_eq!(kit.status, 200, "{}", kit.json);
    let mut body = photos(&[], 1);
    body["branding"] = json!({"brand_kit": kit.json["uuid"]});
    let kit_video = create(&app, key, &body).await;
    // A brand kit whose music is not audio, its outro replaced by the request's (fine) one.
    let kit = app
        .post(
            "/api/v1/create_brand_kit",
            key,
            &json!({"name": "Noisy", "audio_url": format!("{media}/noise.mp3"),
                    "outro": {"template": "outro-minimal", "config": {
                        "brokerage": {"value": "Acme"}}}}),
        )
        .await;
    assert_eq!(kit.status, 200, "{}", kit.json);
    let mut body = photos(&[], 1);
    body["branding"] = json!({"brand_kit": kit.json["uuid"], "outro": {
        "template": "outro-minimal", "config": {"brokerage": {"value": "Acme Realty"}}}});
    let kit_music = create(&app, key, &body).await;

    let failed = wait_final(&app, key, &cut, false).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_failure(
        &failed["error"],
        "media_unsupported",
        "image_inputs[1].image_url",
        &["is cut short", "upload the complete file"],
        &failed,
    );

    let failed = wait_final(&app, key, &garbled, false).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_failure(
        &failed["error"],
        "media_unsupported",
        "image_inputs[2].image_url",
        &[
            "the picture at image_inputs[2].image_url could not be decoded",
            "upload a complete JPEG, PNG or WebP file",
        ],
        &failed,
    );

    let failed = wait_final(&app, key, &music, false).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_failure(
        &failed["error"],
        "media_unsupported",
        "audio_url",
        &[
            "the music at audio_url could not be decoded as audio",
            "upload an MP3, M4A or OGG file",
        ],
        &failed,
    );

    let branded = wait_final(&app, key, &logo, true).await;
    assert_eq!(branded["status"], "complete", "{branded}");
    assert_eq!(branded["branding"]["status"], "error", "{branded}");
    assert_failure(
        &branded["branding"]["error"],
        "media_unsupported",
        "branding.intro.config.logo.url",
        &["the picture at branding.intro.config.logo.url could not be decoded"],
        &branded,
    );

    let branded = wait_final(&app, key, &kit_video, true).await;
    assert_eq!(branded["status"], "complete", "{branded}");
    assert_eq!(branded["branding"]["status"], "error", "{branded}");
    // The request named only the kit: the kit is the field, its part in the message.
    assert_failure(
        &branded["branding"]["error"],
        "media_unsupported",
        "branding.brand_kit",
        &[
            "in the brand kit, at outro.config.headshot.url: ",
            "is cut short",
            "update_brand_kit",
        ],
        &branded,
    );

    let failed = wait_final(&app, key, &kit_music, false).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_failure(
        &failed["error"],
        "media_unsupported",
        "branding.brand_kit",
        &["in the brand kit, at audio_url: the music at audio_url could not be decoded as audio"],
        &failed,
    );
    // The branded render fails with the main video, with the same error.
    assert_eq!(failed["branding"]["status"], "error", "{failed}");
    assert_eq!(failed["branding"]["error"], failed["error"], "{failed}");

    workers.shutdown().await;
    app.stop().await;
}

async fn a_combine_names_the_clip_or_the_music_that_failed(app: TestApp) {
    let (app, workers) = rendering_app(app).await;
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let sample = format!("{}/samples/house-bungalow.jpg", app.base);
    let media = broken_media_server().await;
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([&sample, &sample, &sample])
            .motion(CameraMotion::PushIn)
            .orientation(Orientation::Landscape)
            .resolution(Resolution::P720)
            .build(),
    );
    let source = create(&app, key, &body).await;
    let done = wait_final(&app, key, &source, false).await;
    assert_eq!(done["status"], "complete", "{done}");
    let clips: Vec<uuid::Uuid> = done["video_clips"]
        .as_array()
        .expect("clips")
        .iter()
        .map(|c| {
            c["uuid"]
                .as_str()
                .expect("clip uuid")
                .parse()
                .expect("uuid")
        })
        .collect();

    // Music that is not audio, with clips that are fine.
    let mut body = combine_body(&clips[..2]);
    body["audio_url"] = json!(format!("{media}/noise.mp3"));
    let failed = combine_fails(&app, key, &body).await;
    assert_failure(
        &failed["error"],
        "media_unsupported",
        "audio_url",
        &[
            "could not be decoded as audio",
            "upload an MP3, M4A or OGG file",
        ],
        &failed,
    );

    // The third clip's file gone from storage (the record still names it).
    let path = stored_clip_path(&app, &done, 2);
    std::fs::remove_file(&path).expect("remove the clip's file");
    let failed = combine_fails(&app, key, &combine_body(&[clips[0], clips[2]])).await;
    assert_failure(
        &failed["error"],
        "clip_unavailable",
        "video_clip_uuids[1]",
        &[
            "the clip at video_clip_uuids[1] could not be read",
            "its stored file is gone",
            "create_video",
        ],
        &failed,
    );

    // The second clip's file overwritten with noise: ffmpeg cannot read it.
    let path = stored_clip_path(&app, &done, 1);
    std::fs::write(&path, noise_mp3()).expect("overwrite the clip's file");
    let failed = combine_fails(&app, key, &combine_body(&[clips[0], clips[1]])).await;
    assert_failure(
        &failed["error"],
        "clip_unavailable",
        "video_clip_uuids[1]",
        &["the clip at video_clip_uuids[1] could not be read"],
        &failed,
    );

    workers.shutdown().await;
    app.stop().await;
}
