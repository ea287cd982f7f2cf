//! `POST /upload_media`: stored, served, counted against the quota; refused over the limits
//! and for what is not a picture or a sound.

use axum::http::Method;
use stillreel_core::builder::CreateVideoBuilder;

use crate::common::{TestApp, json_body};

crate::both_backends!(
    uploads_are_stored_served_and_usable,
    uploads_are_refused_with_their_codes,
    racing_uploads_never_exceed_the_quota,
    racing_uploads_over_http_never_exceed_the_quota,
);

fn sample(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn upload(
    app: &TestApp,
    key: &str,
    content_type: &str,
    bytes: Vec<u8>,
) -> crate::common::Resp {
    app.request(
        Method::POST,
        "/api/v1/upload_media",
        &[("authorization", key), ("content-type", content_type)],
        Some(bytes),
    )
    .await
}

async fn uploads_are_stored_served_and_usable(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let jpeg = sample("house-colonial.jpg");
    // The declared type only says "a picture"; the bytes decide which.
    let r = upload(&app, key, "image/png", jpeg.clone()).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["media_type"], "image/jpeg");
    assert_eq!(r.json["bytes"], jpeg.len() as u64);
    let url = r.json["url"].as_str().expect("url").to_owned();
    assert!(
        url.starts_with(&format!("{}/files/uploads/", app.state.config.public_url)),
        "{url}"
    );
    assert!(url.ends_with(".jpg"), "{url}");
    assert!(
        !url.contains(&acct.account.to_string()),
        "the account's uuid is not in the URL as is"
    );
    // Served back byte for byte.
    let path = url
        .strip_prefix(&app.state.config.public_url)
        .expect("our URL");
    let served = app.request(Method::GET, path, &[], None).await;
    assert_eq!(served.status, 200);
    assert_eq!(served.bytes.as_ref(), jpeg.as_slice());

    let png = upload(&app, key, "image/png", sample("logo.png")).await;
    assert_eq!(png.json["media_type"], "image/png", "{}", png.json);
    let webp = upload(&app, key, "image/webp", sample("house-modern.webp")).await;
    assert_eq!(webp.json["media_type"], "image/webp", "{}", webp.json);
    // A WAV soundtrack (a header and a little silence).
    let mut wav = Vec::new();
    let data = vec![0u8; 8000];
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&8u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data);
    let audio = upload(&app, key, "audio/wav", wav).await;
    assert_eq!(audio.status, 200, "{}", audio.json);
    assert_eq!(audio.json["media_type"], "audio/wav");
    let audio_url = audio.json["url"].as_str().expect("url").to_owned();

    // The URLs are what a request takes, and the record echoes the soundtrack.
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([url.as_str()])
            .audio(&audio_url)
            .build(),
    );
    let video = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(video.status, 200, "{}", video.json);
    assert_eq!(video.json["audio_url"], audio_url.as_str());
    assert_eq!(
        video.json["poster_url"],
        serde_json::Value::Null,
        "not made yet"
    );
}

async fn uploads_are_refused_with_their_codes(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let jpeg = sample("house-colonial.jpg");

    let r = upload(&app, key, "text/plain", jpeg.clone()).await;
    r.assert_error(415, "unsupported_media");
    let r = upload(
        &app,
        key,
        "image/jpeg",
        b"<!doctype html><p>not a picture</p>".to_vec(),
    )
    .await;
    r.assert_error(415, "unsupported_media");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("JPEG"),
        "{}",
        r.json
    );
    let r = upload(&app, key, "audio/mpeg", jpeg.clone()).await;
    r.assert_error(415, "unsupported_media");
    // A JPEG cut after its first bytes: recognised, but its header cannot be read.
    let r = upload(&app, key, "image/jpeg", jpeg[..64].to_vec()).await;
    r.assert_error(422, "invalid_media");
    // Refused before its body is read, so the server closes the connection after answering
    // (hyper does when a request body is left unread); `connection: close` keeps the test's
    // client from reusing it for the next upload, which raced the close (a broken pipe).
    let r = app
        .request(
            Method::POST,
            "/api/v1/upload_media",
            &[("content-type", "image/jpeg"), ("connection", "close")],
            Some(jpeg.clone()),
        )
        .await;
    r.assert_error(401, "unauthorized");

    // The account's quota: what is stored plus the new file.
    let sql_quota = jpeg.len() as i64 + 10;
    set_quota(&app, acct.account, sql_quota).await;
    let first = upload(&app, key, "image/jpeg", jpeg.clone()).await;
    assert_eq!(first.status, 200, "{}", first.json);
    let r = upload(&app, key, "image/jpeg", jpeg.clone()).await;
    r.assert_error(413, "upload_quota_exceeded");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("may keep"),
        "{}",
        r.json
    );
    // Another account is not charged for it.
    let other = app.account().await;
    let r = upload(&app, &other.api_key, "image/jpeg", jpeg.clone()).await;
    assert_eq!(r.status, 200, "{}", r.json);
}

