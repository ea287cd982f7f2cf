//! The free-space guard (`STILLREEL_MIN_FREE_BYTES`) over HTTP, on SQLite and PostgreSQL: set
//! to more than any disk has, the three requests that create files answer 507
//! `insufficient_storage` and create nothing, and `/readyz` says not ready, and why.

mod common;

use hyper::Method;
use serde_json::{Value, json};
use stillreel_server::config::Config;

use common::{Resp, TestApp, combine_body, create_body};

both_backends!(
    mod full, configured by full_disk:
    work_is_refused_and_readyz_is_not_ready,
);
both_backends!(
    mod off, configured by guard_off:
    zero_turns_the_guard_off,
);

/// A line no file system reaches: the guard trips on any disk.
fn full_disk(config: &mut Config) {
    config.min_free_bytes = u64::MAX / 2;
}

fn guard_off(config: &mut Config) {
    config.min_free_bytes = 0;
}

/// The file's first bytes of a PNG: never read, the guard answers before the body.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn assert_out_of_space(r: &Resp, what: &str) {
    assert_eq!(r.status, 507, "{what}: {}", r.json);
    assert_eq!(r.json["error"]["code"], "insufficient_storage", "{what}");
    assert_eq!(
        r.json["error"]["message"],
        "the server is out of disk space, so nothing was created; try again later",
        "{what}"
    );
    assert_eq!(r.json["error"]["details"], json!([]), "{what}");
}

async fn work_is_refused_and_readyz_is_not_ready(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;

    // With an Idempotency-Key too.
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &create_body(1),
            &[("idempotency-key", "full-1")],
        )
        .await;
    assert_out_of_space(&r, "create_video");
    let r = app.post("/api/v1/create_video", key, &create_body(1)).await;
    assert_out_of_space(&r, "create_video");
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &combine_body(&[uuid::Uuid::new_v4(), uuid::Uuid::new_v4()]),
        )
        .await;
    assert_out_of_space(&r, "combine_video_clips");
    let r = app
        .request(
            Method::POST,
            "/api/v1/upload_media",
            &[("authorization", key), ("content-type", "image/png")],
            Some(PNG_SIGNATURE.to_vec()),
        )
        .await;
    assert_out_of_space(&r, "upload_media");

    // Nothing was created: no video, no upload, no file.
    let videos = app.get("/api/v1/get_videos", key).await;
    assert_eq!(videos.status, 200, "{}", videos.json);
    assert_eq!(videos.json["videos"], json!([]));
    let uploads = app.get("/api/v1/get_uploads", key).await;
    assert_eq!(uploads.status, 200, "{}", uploads.json);
    assert_eq!(uploads.json["uploads"], json!([]));
    let data = &app.state.config.data_dir;
    for folder in ["media", "uploads-tmp", "work"] {
        let files = std::fs::read_dir(data.join(folder)).map_or(0, Iterator::count);
        assert_eq!(files, 0, "{}", data.join(folder).display());
    }

    // A key is still checked first.
    let r = app
        .post("/api/v1/create_video", "sk_unknown", &create_body(1))
        .await;
    assert_eq!(r.status, 401, "{}", r.json);

    let r = app.request(Method::GET, "/readyz", &[], None).await;
    assert_eq!(r.status, 503, "{}", r.json);
    assert_eq!(r.json["error"]["code"], "unavailable");
    let message = r.json["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        message,
        "the service is not ready: the server is out of disk space (less free than STILLREEL_MIN_FREE_BYTES)"
    );
    // Still alive, only not ready.
    let r = app.request(Method::GET, "/healthz", &[], None).await;
    assert_eq!(r.status, 200);
}

async fn zero_turns_the_guard_off(app: TestApp) {
    let acct = app.account().await;
    let r = app
        .post("/api/v1/create_video", &acct.api_key, &create_body(1))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let r = app.request(Method::GET, "/readyz", &[], None).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["status"], Value::from("ready"));
}
