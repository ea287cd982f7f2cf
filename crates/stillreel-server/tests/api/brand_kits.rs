//! Brand kits: saved, listed, updated, applied to a create or a combine with overrides, and
//! validated with the core's codes.

use serde_json::json;

use crate::common::{TestApp, combine_body, create_body};
use crate::{render_all, uuid_of};

crate::both_backends!(
    brand_kits_are_saved_and_applied,
    brand_kit_errors,
    deleting_a_kit_leaves_its_queued_videos_as_made,
    an_account_keeps_at_most_the_limit_of_kits,
    brand_kits_are_listed_a_page_at_a_time,
);

fn kit() -> serde_json::Value {
    json!({
        "name": " Acme Realty ",
        "intro": {"template": "intro-lower-third",
                  "config": {"address": {"value": "12 Oak Lane"}, "agent_name": {"value": "Ana Díaz"}}},
        "outro": {"template": "outro-contact-card",
                  "config": {"agent_name": {"value": "Ana Díaz"}, "phone": {"value": "+1 555 0100"}}},
        "speed_ramp": true,
        "audio_url": "https://cdn.example.com/theme.mp3"
    })
}

async fn brand_kits_are_saved_and_applied(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let r = app.post("/api/v1/create_brand_kit", key, &kit()).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["name"], "Acme Realty");
    assert_eq!(r.json["speed_ramp"], true);
    assert_eq!(r.json["audio_url"], "https://cdn.example.com/theme.mp3");
    let id = uuid_of(&r);
    let list = app.get("/api/v1/get_brand_kits", key).await;
    assert_eq!(list.json["brand_kits"].as_array().map(Vec::len), Some(1));
    assert_eq!(list.json["brand_kits"][0], r.json);
    let other = app.account().await;
    let theirs = app.get("/api/v1/get_brand_kits", &other.api_key).await;
    assert_eq!(theirs.json, json!({"brand_kits": [], "next_cursor": null}));

    // A create that names the kit gets all of it.
    let mut body = create_body(2);
    body["branding"] = json!({"brand_kit": id.to_string()});
    let video = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(video.status, 200, "{}", video.json);
    assert_eq!(video.json["audio_url"], "https://cdn.example.com/theme.mp3");
    let b = &video.json["branding"];
    assert_eq!(b["speed_ramp"], true);
    assert_eq!(b["templates"]["intro"], kit()["intro"]);
    assert_eq!(b["templates"]["outro"], kit()["outro"]);
    // get_video shows the same, and so does what the renderer reads.
    let again = app
        .get(&format!("/api/v1/get_video?uuid={}", uuid_of(&video)), key)
        .await;
    assert_eq!(again.json["branding"]["templates"], b["templates"]);
    let input = stillreel_server::repo::render::render_input(app.db(), uuid_of(&video))
        .await
        .expect("input")
        .expect("exists");
    let stillreel_server::repo::render::RenderSource::Create { request, .. } = input.source else {
        panic!("a create video")
    };
    assert_eq!(
        request.audio_url.as_deref(),
        Some("https://cdn.example.com/theme.mp3")
    );
    let stored = request.branding.expect("branding");
    assert_eq!(stored.brand_kit, None, "resolved before it is stored");
    assert_eq!(
        stored.intro.map(|s| s.template),
        Some("intro-lower-third".to_owned())
    );

    // Members beside the kit replace the kit's; the request's own music wins.
    let mut body = create_body(1);
    body["audio_url"] = json!("https://cdn.example.com/other.mp3");
    body["branding"] = json!({"brand_kit": id.to_string(),
        "outro": {"template": "outro-minimal", "config": {"brokerage": {"value": "Oak & Co"}}}});
    let video = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(video.status, 200, "{}", video.json);
    assert_eq!(video.json["audio_url"], "https://cdn.example.com/other.mp3");
    let b = &video.json["branding"];
    assert_eq!(b["templates"]["intro"], kit()["intro"]);
    assert_eq!(b["templates"]["outro"]["template"], "outro-minimal");
    assert_eq!(
        b["speed_ramp"], false,
        "one clip: the ramp takes effect with two or more"
    );

    // Combine takes a kit too.
    let made = uuid_of(&app.post("/api/v1/create_video", key, &create_body(2)).await);
    let clips = render_all(&app, made).await;
    let mut body = combine_body(&clips);
    body["branding"] = json!({"brand_kit": id.to_string()});
    let combined = app.post("/api/v1/combine_video_clips", key, &body).await;
    assert_eq!(combined.status, 200, "{}", combined.json);
    assert_eq!(
        combined.json["branding"]["templates"]["outro"],
        kit()["outro"]
    );
    assert_eq!(
        combined.json["audio_url"],
        "https://cdn.example.com/theme.mp3"
    );

    // An update replaces the kit; videos made before keep what they were made with.
    let r = app
        .post(
            "/api/v1/update_brand_kit",
            key,
            &json!({"uuid": id.to_string(), "name": "Acme", "speed_ramp": false}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["name"], "Acme");
    assert_eq!(r.json.get("intro"), None);
    assert_eq!(r.json["audio_url"], serde_json::Value::Null);
    assert_eq!(
        r.json["created_at"],
        list.json["brand_kits"][0]["created_at"]
    );
    let again = app
        .get(
            &format!("/api/v1/get_video?uuid={}", uuid_of(&combined)),
            key,
        )
        .await;
    assert_eq!(again.json["branding"]["templates"]["outro"], kit()["outro"]);
    // A kit that now asks for nothing gives a video without branding.
    let mut body = create_body(1);
    body["branding"] = json!({"brand_kit": id.to_string()});
    let plain = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(plain.status, 200, "{}", plain.json);
    assert_eq!(plain.json.get("branding"), None, "{}", plain.json);
}

