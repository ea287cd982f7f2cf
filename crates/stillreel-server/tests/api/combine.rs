//! `POST /combine_video_clips`.

use serde_json::json;
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder, speed_ramp};
use stillreel_core::{Engine, Orientation, Resolution};
use stillreel_server::queue;
use stillreel_server::repo::render;
use uuid::Uuid;

use crate::common::{TestApp, combine_body, create_body, json_body};
use crate::{records, render_all, uuid_of};

crate::both_backends!(
    combine_video_clips_happy_path,
    combine_video_clips_failures,
    combined_clips_are_paced_through_only_when_made_for_the_ramp,
    a_video_uuid_among_the_clips_says_where_the_clip_uuids_are,
    a_combine_whose_source_was_deleted_fails_at_once,
);

async fn combine_video_clips_happy_path(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let mut body = create_body(2);
    // No color: the combined video lists the clip's effect with the default filled in.
    body["image_inputs"][0]["vfx"] = json!({"type": "word-drop", "config": {"text": "Sold"}});
    let video = uuid_of(&app.post("/api/v1/create_video", key, &body).await);
    let clips = render_all(&app, video).await;

    let mut request = combine_body(&[clips[1], clips[0], clips[1]]);
    // The boolean form, which the normalized request (and so the builder) never has.
    request["branding"] = json!(true);
    let r = app.post("/api/v1/combine_video_clips", key, &request).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["status"], "queued");
    assert_eq!(r.json["video_url"], "");
    assert_eq!(r.json["ai_engine"], "v25");
    assert_eq!(
        r.json["branding"]["speed_ramp"], true,
        "branding: true means the speed ramp"
    );
    let listed: Vec<String> = r.json["video_clips"]
        .as_array()
        .expect("clips")
        .iter()
        .map(|c| c["uuid"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        listed,
        vec![
            clips[1].to_string(),
            clips[0].to_string(),
            clips[1].to_string()
        ],
        "request order"
    );
    let first = &r.json["video_clips"][1];
    assert_eq!(first["vfx"]["type"], "word-drop");
    assert_eq!(first["vfx"]["config"]["text"], "Sold");
    assert_eq!(
        first["vfx"]["config"]["color"], "gold",
        "normalized with defaults"
    );
    assert!(
        first["clip_url"]
            .as_str()
            .is_some_and(|u| u.starts_with(&app.base))
    );

    let combined = uuid_of(&r);
    let g = app
        .get(&format!("/api/v1/get_video?uuid={combined}"), key)
        .await;
    assert_eq!(g.json["video_clips"], r.json["video_clips"]);
    let jobs = queue::jobs_of_video(app.db(), combined)
        .await
        .expect("jobs");
    assert_eq!(jobs[0].0, stillreel_server::worker::kinds::COMBINE);
    let input = render::render_input(app.db(), combined)
        .await
        .expect("input")
        .expect("exists");
    let render::RenderSource::Combine { clip_keys, .. } = input.source else {
        panic!("combine")
    };
    assert_eq!(
        clip_keys,
        vec![
            format!("clips/{}.mp4", clips[1]),
            format!("clips/{}.mp4", clips[0]),
            format!("clips/{}.mp4", clips[1])
        ]
    );
}

async fn combine_video_clips_failures(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let landscape = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    let l_clips = render_all(&app, landscape).await;
    let v24 = json_body(&CreateVideoBuilder::new().engine(Engine::V24).build());
    let v24_clips = render_all(
        &app,
        uuid_of(&app.post("/api/v1/create_video", key, &v24).await),
    )
    .await;
    let portrait = json_body(
        &CreateVideoBuilder::new()
            .orientation(Orientation::Portrait)
            .build(),
    );
    let p_clips = render_all(
        &app,
        uuid_of(&app.post("/api/v1/create_video", key, &portrait).await),
    )
    .await;
    let pending = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    let render::RenderSource::Create {
        clips: pending_clips,
        ..
    } = render::render_input(app.db(), pending)
        .await
        .expect("i")
        .expect("e")
        .source
    else {
        panic!("create")
    };

    let combine = |ids: Vec<Uuid>| combine_body(&ids);
    // Mismatches: orientation and engine, each at its index.
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &combine(vec![l_clips[0], p_clips[0], v24_clips[0]]),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![
            ("video_clip_uuids[1]".to_owned(), "mismatch".to_owned()),
            ("video_clip_uuids[2]".to_owned(), "mismatch".to_owned())
        ]
    );
    let wrong_res = json_body(
        &CombineBuilder::new()
            .clips(vec![l_clips[0]])
            .resolution(Resolution::P1080)
            .build(),
    );
    let r = app
        .post("/api/v1/combine_video_clips", key, &wrong_res)
        .await;
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids[0]".to_owned(), "mismatch".to_owned())]
    );
    // Unknown and not-yet-rendered clips: 404 with each index named.
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &combine(vec![l_clips[0], Uuid::new_v4(), pending_clips[0].clip.id]),
        )
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![
            ("video_clip_uuids[1]".to_owned(), "not_found".to_owned()),
            ("video_clip_uuids[2]".to_owned(), "not_found".to_owned())
        ]
    );
    // Missing required members.
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &json!({"video_clip_uuids": [l_clips[0]]}),
        )
        .await;
    let details = r.details();
    assert!(
        details.contains(&("orientation".to_owned(), "required".to_owned())),
        "{details:?}"
    );
    assert!(
        details.contains(&("resolution".to_owned(), "required".to_owned())),
        "{details:?}"
    );
    let r = app
        .post("/api/v1/combine_video_clips", key, &{
            let mut body = combine_body(&[l_clips[0]]);
            body["video_clip_uuids"][0] = json!("x");
            body
        })
        .await;
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids[0]".to_owned(), "invalid_uuid".to_owned())]
    );
}

