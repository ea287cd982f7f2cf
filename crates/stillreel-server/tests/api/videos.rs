//! `POST /create_video` and `GET /get_video`: defaults, validation, the clip limit, render
//! progress as a client sees it, idempotency keys.

use hyper::Method;
use serde_json::{Value, json};
use stillreel_core::builder::{CreateVideoBuilder, image, slot, speed_ramp};
use stillreel_core::{
    BrandingRequest, CameraMotion, Engine, ImageInput, JobError, Orientation, Resolution, Vfx,
    WordDropColor, WordDropConfig,
};
use stillreel_server::queue;
use stillreel_server::repo::render;
use uuid::Uuid;

use crate::common::{TestApp, combine_body, create_body, json_body, without_defaults};
use crate::{records, uuid_of};

crate::both_backends!(
    create_video_defaults_and_get_video,
    create_video_branding_and_options,
    validation_reports_every_field,
    clip_limit_is_per_account,
    get_video_parameters,
    render_progress_is_visible_and_monotonic,
    idempotency_key,
    default_engine_follows_config,
    concurrent_creates_each_get_their_record,
);

async fn create_video_defaults_and_get_video(app: TestApp) {
    let acct = app.account().await;
    let r = app
        .post(
            "/api/v1/create_video",
            &acct.api_key,
            &without_defaults(create_body(2)),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let v = &r.json;
    assert_eq!(v["status"], "queued");
    assert_eq!(v["video_url"], "");
    assert_eq!(v["video_clips"], json!([]));
    assert_eq!(v["orientation"], "landscape");
    assert_eq!(v["resolution"], "720p");
    assert_eq!(v["ai_engine"], "v25");
    assert_eq!(v["progress"], 0);
    assert_eq!(v["project"], acct.default_project.to_string());
    assert!(v.get("branding").is_none(), "no branding requested: {v}");
    assert!(v.get("error").is_none());
    assert!(v["created_at"].as_str().is_some_and(|s| s.ends_with('Z')));

    let id = uuid_of(&r);
    let g = app
        .get(&format!("/api/v1/get_video?uuid={id}"), &acct.api_key)
        .await;
    assert_eq!(g.status, 200);
    assert_eq!(g.json, r.json, "get_video answers the stored record");

    // One job was queued for it, in the same transaction.
    let jobs = queue::jobs_of_video(app.db(), id).await.expect("jobs");
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].0, stillreel_server::worker::kinds::PREPARE);
    assert_eq!(jobs[0].1, "queued");

    // The normalized request (defaults filled in) is what the renderer reads.
    let input = render::render_input(app.db(), id)
        .await
        .expect("input")
        .expect("exists");
    let render::RenderSource::Create { request, clips } = input.source else {
        panic!("create")
    };
    assert_eq!(request.image_inputs.len(), 2);
    assert_eq!(request.image_inputs[0].camera_motion, CameraMotion::Auto);
    assert_eq!(clips.len(), 2);
    assert!(clips.iter().all(|c| c.clip.clip_key.is_none()));
    assert_eq!(clips[1].position, 1);
}

async fn create_video_branding_and_options(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    // One clip: the ramp cannot take effect.
    let one = json_body(&CreateVideoBuilder::new().branding(speed_ramp()).build());
    let r = app.post("/api/v1/create_video", key, &one).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["branding"]["speed_ramp"], false);
    assert_eq!(r.json["branding"]["status"], "queued");
    assert_eq!(r.json["branding"]["video_url"], "");

    let mut request = CreateVideoBuilder::new()
        .orientation(Orientation::Portrait)
        .resolution(Resolution::P1080)
        .audio("https://e.example/a.mp3")
        .branding(BrandingRequest {
            outro: Some(slot("outro-minimal", &[("brokerage", "Acme Realty")])),
            ..speed_ramp()
        })
        .build();
    request.image_inputs = vec![
        ImageInput {
            camera_motion: CameraMotion::OrbitLeft,
            vfx: Some(Vfx::WordDrop {
                config: WordDropConfig {
                    text: "Just listed".to_owned(),
                    color: WordDropColor::Gold,
                },
            }),
            ..image("https://e.example/1.jpg")
        },
        ImageInput {
            vfx: Some(Vfx::StarryNight),
            ..image("https://e.example/2.png")
        },
    ];
    let r = app
        .post("/api/v1/create_video", key, &json_body(&request))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["orientation"], "portrait");
    assert_eq!(r.json["resolution"], "1080p");
    assert_eq!(r.json["branding"]["speed_ramp"], true);
    assert_eq!(
        r.json["branding"]["templates"]["outro"]["template"],
        "outro-minimal"
    );
    // Branding without anything requested is no branding (docs/API-DESIGN.md#branding).
    let nothing = json_body(
        &CreateVideoBuilder::new()
            .images(2)
            .branding(BrandingRequest::default())
            .build(),
    );
    let r = app.post("/api/v1/create_video", key, &nothing).await;
    assert_eq!(r.status, 200);
    assert!(r.json.get("branding").is_none());
}