async fn brand_kit_errors(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let r = app
        .post(
            "/api/v1/create_brand_kit",
            key,
            &json!({"intro": {"template": "outro-minimal"}, "brand_kit": "x", "audio_url": "ftp://a/b"}),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        // Document order; serde_json writes the members sorted.
        vec![
            ("audio_url".to_owned(), "invalid_url".to_owned()),
            ("brand_kit".to_owned(), "unknown_field".to_owned()),
            (
                "intro.template".to_owned(),
                "template_slot_mismatch".to_owned()
            ),
            ("name".to_owned(), "required".to_owned()),
        ]
    );
    // Unknown and foreign kits are one case: 404 on the field.
    let theirs = app.account().await;
    let foreign = uuid_of(
        &app.post("/api/v1/create_brand_kit", &theirs.api_key, &kit())
            .await,
    );
    for id in [uuid::Uuid::new_v4(), foreign] {
        let mut body = create_body(1);
        body["branding"] = json!({"brand_kit": id.to_string()});
        let r = app.post("/api/v1/create_video", key, &body).await;
        r.assert_error(404, "not_found");
        assert_eq!(
            r.details(),
            vec![("branding.brand_kit".to_owned(), "not_found".to_owned())]
        );
        let r = app
            .post(
                "/api/v1/update_brand_kit",
                key,
                &json!({"uuid": id.to_string(), "name": "x"}),
            )
            .await;
        assert_eq!(
            r.details(),
            vec![("uuid".to_owned(), "not_found".to_owned())]
        );
    }
    let mut body = create_body(1);
    body["branding"] = json!({"brand_kit": "not-a-uuid"});
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(
        r.details(),
        vec![("branding.brand_kit".to_owned(), "invalid_uuid".to_owned())]
    );
    let r = app
        .post("/api/v1/update_brand_kit", key, &json!({"name": ""}))
        .await;
    assert_eq!(
        r.details(),
        vec![
            ("name".to_owned(), "empty".to_owned()),
            ("uuid".to_owned(), "required".to_owned())
        ]
    );
}

/// A kit is copied into each video when the video is created, so deleting it is never refused
/// and changes nothing for videos queued with it; requests that name it afterwards get 404.
async fn deleting_a_kit_leaves_its_queued_videos_as_made(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let kit_id = uuid_of(&app.post("/api/v1/create_brand_kit", key, &kit()).await);
    let mut body = create_body(2);
    body["branding"] = json!({"brand_kit": kit_id.to_string()});
    let video = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(video.status, 200, "{}", video.json);
    assert_eq!(video.json["status"], "queued");

    // Another account cannot delete it, and cannot tell it exists.
    let other = app.account().await;
    let r = app
        .post(
            "/api/v1/delete_brand_kit",
            &other.api_key,
            &json!({"uuid": kit_id}),
        )
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(r.details(), [("uuid".to_owned(), "not_found".to_owned())]);

    let r = app
        .post("/api/v1/delete_brand_kit", key, &json!({"uuid": kit_id}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json, json!({"uuid": kit_id, "deleted": true}));
    let list = app.get("/api/v1/get_brand_kits", key).await;
    assert_eq!(list.json, json!({"brand_kits": [], "next_cursor": null}));
    // The queued video keeps the kit's branding and music, in its record and in what the
    // renderer reads.
    let again = app
        .get(&format!("/api/v1/get_video?uuid={}", uuid_of(&video)), key)
        .await;
    assert_eq!(again.json["branding"], video.json["branding"]);
    assert_eq!(again.json["audio_url"], "https://cdn.example.com/theme.mp3");
    let input = stillreel_server::repo::render::render_input(app.db(), uuid_of(&video))
        .await
        .expect("input")
        .expect("exists");
    let stillreel_server::repo::render::RenderSource::Create { request, .. } = input.source else {
        panic!("a create video")
    };
    assert_eq!(
        request.branding.and_then(|b| b.outro).map(|s| s.template),
        Some("outro-contact-card".to_owned())
    );

    // Gone: naming it again, or deleting it again, is 404.
    let r = app.post("/api/v1/create_video", key, &body).await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        [("branding.brand_kit".to_owned(), "not_found".to_owned())]
    );
    let r = app
        .post("/api/v1/delete_brand_kit", key, &json!({"uuid": kit_id}))
        .await;
    r.assert_error(404, "not_found");
    let r = app
        .post("/api/v1/delete_brand_kit", key, &json!({"uuid": "nope"}))
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        [("uuid".to_owned(), "invalid_uuid".to_owned())]
    );
}

