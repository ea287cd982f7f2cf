//! HEIC pictures end to end, over HTTP with real workers and ffmpeg, on SQLite and PostgreSQL:
//! an iPhone-style HEIC (turned by `irot`, EXIF saying the same) uploaded through
//! `upload_media` and one turned by EXIF alone fetched by `image_url` render upright in their
//! colours; over the pixel cap both ways are refused exactly as a PNG is; damaged ones fail
//! with the field and a reason. Fixtures are made with `heif-enc` at test time.

mod common;
#[path = "../../stillreel-render/tests/common/mod.rs"]
mod media;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::http::Method;
use common::{TestApp, json_body};
use media::heic::{self, BOTTOM, Stored, TOP};
use media::{Route, TestServer};
use serde_json::Value;
use stillreel_core::builder::CreateVideoBuilder;
use stillreel_core::{CameraMotion, Orientation};
use stillreel_server::config::Config;
use stillreel_server::worker::{self, WorkerSettings, Workers};

both_backends!(
    mod rendered, configured by allow_local:
    heic_uploaded_or_fetched_renders_upright_and_damage_is_named,
);
both_backends!(
    mod capped, configured by small_pixel_cap:
    heic_over_the_pixel_cap_is_refused_as_a_png_is,
);

/// 127.0.0.1 allow-listed for the local media server.
fn allow_local(config: &mut Config) {
    config.fetch_allow = vec!["127.0.0.1".to_owned()];
}

/// A cap of 0.2 megapixels: the 480 × 640 fixtures (0.307) are over it.
fn small_pixel_cap(config: &mut Config) {
    allow_local(config);
    config.limits.max_pixels = 200_000;
}

async fn rendering_app(app: TestApp) -> (TestApp, Workers) {
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    app.state.set_available_vfx(renderer.available_vfx());
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    (app, workers)
}

async fn upload(app: &TestApp, key: &str, content_type: &str, bytes: Vec<u8>) -> common::Resp {
    app.request(
        Method::POST,
        "/api/v1/upload_media",
        &[("authorization", key), ("content-type", content_type)],
        Some(bytes),
    )
    .await
}

/// Creates a portrait video of `urls`, pushing in; its uuid.
async fn create(app: &TestApp, key: &str, urls: &[&str]) -> String {
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls(urls)
            .motion(CameraMotion::PushIn)
            .orientation(Orientation::Portrait)
            .build(),
    );
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json["uuid"].as_str().expect("uuid").to_owned()
}

async fn wait_final(app: &TestApp, key: &str, uuid: &str) -> Value {
    app.wait_final(key, uuid, Duration::from_secs(240)).await
}

fn served(files: Vec<(&'static str, &'static str, Vec<u8>)>) -> Vec<(&'static str, Route)> {
    files
        .into_iter()
        .map(|(path, content_type, body)| {
            (
                path,
                Route::Body {
                    content_type,
                    body: Arc::new(body),
                },
            )
        })
        .collect()
}

#[track_caller]
fn assert_colour(got: [u8; 3], want: [u8; 3], what: &str) {
    let off = got
        .iter()
        .zip(want)
        .map(|(g, w)| g.abs_diff(w))
        .max()
        .unwrap_or(0);
    assert!(off <= 24, "{what}: {got:?}, expected about {want:?}");
}

/// Frame `n` of `video` at 8 × 8 shows the top band above and the bottom band below.
fn assert_upright(video: &Path, n: u32, what: &str) {
    let rgb = media::frame_rgb(video, n, "8:8");
    let px = |x: usize, y: usize| {
        let at = (y * 8 + x) * 3;
        [rgb[at], rgb[at + 1], rgb[at + 2]]
    };
    for x in [1, 6] {
        assert_colour(px(x, 1), TOP, &format!("{what}, top, column {x}"));
        assert_colour(px(x, 6), BOTTOM, &format!("{what}, bottom, column {x}"));
    }
}

