//! `GET /get_videos` and `POST /delete_video`: pages newest first that stay right while
//! videos are added, filters, and deletion (record, files, and combining its clips).

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::common::{TestApp, combine_body, create_body, project_body};
use crate::{render_all, uuid_of};
use stillreel_server::repo::render;

crate::both_backends!(
    pages_are_newest_first_and_stable_while_videos_arrive,
    filters_and_bad_queries,
    deleting_a_video_removes_record_files_and_clips,
    pages_follow_every_change_at_once,
);

fn uuids(page: &Value) -> Vec<String> {
    page["videos"]
        .as_array()
        .unwrap_or_else(|| panic!("no videos in {page}"))
        .iter()
        .map(|v| v["uuid"].as_str().expect("uuid").to_owned())
        .collect()
}

async fn pages_are_newest_first_and_stable_while_videos_arrive(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let mut made = Vec::new();
    for _ in 0..5 {
        made.push(
            uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await).to_string(),
        );
    }
    // Another account's videos never show.
    let other = app.account().await;
    app.post("/api/v1/create_video", &other.api_key, &create_body(1))
        .await;

    let first = app.get("/api/v1/get_videos?limit=2", key).await;
    assert_eq!(first.status, 200, "{}", first.json);
    assert_eq!(uuids(&first.json), vec![made[4].clone(), made[3].clone()]);
    // Each element is the record get_video answers.
    let one = app
        .get(&format!("/api/v1/get_video?uuid={}", made[4]), key)
        .await;
    assert_eq!(first.json["videos"][0], one.json);
    let cursor = first.json["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();

    // A video created between two pages does not shift the later pages.
    let newer = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await).to_string();
    let second = app
        .get(&format!("/api/v1/get_videos?limit=2&cursor={cursor}"), key)
        .await;
    assert_eq!(uuids(&second.json), vec![made[2].clone(), made[1].clone()]);
    let cursor = second.json["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let third = app
        .get(&format!("/api/v1/get_videos?limit=2&cursor={cursor}"), key)
        .await;
    assert_eq!(uuids(&third.json), vec![made[0].clone()]);
    assert_eq!(third.json["next_cursor"], Value::Null, "last page");

    let all = app.get("/api/v1/get_videos", key).await;
    assert_eq!(
        uuids(&all.json)[0],
        newer,
        "the new one is first from the start"
    );
    assert_eq!(uuids(&all.json).len(), 6);
    let unique: HashSet<String> = uuids(&all.json).into_iter().collect();
    assert_eq!(unique.len(), 6);
}

async fn filters_and_bad_queries(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let project = uuid_of(
        &app.post("/api/v1/create_project", key, &project_body("Oak Lane"))
            .await,
    );
    let mut in_project = create_body(2);
    in_project["project"] = json!(project.to_string());
    let done = uuid_of(&app.post("/api/v1/create_video", key, &in_project).await);
    render_all(&app, done).await;
    let queued = uuid_of(&app.post("/api/v1/create_video", key, &in_project).await);
    let elsewhere = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);

    let r = app
        .get(&format!("/api/v1/get_videos?project={project}"), key)
        .await;
    assert_eq!(uuids(&r.json), vec![queued.to_string(), done.to_string()]);
    let r = app.get("/api/v1/get_videos?status=complete", key).await;
    assert_eq!(uuids(&r.json), vec![done.to_string()]);
    let complete = &r.json["videos"][0];
    assert_eq!(complete["video_clips"].as_array().map(Vec::len), Some(2));
    let poster = complete["poster_url"]
        .as_str()
        .expect("a complete video has a poster");
    assert!(poster.ends_with("/main.jpg"), "{poster}");
    let thumb = complete["video_clips"][0]["thumbnail_url"]
        .as_str()
        .expect("thumbnail");
    assert!(thumb.ends_with(".jpg"), "{thumb}");
    let r = app
        .get(
            &format!("/api/v1/get_videos?project={project}&status=queued"),
            key,
        )
        .await;
    assert_eq!(uuids(&r.json), vec![queued.to_string()]);
    let r = app.get("/api/v1/get_videos?status=queued", key).await;
    assert_eq!(
        uuids(&r.json),
        vec![elsewhere.to_string(), queued.to_string()]
    );

    let r = app
        .get(
            "/api/v1/get_videos?status=done&limit=0&cursor=zzz&project=nope",
            key,
        )
        .await;
    r.assert_error(422, "validation_failed");
    let mut fields: Vec<String> = r.details().into_iter().map(|(f, _)| f).collect();
    fields.sort();
    assert_eq!(fields, vec!["cursor", "limit", "project", "status"]);
    // Empty members are bad values too (leave a member out for "any").
    let r = app
        .get("/api/v1/get_videos?project=&status=&limit=", key)
        .await;
    r.assert_error(422, "validation_failed");
    let mut fields: Vec<String> = r.details().into_iter().map(|(f, _)| f).collect();
    fields.sort();
    assert_eq!(fields, vec!["limit", "project", "status"]);
    let r = app.get("/api/v1/get_videos?limit=101", key).await;
    assert_eq!(
        r.details(),
        vec![("limit".to_owned(), "invalid_value".to_owned())]
    );
    let other = app.account().await;
    let r = app
        .get(
            &format!("/api/v1/get_videos?project={project}"),
            &other.api_key,
        )
        .await;
    r.assert_error(404, "not_found");
}