/// The speed ramp shows only over clips whose camera keeps moving through their ends, which
/// only videos that asked for the ramp get (docs/EFFECTS.md, "Speed ramp"): a combined video's
/// branding applies the ramp only when every clip came from such a video.
async fn combined_clips_are_paced_through_only_when_made_for_the_ramp(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let ramped = json_body(
        &CreateVideoBuilder::new()
            .images(2)
            .branding(speed_ramp())
            .build(),
    );
    let ramped_clips = render_all(
        &app,
        uuid_of(&app.post("/api/v1/create_video", key, &ramped).await),
    )
    .await;
    let eased_clips = render_all(
        &app,
        uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await),
    )
    .await;
    let combine = |ids: Vec<Uuid>| {
        let mut body = combine_body(&ids);
        body["branding"] = json!(true);
        body
    };
    let through = uuid_of(
        &app.post(
            "/api/v1/combine_video_clips",
            key,
            &combine(vec![ramped_clips[1], ramped_clips[0]]),
        )
        .await,
    );
    assert!(
        render::combined_clips_paced_through(app.db(), through)
            .await
            .expect("query")
    );
    let mixed = uuid_of(
        &app.post(
            "/api/v1/combine_video_clips",
            key,
            &combine(vec![ramped_clips[0], eased_clips[0]]),
        )
        .await,
    );
    assert!(
        !render::combined_clips_paced_through(app.db(), mixed)
            .await
            .expect("query")
    );
    // Asked for and possible when queued; not applied, so `false` once the branded render
    // completes.
    let url = format!("/api/v1/get_video?uuid={mixed}");
    assert_eq!(
        app.get(&url, key).await.json["branding"]["speed_ramp"],
        true
    );
    assert!(render::start_branding(app.db(), mixed).await.expect("b"));
    assert!(records::complete_branding(app.db(), mixed, "videos/m/branded.mp4", false).await);
    let g = app.get(&url, key).await;
    assert_eq!(g.json["branding"]["status"], "complete");
    assert_eq!(g.json["branding"]["speed_ramp"], false);
}

/// A video's uuid where a clip's is wanted (the usual mistake) is a 404 whose detail says so
/// and names `get_video`'s `video_clips[].uuid`; an unknown uuid beside it keeps the plain
/// message. The envelope's message agrees with its details: the one detail's own message,
/// or a count.
async fn a_video_uuid_among_the_clips_says_where_the_clip_uuids_are(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let video = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);

    let r = app
        .post("/api/v1/combine_video_clips", key, &combine_body(&[video]))
        .await;
    r.assert_error(404, "not_found");
    let detail = &r.json["error"]["details"][0];
    assert_eq!(detail["field"], "video_clip_uuids[0]", "{}", r.json);
    let message = detail["message"].as_str().expect("message");
    assert_eq!(
        message,
        format!(
            "this is the uuid of a video, not of a clip: combine takes clip uuids, which \
             GET /api/v1/get_video?uuid={video} lists as video_clips[].uuid"
        )
    );
    assert_eq!(
        r.json["error"]["message"],
        format!("video_clip_uuids[0]: {message}"),
        "the envelope repeats its one detail"
    );

    let unknown = Uuid::new_v4();
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &combine_body(&[unknown, video]),
        )
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.json["error"]["message"],
        "2 ids in the body were not found; each detail says why"
    );
    let messages: Vec<&str> = r.json["error"]["details"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| d["message"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        messages[0],
        "this clip does not exist, belongs to another account, or is not rendered yet"
    );
    assert!(
        messages[1].starts_with("this is the uuid of a video"),
        "{messages:?}"
    );

    // Another account's video is not told apart from an unknown uuid.
    let other = app.account().await;
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            &other.api_key,
            &combine_body(&[video]),
        )
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.json["error"]["details"][0]["message"],
        "this clip does not exist, belongs to another account, or is not rendered yet"
    );
}

/// A combine queued while its clips' video still existed, whose video is then deleted: the
/// clip's file is gone, so the combine fails on its first attempt, naming the clip.
async fn a_combine_whose_source_was_deleted_fails_at_once(app: TestApp) {
    use stillreel_server::worker::{self, WorkerSettings};
    let acct = app.account().await;
    let key = &acct.api_key;
    let keep = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    let kept = render_all(&app, keep).await;
    let source = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    let clips = render_all(&app, source).await;
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            key,
            &combine_body(&[kept[0], clips[0]]),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let combined = uuid_of(&r);
    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": source.to_string()}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);

    let renderer = worker::build_renderer(&app.state).expect("renderer");
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 1;
    settings.idle_poll = std::time::Duration::from_millis(50);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    let mut video = serde_json::Value::Null;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        video = app
            .get(&format!("/api/v1/get_video?uuid={combined}"), key)
            .await
            .json;
        if video["status"] == "error" {
            break;
        }
    }
    workers.shutdown().await;
    assert_eq!(video["status"], "error", "{video}");
    assert_eq!(video["error"]["code"], "clip_unavailable", "{video}");
    assert_eq!(video["error"]["field"], "video_clip_uuids[1]", "{video}");
    assert!(
        video["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("deleted")),
        "{video}"
    );
    let attempts: Vec<i32> = queue::graph_of_video(app.db(), combined)
        .await
        .expect("jobs")
        .iter()
        .map(|j| j.attempts)
        .collect();
    assert_eq!(attempts, [1], "one attempt, no retry");
}