async fn heic_uploaded_or_fetched_renders_upright_and_damage_is_named(app: TestApp) {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let iphone = std::fs::read(heic::two_bands(
        d,
        "iphone.heic",
        480,
        640,
        Stored::IrotTurned,
    ))
    .expect("read");
    let exif = std::fs::read(heic::two_bands(
        d,
        "exif.heic",
        480,
        640,
        Stored::ExifTurned,
    ))
    .expect("read");
    let cut = heic::with_data_cut(&exif);
    let server = TestServer::start(
        "127.0.0.1",
        served(vec![
            ("/exif.heic", "image/heic", exif.clone()),
            ("/cut.heic", "image/heic", cut),
        ]),
    )
    .await;
    let (app, workers) = rendering_app(app).await;
    let key = app.account().await.api_key;

    // Uploaded: kept as sent, served as image/heic.
    let r = upload(&app, &key, "image/heic", iphone.clone()).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["media_type"], "image/heic");
    assert_eq!(r.json["bytes"], iphone.len() as u64);
    let uploaded = r.json["url"].as_str().expect("url").to_owned();
    assert!(uploaded.ends_with(".heic"), "{uploaded}");
    let back = app
        .get(uploaded.strip_prefix(&app.base).expect("ours"), "")
        .await;
    assert_eq!(back.status, 200);
    assert_eq!(back.bytes.as_ref(), iphone.as_slice());
    assert_eq!(
        back.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/heic")
    );

    // The upload and a fetched one in one video: 10 s of H.264, each clip upright.
    let fetched = server.url("/exif.heic");
    let id = create(&app, &key, &[&uploaded, &fetched]).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    let url = done["video_url"].as_str().expect("video_url");
    let video = app
        .get(url.strip_prefix(&app.base).expect("ours"), "")
        .await;
    assert_eq!(video.status, 200);
    let path = d.join("video.mp4");
    std::fs::write(&path, &video.bytes).expect("write video");
    let probe = media::probe(&path);
    let v = media::stream(&probe, "video");
    assert_eq!(v["codec_name"], "h264");
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(720), Some(1280))
    );
    let duration = media::num(&probe["format"]["duration"]);
    assert!((duration - 10.0).abs() <= 0.1, "{duration}");
    assert_upright(&path, 0, "uploaded iPhone-style HEIC, first frame");
    assert_upright(
        &path,
        160,
        "fetched EXIF-turned HEIC, its clip's 10th frame",
    );

    // Damaged: the picture data ends half way. The video fails on the field, saying why.
    let id = create(&app, &key, &[&fetched, &server.url("/cut.heic")]).await;
    let failed = wait_final(&app, &key, &id).await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert_eq!(failed["error"]["code"], "media_unsupported", "{failed}");
    assert_eq!(failed["error"]["field"], "image_inputs[1].image_url");
    let message = failed["error"]["message"].as_str().expect("message");
    assert!(
        message.starts_with("the HEIC image at 127.0.0.1 could not be decoded: "),
        "{message}"
    );

    // An upload whose header does not read is refused at once.
    let mut garbage = iphone[..40].to_vec();
    garbage.resize(4000, 0);
    let r = upload(&app, &key, "image/heic", garbage).await;
    r.assert_error(422, "invalid_media");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the image is damaged")),
        "{}",
        r.json
    );

    // A grid held to the cap by the size it assembles (its ispe says 1000 × 1000), and a file
    // of two pictures: refused at once, before anything decodes them.
    let r = upload(
        &app,
        &key,
        "image/heic",
        heic::grid((1000, 1000), (16_384, 16_384)),
    )
    .await;
    r.assert_error(422, "invalid_media");
    assert_eq!(
        r.json["error"]["message"],
        "the image is 16384×16384 pixels; the limit is 50 megapixels"
    );
    let two = std::fs::read(heic::two_pictures(d, "two.heic")).expect("read");
    let r = upload(&app, &key, "image/heic", two).await;
    r.assert_error(422, "invalid_media");
    assert_eq!(
        r.json["error"]["message"],
        "the HEIC file holds 2 pictures; send one picture per file"
    );

    workers.shutdown().await;
    app.stop().await;
}

async fn heic_over_the_pixel_cap_is_refused_as_a_png_is(app: TestApp) {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let heic =
        std::fs::read(heic::two_bands(d, "big.heic", 480, 640, Stored::IrotTurned)).expect("read");
    let png = std::fs::read(media::picture(d, "big.png", 480, 640)).expect("read");
    let server = TestServer::start(
        "127.0.0.1",
        served(vec![
            ("/big.heic", "image/heic", heic.clone()),
            ("/big.png", "image/png", png.clone()),
        ]),
    )
    .await;
    let (app, workers) = rendering_app(app).await;
    let key = app.account().await.api_key;

    // Uploaded: the same status, code and message as the PNG (the header's stored size).
    let heic_answer = upload(&app, &key, "image/heic", heic).await;
    let png_answer = upload(&app, &key, "image/png", png).await;
    png_answer.assert_error(422, "invalid_media");
    heic_answer.assert_error(422, "invalid_media");
    assert_eq!(
        png_answer.json["error"]["message"],
        "the image is 480×640 pixels; the limit is 0.2 megapixels"
    );
    // The HEIC stores its pixels sideways (640 × 480) and turns them with irot.
    assert_eq!(
        heic_answer.json["error"]["message"],
        "the image is 480×640 pixels; the limit is 0.2 megapixels"
    );

    // Fetched: both videos fail with media_too_large on the field, in the same words.
    for name in ["/big.png", "/big.heic"] {
        let id = create(&app, &key, &[&server.url(name)]).await;
        let failed = wait_final(&app, &key, &id).await;
        assert_eq!(failed["status"], "error", "{name}: {failed}");
        assert_eq!(failed["error"]["code"], "media_too_large", "{name}");
        assert_eq!(failed["error"]["field"], "image_inputs[0].image_url");
        assert_eq!(
            failed["error"]["message"],
            "image_inputs[0].image_url is 480×640 pixels (0.307 megapixels); the limit is 0.2 megapixels",
            "{name}"
        );
    }

    workers.shutdown().await;
    app.stop().await;
}
