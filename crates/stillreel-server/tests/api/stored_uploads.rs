//! `GET /get_uploads` and `POST /delete_upload`: pages newest first as `upload_media`
//! answered them, and deletion that frees the quota and the stored file, refused while a
//! queued or rendering video uses the file (however its URL is spelled) and for another
//! account's upload.

use axum::http::Method;
use serde_json::{Value, json};
use stillreel_core::builder::CreateVideoBuilder;
use stillreel_server::repo::render;

use crate::common::{TestApp, json_body};
use crate::{records, render_all, uuid_of};

crate::both_backends!(
    uploads_are_listed_newest_first_a_page_at_a_time,
    deleting_an_upload_frees_its_quota_and_its_file,
    an_upload_a_queued_video_uses_is_kept,
    an_upload_is_kept_however_a_queued_video_spells_its_url,
);

fn sample(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn upload(app: &TestApp, key: &str, content_type: &str, bytes: Vec<u8>) -> Value {
    let r = app
        .request(
            Method::POST,
            "/api/v1/upload_media",
            &[("authorization", key), ("content-type", content_type)],
            Some(bytes),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json
}

/// The path of one of our URLs, to GET it from the test server.
fn path_of<'a>(app: &TestApp, url: &'a str) -> &'a str {
    url.strip_prefix(&app.state.config.public_url)
        .unwrap_or_else(|| panic!("not our URL: {url}"))
}

async fn usage(app: &TestApp, account: uuid::Uuid) -> u64 {
    stillreel_server::repo::uploads::usage(app.db(), account)
        .await
        .expect("usage")
        .1
}