async fn validation_reports_every_field(app: TestApp) {
    let acct = app.account().await;
    let body = json!({
        "image_inputs": [
            {"image_url": "ftp://nope", "camera_motion": "orbit-left"},
            {"image_url": "https://e.example/x.jpg", "vfx": {"type": "virtual-staging"}},
        ],
        "ai_engine": "v24",
        "orientation": "diagonal",
        "colour": "red",
    });
    let r = app.post("/api/v1/create_video", &acct.api_key, &body).await;
    r.assert_error(422, "validation_failed");
    let details = r.details();
    for (field, code) in [
        ("image_inputs[0].image_url", "invalid_url"),
        ("image_inputs[0].camera_motion", "engine_unsupported"),
        ("image_inputs[1].vfx.type", "vfx_unavailable"),
        ("orientation", "invalid_value"),
        ("colour", "unknown_field"),
    ] {
        assert!(
            details.contains(&(field.to_owned(), code.to_owned())),
            "{field} {code} missing from {details:?}"
        );
    }
    // Wrong types are field errors too, not a deserializer message.
    let r = app
        .post(
            "/api/v1/create_video",
            &acct.api_key,
            &json!({"image_inputs": "x"}),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("image_inputs".to_owned(), "invalid_type".to_owned())]
    );
    let r = app
        .post("/api/v1/create_video", &acct.api_key, &json!({}))
        .await;
    assert_eq!(
        r.details(),
        vec![("image_inputs".to_owned(), "required".to_owned())]
    );
    let r = app
        .post(
            "/api/v1/create_video",
            &acct.api_key,
            &json!({"image_inputs": []}),
        )
        .await;
    assert_eq!(
        r.details(),
        vec![("image_inputs".to_owned(), "empty".to_owned())]
    );
    let r = app
        .post(
            "/api/v1/create_project",
            &acct.api_key,
            &json!({"name": ""}),
        )
        .await;
    r.assert_error(422, "validation_failed");
    // Nothing was stored by any of these.
    let depth = queue::depth_by_state(app.db()).await.expect("depth");
    assert_eq!(depth.iter().map(|(_, n)| n).sum::<i64>(), 0);
}

async fn clip_limit_is_per_account(app: TestApp) {
    let small = app.account_with_limit(2).await;
    let big = app.account().await;
    let r = app
        .post("/api/v1/create_video", &small.api_key, &create_body(3))
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("image_inputs".to_owned(), "too_many".to_owned())]
    );
    assert_eq!(
        app.post("/api/v1/create_video", &small.api_key, &create_body(2))
            .await
            .status,
        200
    );
    assert_eq!(
        app.post("/api/v1/create_video", &big.api_key, &create_body(20))
            .await
            .status,
        200
    );
    let r = app
        .post("/api/v1/create_video", &big.api_key, &create_body(21))
        .await;
    assert_eq!(
        r.details(),
        vec![("image_inputs".to_owned(), "too_many".to_owned())]
    );
    // The limit bounds combine too.
    let ids: Vec<Uuid> = (0..3).map(|_| Uuid::new_v4()).collect();
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            &small.api_key,
            &combine_body(&ids),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids".to_owned(), "too_many".to_owned())]
    );
}

async fn get_video_parameters(app: TestApp) {
    let acct = app.account().await;
    let r = app.get("/api/v1/get_video", &acct.api_key).await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("uuid".to_owned(), "required".to_owned())]
    );
    let r = app.get("/api/v1/get_video?uuid=12", &acct.api_key).await;
    assert_eq!(
        r.details(),
        vec![("uuid".to_owned(), "invalid_uuid".to_owned())]
    );
    let r = app
        .get(
            &format!("/api/v1/get_video?uuid={}", Uuid::new_v4()),
            &acct.api_key,
        )
        .await;
    r.assert_error(404, "not_found");
}