async fn deleting_a_video_removes_record_files_and_clips(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let video = uuid_of(&app.post("/api/v1/create_video", key, &create_body(2)).await);
    // Still queued: its worker would store files after they were removed.
    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": video.to_string()}),
        )
        .await;
    r.assert_error(409, "video_in_progress");

    let clips = render_all(&app, video).await;
    let record = app
        .get(&format!("/api/v1/get_video?uuid={video}"), key)
        .await;
    let video_key = format!("videos/{video}/main.mp4");
    assert_eq!(app.state.storage.size(&video_key).expect("size"), Some(4));
    // Someone else cannot delete it.
    let other = app.account().await;
    let r = app
        .post(
            "/api/v1/delete_video",
            &other.api_key,
            &json!({"uuid": video.to_string()}),
        )
        .await;
    r.assert_error(404, "not_found");

    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": video.to_string()}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json, json!({"uuid": video.to_string(), "deleted": true}));
    app.get(&format!("/api/v1/get_video?uuid={video}"), key)
        .await
        .assert_error(404, "not_found");
    assert_eq!(
        app.state.storage.size(&video_key).expect("size"),
        None,
        "the video file is gone"
    );
    for clip in &clips {
        assert_eq!(
            app.state
                .storage
                .size(&format!("clips/{clip}.mp4"))
                .expect("size"),
            None,
            "the clip files are gone"
        );
    }
    let listed = app.get("/api/v1/get_videos", key).await;
    assert!(
        !uuids(&listed.json).contains(&video.to_string()),
        "{}",
        record.json
    );
    // Its clips cannot be combined any more, and the error says why.
    let r = app
        .post("/api/v1/combine_video_clips", key, &combine_body(&clips))
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![
            ("video_clip_uuids[0]".to_owned(), "not_found".to_owned()),
            ("video_clip_uuids[1]".to_owned(), "not_found".to_owned()),
        ]
    );
    assert!(
        r.json["error"]["details"][0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("deleted"),
        "{}",
        r.json
    );
    // Deleting twice: it is gone.
    app.post(
        "/api/v1/delete_video",
        key,
        &json!({"uuid": video.to_string()}),
    )
    .await
    .assert_error(404, "not_found");
    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": "nope", "x": 1}),
        )
        .await;
    r.assert_error(422, "validation_failed");
    let r = app.post("/api/v1/delete_video", key, &json!({})).await;
    assert_eq!(
        r.details(),
        vec![("uuid".to_owned(), "required".to_owned())]
    );
}

/// Whatever answers a page (on SQLite, the page cache), a change shows on the very next request:
/// a create, a render's start and progress, its completion (moving it between status
/// filters) and a delete; another account's page is never touched by any of it.
async fn pages_follow_every_change_at_once(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let other = app.account().await;
    let theirs = uuid_of(
        &app.post("/api/v1/create_video", &other.api_key, &create_body(1))
            .await,
    );
    let first = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    let page = |k: &str, q: &str| {
        let (app, k, q) = (&app, k.to_owned(), q.to_owned());
        async move {
            let r = app.get(&format!("/api/v1/get_videos{q}"), &k).await;
            assert_eq!(r.status, 200, "{}", r.json);
            r.json
        }
    };
    let theirs_before = page(&other.api_key, "?limit=50").await;
    assert_eq!(
        uuids(&page(key, "?limit=50").await),
        vec![first.to_string()]
    );
    assert_eq!(
        uuids(&page(key, "?status=complete").await),
        Vec::<String>::new()
    );
    if let Some(cache) = app.db().page_cache() {
        assert!(
            cache.get(acct.account, &(None, None, 50, None)).is_some(),
            "SQLite serves the page from its cache from now on"
        );
    }

    let second = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    assert_eq!(
        uuids(&page(key, "?limit=50").await),
        vec![second.to_string(), first.to_string()],
        "a create shows at once"
    );

    assert!(render::start_video(app.db(), first).await.expect("start"));
    assert!(
        render::set_video_progress(app.db(), first, 40)
            .await
            .expect("progress")
    );
    let listed = page(key, "?limit=50").await;
    assert_eq!(listed["videos"][1]["status"], "in_progress");
    assert_eq!(
        listed["videos"][1]["progress"], 40,
        "progress shows at once"
    );

    render_all(&app, second).await;
    let complete = page(key, "?status=complete").await;
    assert_eq!(
        uuids(&complete),
        vec![second.to_string()],
        "completion moves it into the filter"
    );
    assert_eq!(
        page(key, "?limit=50").await["videos"][0]["status"],
        "complete"
    );

    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": second.to_string()}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        uuids(&page(key, "?limit=50").await),
        vec![first.to_string()],
        "a delete shows at once"
    );
    assert_eq!(
        uuids(&page(key, "?status=complete").await),
        Vec::<String>::new()
    );

    assert_eq!(page(&other.api_key, "?limit=50").await, theirs_before);
    assert_eq!(uuids(&theirs_before), vec![theirs.to_string()]);
}