async fn uploads_are_listed_newest_first_a_page_at_a_time(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let empty = app.get("/api/v1/get_uploads", key).await;
    assert_eq!(empty.status, 200, "{}", empty.json);
    assert_eq!(empty.json, json!({"uploads": [], "next_cursor": null}));

    let mut made = Vec::new();
    for (name, media_type) in [
        ("house-colonial.jpg", "image/jpeg"),
        ("logo.png", "image/png"),
        ("house-modern.webp", "image/webp"),
    ] {
        made.push(upload(&app, key, media_type, sample(name)).await);
        // Distinct milliseconds, so "newest first" is the order they were sent in.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    // Another account's uploads never show.
    let other = app.account().await;
    upload(&app, &other.api_key, "image/png", sample("logo.png")).await;

    let first = app.get("/api/v1/get_uploads?limit=2", key).await;
    assert_eq!(first.status, 200, "{}", first.json);
    // Each element is what upload_media answered, created_at included.
    assert_eq!(first.json["uploads"], json!([made[2], made[1]]));
    assert!(
        made[0]["created_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    let cursor = first.json["next_cursor"].as_str().expect("a next page");
    let second = app
        .get(&format!("/api/v1/get_uploads?limit=2&cursor={cursor}"), key)
        .await;
    assert_eq!(second.json["uploads"], json!([made[0]]));
    assert_eq!(second.json["next_cursor"], Value::Null);
    // The default page holds all three.
    let all = app.get("/api/v1/get_uploads", key).await;
    assert_eq!(all.json["uploads"], json!([made[2], made[1], made[0]]));

    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=two", "limit"),
        ("cursor=nope", "cursor"),
    ] {
        let r = app.get(&format!("/api/v1/get_uploads?{query}"), key).await;
        r.assert_error(422, "validation_failed");
        assert_eq!(r.details()[0].0, field, "{query}");
    }
    let r = app.get("/api/v1/get_uploads", "not a key").await;
    r.assert_error(401, "unauthorized");
}

async fn deleting_an_upload_frees_its_quota_and_its_file(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let jpeg = sample("house-colonial.jpg");
    let up = upload(&app, key, "image/jpeg", jpeg.clone()).await;
    let id = up["uuid"].as_str().expect("uuid").to_owned();
    let url = up["url"].as_str().expect("url").to_owned();
    assert_eq!(usage(&app, acct.account).await, jpeg.len() as u64);

    // Another account cannot delete it, and cannot tell it exists.
    let other = app.account().await;
    let r = app
        .post(
            "/api/v1/delete_upload",
            &other.api_key,
            &json!({"uuid": id}),
        )
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(r.details(), [("uuid".to_owned(), "not_found".to_owned())]);
    let served = app
        .request(Method::GET, path_of(&app, &url), &[], None)
        .await;
    assert_eq!(served.status, 200, "still stored");

    let r = app
        .post("/api/v1/delete_upload", key, &json!({"uuid": id}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json, json!({"uuid": id, "deleted": true}));
    // The bytes no longer count, the file is gone, and the listing forgets it.
    assert_eq!(usage(&app, acct.account).await, 0);
    let served = app
        .request(Method::GET, path_of(&app, &url), &[], None)
        .await;
    assert_eq!(served.status, 404, "the stored object is removed");
    let list = app.get("/api/v1/get_uploads", key).await;
    assert_eq!(list.json["uploads"], json!([]));
    // Deleting again, or an id never issued: 404 in the standard envelope.
    let r = app
        .post("/api/v1/delete_upload", key, &json!({"uuid": id}))
        .await;
    r.assert_error(404, "not_found");
    let r = app
        .post(
            "/api/v1/delete_upload",
            key,
            &json!({"uuid": uuid::Uuid::new_v4()}),
        )
        .await;
    r.assert_error(404, "not_found");

    // The freed room takes a new upload that the quota refused before.
    crate::uploads::set_quota(&app, acct.account, jpeg.len() as i64 + 10).await;
    let kept = upload(&app, key, "image/jpeg", jpeg.clone()).await;
    let r = app
        .request(
            Method::POST,
            "/api/v1/upload_media",
            &[("authorization", key), ("content-type", "image/jpeg")],
            Some(jpeg.clone()),
        )
        .await;
    r.assert_error(413, "upload_quota_exceeded");
    let r = app
        .post("/api/v1/delete_upload", key, &json!({"uuid": kept["uuid"]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    upload(&app, key, "image/jpeg", jpeg).await;

    // Bodies are checked like every other.
    for (body, field, code) in [
        (json!({}), "uuid", "required"),
        (json!({"uuid": "nope"}), "uuid", "invalid_uuid"),
        (json!({"uuid": 7}), "uuid", "invalid_type"),
        (json!({"uuid": id, "force": true}), "force", "unknown_field"),
    ] {
        let r = app.post("/api/v1/delete_upload", key, &body).await;
        r.assert_error(422, "validation_failed");
        assert_eq!(r.details(), [(field.to_owned(), code.to_owned())], "{body}");
    }
    let r = app
        .post("/api/v1/delete_upload", key, &json!(["not", "an object"]))
        .await;
    r.assert_error(400, "malformed_json");
}

async fn an_upload_a_queued_video_uses_is_kept(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let photo = upload(&app, key, "image/jpeg", sample("house-colonial.jpg")).await;
    let photo_url = photo["url"].as_str().expect("url").to_owned();
    let logo = upload(&app, key, "image/png", sample("logo.png")).await;
    let unused = upload(&app, key, "image/png", sample("logo.png")).await;

    // The photo as an image, the logo in the branding's intro.
    let mut body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([photo_url.as_str()])
            .build(),
    );
    body["branding"] = json!({"intro": {"template": "intro-lower-third",
        "config": {"address": {"value": "12 Oak Lane"}, "logo": {"url": logo["url"]}}}});
    let video = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(video.status, 200, "{}", video.json);
    let video_id = uuid_of(&video);

    let delete = |upload: &Value| json!({"uuid": upload["uuid"]});
    let r = app
        .post("/api/v1/delete_upload", key, &delete(&photo))
        .await;
    r.assert_error(409, "upload_in_use");
    let r = app.post("/api/v1/delete_upload", key, &delete(&logo)).await;
    r.assert_error(409, "upload_in_use");
    let served = app
        .request(Method::GET, path_of(&app, &photo_url), &[], None)
        .await;
    assert_eq!(served.status, 200, "kept while in use");
    // A file no video uses goes at once.
    let r = app
        .post("/api/v1/delete_upload", key, &delete(&unused))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);

    // The main video complete, its branded render still queued: the logo is still needed.
    render_all(&app, video_id).await;
    let r = app.post("/api/v1/delete_upload", key, &delete(&logo)).await;
    r.assert_error(409, "upload_in_use");
    assert!(render::start_branding(app.db(), video_id).await.expect("b"));
    assert!(records::complete_branding(app.db(), video_id, "videos/v/branded.mp4", false).await);
    for upload in [&photo, &logo] {
        let r = app
            .post("/api/v1/delete_upload", key, &delete(upload))
            .await;
        assert_eq!(
            r.status, 200,
            "settled videos no longer hold it: {}",
            r.json
        );
    }
    assert_eq!(usage(&app, acct.account).await, 0);
}

async fn an_upload_is_kept_however_a_queued_video_spells_its_url(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    // Each spelling reads the same stored file through the fetcher's normalization.
    let spellings: [fn(&str, &str) -> String; 5] = [
        |folder, name| format!("{folder}/zz/../{name}"),
        |folder, name| format!("{folder}/zz/%2e%2e/{name}"),
        |folder, name| format!("{folder}/zz/%2E%2E/{name}"),
        |folder, name| format!("{folder}/./{name}"),
        |folder, name| {
            let at = folder.find("/files/").expect("files") + "/files".len();
            let (head, tail) = folder.split_at(at);
            format!("{head}{}\\{name}", tail.replace('/', "\\"))
        },
    ];
    for spell in spellings {
        let photo = upload(&app, key, "image/jpeg", sample("house-colonial.jpg")).await;
        let url = photo["url"].as_str().expect("url").to_owned();
        let (folder, name) = url.rsplit_once('/').expect("a path");
        let spelled = spell(folder, name);
        assert_ne!(spelled, url);
        let body = json_body(
            &CreateVideoBuilder::new()
                .image_urls([spelled.as_str()])
                .build(),
        );
        let video = app.post("/api/v1/create_video", key, &body).await;
        assert_eq!(video.status, 200, "{spelled}: {}", video.json);
        let r = app
            .post(
                "/api/v1/delete_upload",
                key,
                &json!({"uuid": photo["uuid"]}),
            )
            .await;
        r.assert_error(409, "upload_in_use");
        let served = app
            .request(Method::GET, path_of(&app, &url), &[], None)
            .await;
        assert_eq!(served.status, 200, "{spelled} keeps the file");
    }
}