async fn render_progress_is_visible_and_monotonic(app: TestApp) {
    let acct = app.account().await;
    let body = json_body(
        &CreateVideoBuilder::new()
            .images(3)
            .branding(speed_ramp())
            .build(),
    );
    let r = app.post("/api/v1/create_video", &acct.api_key, &body).await;
    let id = uuid_of(&r);
    let url = format!("/api/v1/get_video?uuid={id}");
    let db = app.db();

    assert!(
        !render::set_video_progress(db, id, 10).await.expect("p"),
        "no progress while queued"
    );
    assert!(
        !records::complete_video(db, id, "videos/x.mp4").await,
        "queued cannot complete"
    );
    assert!(render::start_video(db, id).await.expect("start"));
    assert!(!render::start_video(db, id).await.expect("start twice"));
    assert!(render::set_video_progress(db, id, 50).await.expect("p"));
    assert!(
        !render::set_video_progress(db, id, 30).await.expect("p"),
        "progress never decreases"
    );

    let input = render::render_input(db, id)
        .await
        .expect("input")
        .expect("exists");
    assert!(input.branding.as_ref().is_some_and(|b| b.speed_ramp));
    let render::RenderSource::Create { clips, .. } = input.source else {
        panic!("create")
    };
    // Clips appear as they finish, in input order, with absolute URLs.
    assert!(records::clip(db, id, clips[1].clip.id, "clips/b.mp4").await);
    assert!(
        !records::clip(db, id, clips[1].clip.id, "clips/other.mp4").await,
        "first key sticks"
    );
    let g = app.get(&url, &acct.api_key).await;
    assert_eq!(g.json["status"], "in_progress");
    assert_eq!(g.json["progress"], 50);
    let listed = g.json["video_clips"].as_array().expect("clips");
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0]["clip_url"],
        format!("{}/files/clips/b.mp4", app.base)
    );
    assert_eq!(listed[0]["vfx"], Value::Null);
    assert_eq!(listed[0]["ai_engine"], "v25");
    assert!(records::clip(db, id, clips[0].clip.id, "clips/a.mp4").await);
    assert!(records::clip(db, id, clips[2].clip.id, "clips/c.mp4").await);
    assert!(records::complete_video(db, id, "videos/v/main.mp4").await);
    assert!(!render::start_video(db, id).await.expect("never back"));
    assert!(
        !records::fail_video(
            db,
            id,
            &JobError {
                code: "render_failed".into(),
                message: "x".into(),
                field: None
            }
        )
        .await
    );

    let g = app.get(&url, &acct.api_key).await;
    assert_eq!(g.json["status"], "complete");
    assert_eq!(g.json["progress"], 100);
    assert_eq!(
        g.json["video_url"],
        format!("{}/files/videos/v/main.mp4", app.base)
    );
    let urls: Vec<&str> = g.json["video_clips"]
        .as_array()
        .expect("c")
        .iter()
        .filter_map(|c| c["clip_url"].as_str())
        .collect();
    assert_eq!(urls.len(), 3);
    assert!(
        urls[0].ends_with("/clips/a.mp4")
            && urls[1].ends_with("/clips/b.mp4")
            && urls[2].ends_with("/clips/c.mp4")
    );
    assert_eq!(g.json["branding"]["status"], "queued");

    // The branded render moves on its own.
    assert!(render::start_branding(db, id).await.expect("b"));
    assert!(render::set_branding_progress(db, id, 40).await.expect("b"));
    assert!(records::complete_branding(db, id, "videos/v/branded.mp4", true).await);
    let g = app.get(&url, &acct.api_key).await;
    assert_eq!(g.json["branding"]["status"], "complete");
    assert_eq!(
        g.json["branding"]["video_url"],
        format!("{}/files/videos/v/branded.mp4", app.base)
    );

    // A failing video carries its error, and takes its branding down with it.
    let body = json_body(
        &CreateVideoBuilder::new()
            .images(2)
            .branding(speed_ramp())
            .build(),
    );
    let failing = uuid_of(&app.post("/api/v1/create_video", &acct.api_key, &body).await);
    let error = JobError {
        code: "media_too_large".into(),
        message: "the image is over 10 MiB".into(),
        field: Some("image_inputs[1].image_url".into()),
    };
    assert!(records::fail_video(db, failing, &error).await);
    let g = app
        .get(&format!("/api/v1/get_video?uuid={failing}"), &acct.api_key)
        .await;
    assert_eq!(g.json["status"], "error");
    assert_eq!(g.json["video_url"], "");
    assert_eq!(g.json["error"]["code"], "media_too_large");
    assert_eq!(g.json["error"]["field"], "image_inputs[1].image_url");
    assert_eq!(g.json["branding"]["status"], "error");
}