/// Kits past `MAX_BRAND_KITS` are refused with 409 `brand_kit_limit`, also when the last
/// places are taken by requests sent at once; a deleted kit frees its place.
async fn an_account_keeps_at_most_the_limit_of_kits(app: TestApp) {
    use stillreel_server::repo::brand_kits::MAX_BRAND_KITS;
    let acct = app.account().await;
    let key = &acct.api_key;
    let limit = usize::try_from(MAX_BRAND_KITS).expect("limit");
    for _ in 0..limit - 3 {
        let r = app.post("/api/v1/create_brand_kit", key, &kit()).await;
        assert_eq!(r.status, 200, "{}", r.json);
    }
    let body = kit();
    let answers = futures_util::future::join_all(
        (0..8).map(|_| app.post("/api/v1/create_brand_kit", key, &body)),
    )
    .await;
    let made = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(made, 3, "three places were left");
    for r in answers.iter().filter(|r| r.status != 200) {
        r.assert_error(409, "brand_kit_limit");
    }
    let list = app.get("/api/v1/get_brand_kits?limit=100", key).await;
    assert_eq!(
        list.json["brand_kits"].as_array().map(Vec::len),
        Some(limit)
    );
    assert_eq!(list.json["next_cursor"], serde_json::Value::Null);
    let first = list.json["brand_kits"][0]["uuid"].clone();
    let r = app
        .post("/api/v1/delete_brand_kit", key, &json!({"uuid": first}))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let r = app.post("/api/v1/create_brand_kit", key, &kit()).await;
    assert_eq!(r.status, 200, "{}", r.json);
    // Another account has its own places.
    let other = app.account().await;
    let r = app
        .post("/api/v1/create_brand_kit", &other.api_key, &kit())
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
}

/// `get_brand_kits` pages like `get_uploads`: oldest first, `limit` per page, the cursor
/// continuing after the last kit listed (a kit saved meanwhile comes on a later page), and a
/// bad `limit` or `cursor` is 422 at that parameter.
async fn brand_kits_are_listed_a_page_at_a_time(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let mut made = Vec::new();
    for i in 0..25 {
        let mut body = kit();
        body["name"] = json!(format!("Kit {i}"));
        let r = app.post("/api/v1/create_brand_kit", key, &body).await;
        assert_eq!(r.status, 200, "{}", r.json);
        made.push(r.json["uuid"].clone());
    }
    let uuids = |r: &crate::common::Resp| -> Vec<serde_json::Value> {
        r.json["brand_kits"]
            .as_array()
            .map(|kits| kits.iter().map(|k| k["uuid"].clone()).collect())
            .unwrap_or_default()
    };
    // The default page is 20, oldest first.
    let first = app.get("/api/v1/get_brand_kits", key).await;
    assert_eq!(first.status, 200, "{}", first.json);
    assert_eq!(uuids(&first), made[..20]);
    let cursor = first.json["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    // A kit saved while the client pages through comes after the ones it had not seen.
    let late = app.post("/api/v1/create_brand_kit", key, &kit()).await;
    assert_eq!(late.status, 200, "{}", late.json);
    made.push(late.json["uuid"].clone());
    let second = app
        .get(
            &format!("/api/v1/get_brand_kits?limit=4&cursor={cursor}"),
            key,
        )
        .await;
    assert_eq!(uuids(&second), made[20..24]);
    let cursor = second.json["next_cursor"]
        .as_str()
        .expect("a third page")
        .to_owned();
    let third = app
        .get(
            &format!("/api/v1/get_brand_kits?limit=4&cursor={cursor}"),
            key,
        )
        .await;
    assert_eq!(uuids(&third), made[24..]);
    assert_eq!(third.json["next_cursor"], serde_json::Value::Null);
    // An exact last page says so too.
    let whole = app.get("/api/v1/get_brand_kits?limit=26", key).await;
    assert_eq!(uuids(&whole), made);
    assert_eq!(whole.json["next_cursor"], serde_json::Value::Null);
    // Another account's listing is its own.
    let other = app.account().await;
    let theirs = app.get("/api/v1/get_brand_kits", &other.api_key).await;
    assert_eq!(theirs.json, json!({"brand_kits": [], "next_cursor": null}));

    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=two", "limit"),
        ("cursor=nope", "cursor"),
    ] {
        let r = app
            .get(&format!("/api/v1/get_brand_kits?{query}"), key)
            .await;
        r.assert_error(422, "validation_failed");
        assert_eq!(r.details()[0].0, field, "{query}");
    }
}
