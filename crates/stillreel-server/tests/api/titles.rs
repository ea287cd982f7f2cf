//! Video titles: cleaned by the core, echoed on every record (the POSTs, `get_video`,
//! `get_videos`), and found by `get_videos?q=` ignoring case, with `%` and `_` taken literally.

use serde_json::{Value, json};

use crate::common::{TestApp, combine_body, create_body};
use crate::{render_all, uuid_of};

crate::both_backends!(
    titles_are_cleaned_and_echoed_on_every_record,
    q_finds_titles_ignoring_case_and_wildcards,
);

/// `text` as a query-string value: every byte but unreserved ASCII percent-encoded.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn titled(title: &str) -> Value {
    let mut body = create_body(1);
    body["title"] = json!(title);
    body
}

fn titles(page: &Value) -> Vec<String> {
    page["videos"]
        .as_array()
        .unwrap_or_else(|| panic!("no videos in {page}"))
        .iter()
        .map(|v| v["title"].as_str().unwrap_or("<none>").to_owned())
        .collect()
}

async fn titles_are_cleaned_and_echoed_on_every_record(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    // Control and bidi characters go, a newline becomes a space, the ends are trimmed.
    let created = app
        .post(
            "/api/v1/create_video",
            key,
            &titled("  12 Oak Lane\nOpen house\u{202E}\u{7} "),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.json);
    assert_eq!(created.json["title"], "12 Oak Lane Open house");
    let id = uuid_of(&created);
    let got = app.get(&format!("/api/v1/get_video?uuid={id}"), key).await;
    assert_eq!(got.json["title"], "12 Oak Lane Open house");
    let listed = app.get("/api/v1/get_videos", key).await;
    assert_eq!(listed.json["videos"][0]["title"], "12 Oak Lane Open house");

    // Without a title the record says null.
    let plain = app.post("/api/v1/create_video", key, &create_body(1)).await;
    assert_eq!(plain.status, 200, "{}", plain.json);
    assert_eq!(plain.json["title"], Value::Null);
    assert!(
        plain
            .json
            .as_object()
            .is_some_and(|o| o.contains_key("title"))
    );

    // A combine takes one too.
    let clips = render_all(&app, id).await;
    let mut body = combine_body(&clips);
    body["title"] = json!("\tOak Lane, the tour ");
    let combined = app.post("/api/v1/combine_video_clips", key, &body).await;
    assert_eq!(combined.status, 200, "{}", combined.json);
    assert_eq!(combined.json["title"], "Oak Lane, the tour");
    let got = app
        .get(
            &format!("/api/v1/get_video?uuid={}", uuid_of(&combined)),
            key,
        )
        .await;
    assert_eq!(got.json["title"], "Oak Lane, the tour");

    // Too long, empty, or nothing left after cleaning: 422 at `title`, with the core's codes.
    let r = app
        .post("/api/v1/create_video", key, &titled(&"é".repeat(121)))
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(r.details(), [("title".to_owned(), "too_long".to_owned())]);
    let ok = app
        .post("/api/v1/create_video", key, &titled(&"é".repeat(120)))
        .await;
    assert_eq!(ok.status, 200, "120 characters fit: {}", ok.json);
    let r = app.post("/api/v1/create_video", key, &titled(" ")).await;
    assert_eq!(r.details(), [("title".to_owned(), "empty".to_owned())]);
    let r = app
        .post("/api/v1/create_video", key, &titled("\u{202E}\u{0}"))
        .await;
    assert_eq!(
        r.details(),
        [("title".to_owned(), "empty_after_sanitizing".to_owned())]
    );
    let mut body = combine_body(&clips);
    body["title"] = json!(["not", "text"]);
    let r = app.post("/api/v1/combine_video_clips", key, &body).await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        [("title".to_owned(), "invalid_type".to_owned())]
    );
}

/// The titles `get_videos?q=<q>` lists.
async fn search(app: &TestApp, key: &str, q: &str) -> Vec<String> {
    let r = app
        .get(&format!("/api/v1/get_videos?q={}", encode(q)), key)
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    titles(&r.json)
}

async fn q_finds_titles_ignoring_case_and_wildcards(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    for title in [
        "50% off Oak Lane",
        "500 off Elm Street",
        "Sunny_Side",
        "sunnyXside",
        "Été à Paris",
        "OAK manor",
    ] {
        let r = app.post("/api/v1/create_video", key, &titled(title)).await;
        assert_eq!(r.status, 200, "{}", r.json);
    }
    app.post("/api/v1/create_video", key, &create_body(1)).await;
    // Another account's matching title never shows.
    let other = app.account().await;
    app.post(
        "/api/v1/create_video",
        &other.api_key,
        &titled("Oak cottage"),
    )
    .await;

    // Case-insensitive, newest first; videos without a title never match.
    assert_eq!(
        search(&app, key, "oak").await,
        ["OAK manor", "50% off Oak Lane"]
    );
    assert_eq!(search(&app, key, "OAK LANE").await, ["50% off Oak Lane"]);
    // Beyond ASCII too, on both backends.
    assert_eq!(search(&app, key, "ÉTÉ").await, ["Été à Paris"]);
    assert_eq!(search(&app, key, "été à").await, ["Été à Paris"]);
    // `%` and `_` are the characters themselves, not LIKE wildcards.
    assert_eq!(search(&app, key, "50%").await, ["50% off Oak Lane"]);
    assert_eq!(search(&app, key, "%").await, ["50% off Oak Lane"]);
    assert_eq!(search(&app, key, "y_s").await, ["Sunny_Side"]);
    assert_eq!(search(&app, key, "_").await, ["Sunny_Side"]);
    assert!(search(&app, key, "\\").await.is_empty());
    assert!(search(&app, key, "cottage").await.is_empty());
    // Characters a title cannot hold are dropped from the search (a NUL included, which
    // PostgreSQL would refuse in a text parameter).
    assert_eq!(
        search(&app, key, "oak\0 m\u{202E}anor").await,
        ["OAK manor"]
    );
    // An empty q lists everything.
    let all = app.get("/api/v1/get_videos?q=", key).await;
    assert_eq!(all.json["videos"].as_array().map(Vec::len), Some(7));

    // Pages of a search continue with its cursor.
    let first = app.get("/api/v1/get_videos?q=OFF&limit=1", key).await;
    assert_eq!(titles(&first.json), ["500 off Elm Street"]);
    let cursor = first.json["next_cursor"].as_str().expect("a next page");
    let second = app
        .get(
            &format!("/api/v1/get_videos?q=OFF&limit=1&cursor={cursor}"),
            key,
        )
        .await;
    assert_eq!(titles(&second.json), ["50% off Oak Lane"]);
    assert_eq!(second.json["next_cursor"], Value::Null);

    // q is bounded: a title's 120 characters at most.
    let long = app
        .get(&format!("/api/v1/get_videos?q={}", "x".repeat(121)), key)
        .await;
    long.assert_error(422, "validation_failed");
    assert_eq!(long.details(), [("q".to_owned(), "too_long".to_owned())]);
    let fits = app
        .get(&format!("/api/v1/get_videos?q={}", "x".repeat(120)), key)
        .await;
    assert_eq!(fits.status, 200, "{}", fits.json);
}