async fn idempotency_key(app: TestApp) {
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let body = create_body(2);
    let first = app
        .post_with(
            "/api/v1/create_video",
            key,
            &body,
            &[("idempotency-key", "order-1")],
        )
        .await;
    assert_eq!(first.status, 200);
    // Same key, same body (formatted differently): the original record, no second video.
    let spaced = serde_json::to_string_pretty(&body).expect("json");
    let again = app
        .request(
            Method::POST,
            "/api/v1/create_video",
            &[
                ("authorization", key),
                ("content-type", "application/json"),
                ("idempotency-key", "order-1"),
            ],
            Some(spaced.into_bytes()),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json, first.json);
    let depth = queue::depth_by_state(app.db()).await.expect("depth");
    assert_eq!(
        depth.iter().map(|(_, n)| n).sum::<i64>(),
        1,
        "one video, one job"
    );
    // Same key, other body.
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &create_body(3),
            &[("idempotency-key", "order-1")],
        )
        .await;
    r.assert_error(422, "idempotency_key_reused");
    // Same key on the other endpoint is another request too.
    let combine = combine_body(&[Uuid::new_v4()]);
    let r = app
        .post_with(
            "/api/v1/combine_video_clips",
            key,
            &combine,
            &[("idempotency-key", "order-1")],
        )
        .await;
    r.assert_error(422, "idempotency_key_reused");
    // Keys are per account.
    let other = app.account().await;
    let r = app
        .post_with(
            "/api/v1/create_video",
            &other.api_key,
            &body,
            &[("idempotency-key", "order-1")],
        )
        .await;
    assert_eq!(r.status, 200);
    assert_ne!(r.json["uuid"], first.json["uuid"]);
    // A failed request does not pin its key.
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &json!({}),
            &[("idempotency-key", "order-2")],
        )
        .await;
    r.assert_error(422, "validation_failed");
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &body,
            &[("idempotency-key", "order-2")],
        )
        .await;
    assert_eq!(r.status, 200);
    // Length limit: 255 characters.
    let long = "k".repeat(255);
    assert_eq!(
        app.post_with(
            "/api/v1/create_video",
            key,
            &body,
            &[("idempotency-key", &long)]
        )
        .await
        .status,
        200
    );
    let too_long = "k".repeat(256);
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &body,
            &[("idempotency-key", &too_long)],
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("Idempotency-Key".to_owned(), "too_long".to_owned())]
    );
    // In flight: a first request that has claimed the key but not answered yet.
    let hash = stillreel_server::routes::videos::request_hash(
        stillreel_server::routes::videos::Endpoint::CreateVideo,
        &body.to_string(),
    );
    let begun =
        stillreel_server::repo::idempotency::begin(app.db(), acct.account, "order-3", &hash)
            .await
            .expect("begin");
    assert_eq!(begun, stillreel_server::repo::idempotency::Begin::Fresh);
    let r = app
        .post_with(
            "/api/v1/create_video",
            key,
            &body,
            &[("idempotency-key", "order-3")],
        )
        .await;
    r.assert_error(409, "idempotency_in_progress");
}

async fn default_engine_follows_config(app: TestApp) {
    // This test spawns its own server with another default engine on the same backend.
    let backend = app.backend;
    drop(app);
    let Some(app) = TestApp::spawn_with(backend, |c| c.default_engine = Engine::V24).await else {
        return;
    };
    let acct = app.account().await;
    let r = app
        .post(
            "/api/v1/create_video",
            &acct.api_key,
            &without_defaults(create_body(1)),
        )
        .await;
    assert_eq!(r.json["ai_engine"], "v24");
    let engines = app.get("/api/v1/get_engines", &acct.api_key).await;
    assert_eq!(engines.json["engines"][0]["default"], true);
}

async fn concurrent_creates_each_get_their_record(app: TestApp) {
    // Many creates at once: on SQLite they share transactions (group commit); each must still
    // get its own record, clips, job and idempotency answer.
    let acct = app.account().await;
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for i in 0..40 {
        let app = app.clone();
        let key = acct.api_key.clone();
        tasks.push(tokio::spawn(async move {
            let body = create_body(1 + i % 3);
            let idem = format!("batch-{i}");
            let headers: Vec<(&str, &str)> = if i % 2 == 0 {
                vec![("idempotency-key", idem.as_str())]
            } else {
                vec![]
            };
            let r = app
                .post_with("/api/v1/create_video", &key, &body, &headers)
                .await;
            assert_eq!(r.status, 200, "{}", r.json);
            (i, body, r.json)
        }));
    }
    let mut ids = std::collections::HashSet::new();
    for task in tasks {
        let (i, body, json) = task.await.expect("task");
        let id = Uuid::parse_str(json["uuid"].as_str().expect("uuid")).expect("uuid");
        assert!(ids.insert(id), "a record was shared between requests");
        let input = render::render_input(app.db(), id)
            .await
            .expect("input")
            .expect("stored");
        let render::RenderSource::Create { clips, .. } = input.source else {
            panic!("create")
        };
        assert_eq!(clips.len(), 1 + i % 3, "each video has its own clips");
        if i % 2 == 0 {
            let again = app
                .post_with(
                    "/api/v1/create_video",
                    &acct.api_key,
                    &body,
                    &[("idempotency-key", &format!("batch-{i}"))],
                )
                .await;
            assert_eq!(again.json, json, "the stored answer is this request's");
        }
    }
    let depth = queue::depth_by_state(app.db()).await.expect("depth");
    assert_eq!(
        depth.iter().map(|(_, n)| n).sum::<i64>(),
        40,
        "one job per video"
    );
}