/// Uploads recorded at the same moment: the quota leaves room for exactly one of them, and
/// exactly one is recorded, however the transactions interleave (on PostgreSQL, two that each
/// summed the stored bytes before the other's insert would both pass without the row lock).
async fn racing_uploads_never_exceed_the_quota(app: TestApp) {
    use stillreel_server::repo::uploads::{self, NewUpload};
    const FILE: u64 = 1_000_000;
    const RACERS: usize = 16;
    for round in 0..5 {
        let acct = app.account().await;
        set_quota(&app, acct.account, (FILE + FILE / 2) as i64).await;
        let tasks: Vec<_> = (0..RACERS)
            .map(|i| {
                let db = app.db().clone();
                let upload = NewUpload {
                    id: uuid::Uuid::new_v4(),
                    account: acct.account,
                    key: format!("uploads/{}/race-{round}-{i}.jpg", acct.account.simple()),
                    media_type: "image/jpeg",
                    bytes: FILE,
                    created_at: 0,
                };
                tokio::spawn(async move { uploads::record(&db, &upload).await })
            })
            .collect();
        let mut recorded = 0;
        for task in tasks {
            if task.await.expect("task").expect("record") {
                recorded += 1;
            }
        }
        assert_eq!(
            recorded, 1,
            "round {round}: {recorded} uploads were recorded"
        );
        let (quota, used) = uploads::usage(app.db(), acct.account).await.expect("usage");
        assert_eq!((quota, used), (FILE + FILE / 2, FILE), "round {round}");
    }
}

/// The same through the endpoint: several uploads of one account sent at once, room for one.
async fn racing_uploads_over_http_never_exceed_the_quota(app: TestApp) {
    let acct = app.account().await;
    let jpeg = sample("house-colonial.jpg");
    set_quota(&app, acct.account, (jpeg.len() + jpeg.len() / 2) as i64).await;
    let app = std::sync::Arc::new(app);
    let sends: Vec<_> = (0..6)
        .map(|_| {
            let (app, key, jpeg) = (app.clone(), acct.api_key.clone(), jpeg.clone());
            tokio::spawn(async move { upload(&app, &key, "image/jpeg", jpeg).await })
        })
        .collect();
    let mut stored = 0;
    for send in sends {
        let r = send.await.expect("task");
        if r.status == 200 {
            stored += 1;
        } else {
            r.assert_error(413, "upload_quota_exceeded");
        }
    }
    assert_eq!(stored, 1, "one upload fits in the quota");
    let (_, used) = stillreel_server::repo::uploads::usage(app.db(), acct.account)
        .await
        .expect("usage");
    assert_eq!(used, jpeg.len() as u64);
    // The refused ones left no file behind: only the stored one is under the account.
    let dir = app
        .state
        .config
        .data_dir
        .join("media/uploads")
        .join(acct.account.simple().to_string());
    let files = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(files, 1, "{}", dir.display());
}

pub async fn set_quota(app: &TestApp, account: uuid::Uuid, bytes: i64) {
    use stillreel_server::db::Db;
    match app.db() {
        Db::Sqlite { write, .. } => {
            sqlx::query("UPDATE accounts SET upload_quota_bytes = $1 WHERE id = $2")
                .bind(bytes)
                .bind(account)
                .execute(write)
                .await
                .expect("quota");
        }
        Db::Postgres(pool) => {
            sqlx::query("UPDATE accounts SET upload_quota_bytes = $1 WHERE id = $2")
                .bind(bytes)
                .bind(account)
                .execute(pool)
                .await
                .expect("quota");
        }
    }
}

/// The media limits of the deployment apply: bytes (refused from `Content-Length`, before the
/// body is read) and pixels (from the header).
mod limits {
    use super::*;

    fn small_limits(config: &mut stillreel_server::config::Config) {
        config.limits.max_image_bytes = 100_000;
        config.limits.max_pixels = 10_000;
    }

    crate::both_backends!(mod small, configured by small_limits: limits_of_fetched_media_apply,);

    async fn limits_of_fetched_media_apply(app: TestApp) {
        let acct = app.account().await;
        let key = &acct.api_key;
        let r = upload(&app, key, "image/jpeg", sample("house-colonial.jpg")).await;
        r.assert_error(413, "media_too_large");
        // headshot.jpg is under 100 kB but has more than 10,000 pixels.
        let r = upload(&app, key, "image/jpeg", sample("headshot.jpg")).await;
        r.assert_error(422, "invalid_media");
        assert!(
            r.json["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("megapixels"),
            "{}",
            r.json
        );
    }
}
