//! The HTTP API over a real socket, each test on SQLite and on PostgreSQL.

mod common;

use common::{Resp, TestApp, create_body};
use hyper::Method;
use serde_json::{Value, json};
use stillreel_core::JobError;
use stillreel_server::config::RateLimit;
use stillreel_server::queue;
use stillreel_server::repo::render;
use uuid::Uuid;

both_backends!(
    health_ready_metrics_and_openapi,
    auth_forms,
    create_video_defaults_and_get_video,
    create_video_branding_and_options,
    validation_reports_every_field,
    clip_limit_is_per_account,
    body_errors_are_enveloped,
    routing_errors_are_enveloped,
    projects_create_list_and_use,
    get_video_parameters,
    render_progress_is_visible_and_monotonic,
    combine_video_clips_happy_path,
    combine_video_clips_failures,
    isolation_endpoint_by_endpoint,
    idempotency_key,
    templates_and_engines,
    files_are_served_with_ranges,
    default_engine_follows_config,
    concurrent_creates_each_get_their_record,
    no_rate_limit_by_default,
);

// `STILLREEL_RATE_LIMIT=3/min`: its own server per backend.
both_backends!(
    mod rate_limit, configured by three_per_minute:
    rate_limit_per_account,
);

fn three_per_minute(config: &mut stillreel_server::config::Config) {
    config.rate_limit = RateLimit::parse("3/min").expect("valid limit");
}

fn uuid_of(resp: &Resp) -> Uuid {
    resp.json["uuid"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
        .unwrap_or_else(|| panic!("no uuid in {}", resp.json))
}

/// Stores `bytes` under `key` through the server's storage, as the worker would: a local file
/// handed to `Storage::put`.
fn store(app: &TestApp, key: &str, bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let local = dir.path().join("file");
    std::fs::write(&local, bytes).expect("write");
    app.state.storage.put(&local, key).expect("store");
}

/// Simulates the render worker for a created video: starts it, renders every clip (a small
/// stored file per clip) and completes it.
async fn render_all(app: &TestApp, video: Uuid) -> Vec<Uuid> {
    let input = render::render_input(app.db(), video)
        .await
        .expect("input")
        .expect("video exists");
    assert!(render::start_video(app.db(), video).await.expect("start"));
    let render::RenderSource::Create { clips, .. } = input.source else {
        panic!("not a create video")
    };
    let mut ids = Vec::new();
    for clip in clips {
        let key = format!("clips/{}.mp4", clip.clip.id);
        store(app, &key, b"not really mp4");
        assert!(
            render::set_clip_rendered(app.db(), clip.clip.id, &key)
                .await
                .expect("clip")
        );
        ids.push(clip.clip.id);
    }
    let key = format!("videos/{video}/main.mp4");
    store(app, &key, b"main");
    assert!(
        render::complete_video(app.db(), video, &key)
            .await
            .expect("complete")
    );
    ids
}

async fn health_ready_metrics_and_openapi(app: TestApp) {
    let r = app.request(Method::GET, "/healthz", &[], None).await;
    assert_eq!(r.status, 200);
    let r = app.request(Method::GET, "/readyz", &[], None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["status"], "ready");

    let acct = app.account().await;
    app.post("/api/v1/create_video", &acct.api_key, &create_body(1))
        .await;
    app.get("/api/v1/get_video?uuid=bad", &acct.api_key).await;
    let r = app.request(Method::GET, "/metrics", &[], None).await;
    assert_eq!(r.status, 200);
    let text = String::from_utf8_lossy(&r.bytes);
    assert!(
        text.contains(
            r#"stillreel_http_requests_total{route="/api/v1/create_video",status="200"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"stillreel_http_requests_total{route="/api/v1/get_video",status="422"} 1"#),
        "{text}"
    );
    assert!(text.contains(
        r#"stillreel_http_request_duration_seconds_count{route="/api/v1/create_video"} 1"#
    ));
    assert!(
        text.contains(r#"stillreel_jobs{state="queued"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"stillreel_jobs{state="running"} 0"#),
        "{text}"
    );

    let r = app
        .request(Method::GET, "/api/v1/openapi.json", &[], None)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["openapi"], "3.1.0");
    for path in [
        "/api/v1/create_video",
        "/api/v1/combine_video_clips",
        "/api/v1/get_video",
        "/api/v1/create_project",
        "/api/v1/get_projects",
        "/api/v1/get_templates",
        "/api/v1/get_engines",
    ] {
        assert!(
            r.json["paths"][path].is_object(),
            "{path} missing from the document"
        );
    }
    // Every response carries a request id.
    assert!(r.headers.get("x-request-id").is_some());
    app.stop().await;
}

async fn auth_forms(app: TestApp) {
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    let bearer = format!("Bearer {key}");
    let lower = format!("bearer {key}");
    for value in [key, bearer.as_str(), lower.as_str()] {
        let r = app.get("/api/v1/get_projects", value).await;
        assert_eq!(r.status, 200, "{value}: {}", r.json);
    }
    let r = app
        .request(Method::GET, "/api/v1/get_projects", &[], None)
        .await;
    r.assert_error(401, "unauthorized");
    let wrong = format!("{key}x");
    let basic = format!("Basic {key}");
    for value in [
        "sr_unknown",
        wrong.as_str(),
        basic.as_str(),
        "Bearer ",
        "Bearer a b",
    ] {
        let r = app.get("/api/v1/get_projects", value).await;
        r.assert_error(401, "unauthorized");
    }
    // Every API endpoint wants a key, before looking at the body.
    for (method, path) in [
        (Method::POST, "/api/v1/create_video"),
        (Method::POST, "/api/v1/combine_video_clips"),
        (
            Method::GET,
            "/api/v1/get_video?uuid=00000000-0000-0000-0000-000000000000",
        ),
        (Method::POST, "/api/v1/create_project"),
        (Method::GET, "/api/v1/get_templates"),
        (Method::GET, "/api/v1/get_engines"),
    ] {
        let r = app
            .request(
                method,
                path,
                &[("content-type", "text/plain")],
                Some(b"x".to_vec()),
            )
            .await;
        r.assert_error(401, "unauthorized");
    }
}

async fn create_video_defaults_and_get_video(app: TestApp) {
    let acct = app.account().await;
    let r = app
        .post("/api/v1/create_video", &acct.api_key, &create_body(2))
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
    assert_eq!(jobs[0].0, queue::JobKind::Prepare);
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
    assert_eq!(
        request.image_inputs[0].camera_motion,
        stillreel_core::CameraMotion::Auto
    );
    assert_eq!(clips.len(), 2);
    assert!(clips.iter().all(|c| c.clip.clip_key.is_none()));
    assert_eq!(clips[1].position, 1);
}

async fn create_video_branding_and_options(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    // One clip: the ramp cannot take effect.
    let mut one = create_body(1);
    one["branding"] = json!({"speed_ramp": true});
    let r = app.post("/api/v1/create_video", key, &one).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["branding"]["speed_ramp"], false);
    assert_eq!(r.json["branding"]["status"], "queued");
    assert_eq!(r.json["branding"]["video_url"], "");

    let body = json!({
        "image_inputs": [
            {"image_url": "https://e.example/1.jpg", "camera_motion": "orbit-left",
             "vfx": {"type": "word-drop", "config": {"text": "Just listed"}}},
            {"image_url": "https://e.example/2.png", "vfx": {"type": "starry-night"}},
        ],
        "orientation": "portrait",
        "resolution": "1080p",
        "audio_url": "https://e.example/a.mp3",
        "branding": {"speed_ramp": true,
                     "outro": {"template": "outro-minimal", "config": {"brokerage": {"value": "Acme Realty"}}}},
    });
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["orientation"], "portrait");
    assert_eq!(r.json["resolution"], "1080p");
    assert_eq!(r.json["branding"]["speed_ramp"], true);
    assert_eq!(
        r.json["branding"]["templates"]["outro"]["template"],
        "outro-minimal"
    );
    // Branding without anything requested is no branding (CONTRACT §4).
    let mut nothing = create_body(2);
    nothing["branding"] = json!({"speed_ramp": false});
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
    let ids: Vec<String> = (0..3).map(|_| Uuid::new_v4().to_string()).collect();
    let r = app
        .post(
            "/api/v1/combine_video_clips",
            &small.api_key,
            &json!({"video_clip_uuids": ids, "orientation": "landscape", "resolution": "720p"}),
        )
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids".to_owned(), "too_many".to_owned())]
    );
}

async fn body_errors_are_enveloped(app: TestApp) {
    let acct = app.account().await;
    let key = acct.api_key.as_str();
    for path in [
        "/api/v1/create_video",
        "/api/v1/combine_video_clips",
        "/api/v1/create_project",
    ] {
        let json_ct = [("authorization", key), ("content-type", "application/json")];
        let r = app
            .request(
                Method::POST,
                path,
                &json_ct,
                Some(b"{\"image_inputs\": [".to_vec()),
            )
            .await;
        r.assert_error(400, "malformed_json");
        let r = app
            .request(Method::POST, path, &json_ct, Some(b"[1, 2]".to_vec()))
            .await;
        r.assert_error(400, "malformed_json");
        let r = app
            .request(Method::POST, path, &json_ct, Some(vec![0xff, 0xfe]))
            .await;
        r.assert_error(400, "malformed_json");
        let r = app.request(Method::POST, path, &json_ct, None).await;
        r.assert_error(400, "malformed_json");
        let r = app
            .request(
                Method::POST,
                path,
                &[("authorization", key)],
                Some(b"{}".to_vec()),
            )
            .await;
        r.assert_error(415, "unsupported_media_type");
        let form = [
            ("authorization", key),
            ("content-type", "application/x-www-form-urlencoded"),
        ];
        let r = app
            .request(Method::POST, path, &form, Some(b"a=b".to_vec()))
            .await;
        r.assert_error(415, "unsupported_media_type");
        let big = format!("{{\"name\": \"{}\"}}", "x".repeat(1024 * 1024));
        let r = app
            .request(Method::POST, path, &json_ct, Some(big.into_bytes()))
            .await;
        r.assert_error(413, "payload_too_large");
    }
    // Exactly 1 MiB is allowed (and then fails validation, not the size check).
    let mut body = String::from("{\"name\": \"");
    body.push_str(&"x".repeat(1024 * 1024 - 12));
    body.push_str("\"}");
    assert_eq!(body.len(), 1024 * 1024);
    let r = app
        .request(
            Method::POST,
            "/api/v1/create_project",
            &[("authorization", key), ("content-type", "application/json")],
            Some(body.into_bytes()),
        )
        .await;
    r.assert_error(422, "validation_failed");
    // charset parameters are fine.
    let r = app
        .request(
            Method::POST,
            "/api/v1/create_project",
            &[
                ("authorization", key),
                ("content-type", "application/json; charset=utf-8"),
            ],
            Some(br#"{"name": "Spring listings"}"#.to_vec()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
}

async fn routing_errors_are_enveloped(app: TestApp) {
    let acct = app.account().await;
    let r = app.get("/api/v1/no_such_thing", &acct.api_key).await;
    r.assert_error(404, "not_found");
    let r = app.get("/nothing/here", &acct.api_key).await;
    r.assert_error(404, "not_found");
    let r = app
        .request(
            Method::GET,
            "/api/v1/create_video",
            &[("authorization", &acct.api_key)],
            None,
        )
        .await;
    r.assert_error(405, "method_not_allowed");
    assert_eq!(
        r.headers.get("allow").and_then(|v| v.to_str().ok()),
        Some("POST")
    );
    let r = app
        .request(Method::DELETE, "/api/v1/get_video", &[], None)
        .await;
    r.assert_error(405, "method_not_allowed");
    // The web form is not built in tests: `/` explains how to build it.
    let r = app.request(Method::GET, "/", &[], None).await;
    assert_eq!(r.status, 200);
    assert!(String::from_utf8_lossy(&r.bytes).contains("not built"));
}

async fn projects_create_list_and_use(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let r = app
        .post(
            "/api/v1/create_project",
            key,
            &json!({"name": "  Spring listings "}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["name"], "Spring listings");
    assert_eq!(r.json["is_default"], false);
    let project = uuid_of(&r);
    let second = app
        .post("/api/v1/create_project", key, &json!({"name": "Second"}))
        .await;
    assert_eq!(second.status, 200);

    let list = app.get("/api/v1/get_projects", key).await;
    assert_eq!(list.status, 200);
    let projects = list.json["projects"].as_array().expect("projects");
    assert_eq!(projects.len(), 3);
    assert_eq!(
        projects[0]["uuid"],
        acct.default_project.to_string(),
        "oldest (default) first"
    );
    assert_eq!(projects[0]["is_default"], true);
    assert_eq!(projects[1]["name"], "Spring listings");
    assert_eq!(projects[2]["name"], "Second");

    let mut body = create_body(1);
    body["project"] = json!(project);
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["project"], project.to_string());

    body["project"] = json!(Uuid::new_v4());
    let r = app.post("/api/v1/create_video", key, &body).await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "not_found".to_owned())]
    );
    body["project"] = json!("not-a-uuid");
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "invalid_uuid".to_owned())]
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
    let mut body = create_body(3);
    body["branding"] = json!({"speed_ramp": true});
    let r = app.post("/api/v1/create_video", &acct.api_key, &body).await;
    let id = uuid_of(&r);
    let url = format!("/api/v1/get_video?uuid={id}");
    let db = app.db();

    assert!(
        !render::set_video_progress(db, id, 10).await.expect("p"),
        "no progress while queued"
    );
    assert!(
        !render::complete_video(db, id, "videos/x.mp4")
            .await
            .expect("c"),
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
    assert!(
        render::set_clip_rendered(db, clips[1].clip.id, "clips/b.mp4")
            .await
            .expect("clip")
    );
    assert!(
        !render::set_clip_rendered(db, clips[1].clip.id, "clips/other.mp4")
            .await
            .expect("clip"),
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
    assert!(
        render::set_clip_rendered(db, clips[0].clip.id, "clips/a.mp4")
            .await
            .expect("clip")
    );
    assert!(
        render::set_clip_rendered(db, clips[2].clip.id, "clips/c.mp4")
            .await
            .expect("clip")
    );
    assert!(
        render::complete_video(db, id, "videos/v/main.mp4")
            .await
            .expect("complete")
    );
    assert!(!render::start_video(db, id).await.expect("never back"));
    assert!(
        !render::fail_video(
            db,
            id,
            &JobError {
                code: "render_failed".into(),
                message: "x".into(),
                field: None
            }
        )
        .await
        .expect("f")
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
    assert!(
        render::complete_branding(db, id, "videos/v/branded.mp4")
            .await
            .expect("b")
    );
    let g = app.get(&url, &acct.api_key).await;
    assert_eq!(g.json["branding"]["status"], "complete");
    assert_eq!(
        g.json["branding"]["video_url"],
        format!("{}/files/videos/v/branded.mp4", app.base)
    );

    // A failing video carries its error, and takes its branding down with it.
    let mut body = create_body(2);
    body["branding"] = json!({"speed_ramp": true});
    let failing = uuid_of(&app.post("/api/v1/create_video", &acct.api_key, &body).await);
    let error = JobError {
        code: "media_too_large".into(),
        message: "the image is over 10 MiB".into(),
        field: Some("image_inputs[1].image_url".into()),
    };
    assert!(render::fail_video(db, failing, &error).await.expect("fail"));
    let g = app
        .get(&format!("/api/v1/get_video?uuid={failing}"), &acct.api_key)
        .await;
    assert_eq!(g.json["status"], "error");
    assert_eq!(g.json["video_url"], "");
    assert_eq!(g.json["error"]["code"], "media_too_large");
    assert_eq!(g.json["error"]["field"], "image_inputs[1].image_url");
    assert_eq!(g.json["branding"]["status"], "error");
}

async fn combine_video_clips_happy_path(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let mut body = create_body(2);
    body["image_inputs"][0]["vfx"] = json!({"type": "word-drop", "config": {"text": "Sold"}});
    let video = uuid_of(&app.post("/api/v1/create_video", key, &body).await);
    let clips = render_all(&app, video).await;

    let request = json!({
        "video_clip_uuids": [clips[1], clips[0], clips[1]],
        "orientation": "landscape",
        "resolution": "720p",
        "branding": true,
    });
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
    assert_eq!(jobs[0].0, queue::JobKind::Combine);
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
    let mut v24 = create_body(1);
    v24["ai_engine"] = json!("v24");
    let v24_clips = render_all(
        &app,
        uuid_of(&app.post("/api/v1/create_video", key, &v24).await),
    )
    .await;
    let mut portrait = create_body(1);
    portrait["orientation"] = json!("portrait");
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

    let combine = |ids: Vec<Uuid>| json!({"video_clip_uuids": ids, "orientation": "landscape", "resolution": "720p"});
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
    let mut wrong_res = combine(vec![l_clips[0]]);
    wrong_res["resolution"] = json!("1080p");
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
        .post(
            "/api/v1/combine_video_clips",
            key,
            &json!({"video_clip_uuids": ["x"], "orientation": "landscape", "resolution": "720p"}),
        )
        .await;
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids[0]".to_owned(), "invalid_uuid".to_owned())]
    );
}

async fn isolation_endpoint_by_endpoint(app: TestApp) {
    let alice = app.account().await;
    let bob = app.account().await;
    let a_project = uuid_of(
        &app.post(
            "/api/v1/create_project",
            &alice.api_key,
            &json!({"name": "Alice's"}),
        )
        .await,
    );
    let a_video = uuid_of(
        &app.post("/api/v1/create_video", &alice.api_key, &create_body(1))
            .await,
    );
    let a_clips = render_all(&app, a_video).await;

    // get_video: Alice's video does not exist for Bob.
    let r = app
        .get(&format!("/api/v1/get_video?uuid={a_video}"), &bob.api_key)
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        app.get(&format!("/api/v1/get_video?uuid={a_video}"), &alice.api_key)
            .await
            .status,
        200
    );
    // create_video into Alice's project.
    let mut body = create_body(1);
    body["project"] = json!(a_project);
    let r = app.post("/api/v1/create_video", &bob.api_key, &body).await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "not_found".to_owned())]
    );
    body["project"] = json!(alice.default_project);
    app.post("/api/v1/create_video", &bob.api_key, &body)
        .await
        .assert_error(404, "not_found");
    // combine with Alice's clip, or into Alice's project.
    let combine =
        json!({"video_clip_uuids": [a_clips[0]], "orientation": "landscape", "resolution": "720p"});
    let r = app
        .post("/api/v1/combine_video_clips", &bob.api_key, &combine)
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![("video_clip_uuids[0]".to_owned(), "not_found".to_owned())]
    );
    assert_eq!(
        app.post("/api/v1/combine_video_clips", &alice.api_key, &combine)
            .await
            .status,
        200
    );
    let b_video = uuid_of(
        &app.post("/api/v1/create_video", &bob.api_key, &create_body(1))
            .await,
    );
    let b_clips = render_all(&app, b_video).await;
    let into_alice = json!({"video_clip_uuids": [b_clips[0]], "orientation": "landscape", "resolution": "720p", "project": a_project});
    let r = app
        .post("/api/v1/combine_video_clips", &bob.api_key, &into_alice)
        .await;
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "not_found".to_owned())]
    );
    // get_projects lists only one's own; create_project lands in one's own account.
    let bob_projects = app.get("/api/v1/get_projects", &bob.api_key).await;
    let names: Vec<&str> = bob_projects.json["projects"]
        .as_array()
        .expect("p")
        .iter()
        .filter_map(|p| p["uuid"].as_str())
        .collect();
    assert_eq!(names, vec![bob.default_project.to_string()]);
    let alice_projects = app.get("/api/v1/get_projects", &alice.api_key).await;
    assert_eq!(
        alice_projects.json["projects"].as_array().map(Vec::len),
        Some(2)
    );
    // get_templates / get_engines carry no per-account data; both answer the same to both.
    assert_eq!(
        app.get("/api/v1/get_templates", &alice.api_key).await.json,
        app.get("/api/v1/get_templates", &bob.api_key).await.json
    );
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
    let combine = json!({"video_clip_uuids": [Uuid::new_v4()], "orientation": "landscape", "resolution": "720p"});
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

async fn templates_and_engines(app: TestApp) {
    let acct = app.account().await;
    let all = app.get("/api/v1/get_templates", &acct.api_key).await;
    assert_eq!(all.status, 200);
    let templates = all.json["templates"].as_array().expect("templates");
    assert!(templates.iter().filter(|t| t["slot"] == "intro").count() >= 2);
    assert!(templates.iter().filter(|t| t["slot"] == "outro").count() >= 2);
    assert!(
        templates
            .iter()
            .all(|t| t.get("style").is_none() && t["fields"].is_array())
    );
    let intro = app
        .get("/api/v1/get_templates?slot=intro", &acct.api_key)
        .await;
    assert!(
        intro.json["templates"]
            .as_array()
            .expect("t")
            .iter()
            .all(|t| t["slot"] == "intro")
    );
    let r = app
        .get("/api/v1/get_templates?slot=middle", &acct.api_key)
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("slot".to_owned(), "invalid_value".to_owned())]
    );

    let engines = app.get("/api/v1/get_engines", &acct.api_key).await;
    let list = engines.json["engines"].as_array().expect("engines");
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["id"], "v25");
    assert_eq!(list[1]["default"], true);
    assert!(
        !list[0]["camera_motions"]
            .as_array()
            .expect("m")
            .contains(&json!("orbit-left"))
    );
    assert!(
        !list[0]["vfx_types"]
            .as_array()
            .expect("v")
            .contains(&json!("virtual-staging"))
    );
    // The renderer can change what the deployment offers; the API follows at once.
    app.state
        .set_available_vfx(vec![stillreel_core::VfxType::VirtualStaging]);
    let engines = app.get("/api/v1/get_engines", &acct.api_key).await;
    assert_eq!(
        engines.json["engines"][0]["vfx_types"],
        json!(["virtual-staging"])
    );
    let mut body = create_body(1);
    body["image_inputs"][0]["vfx"] = json!({"type": "virtual-staging"});
    assert_eq!(
        app.post("/api/v1/create_video", &acct.api_key, &body)
            .await
            .status,
        200
    );
}

async fn files_are_served_with_ranges(app: TestApp) {
    store(&app, "videos/t/main.mp4", b"0123456789");
    let r = app
        .request(Method::GET, "/files/videos/t/main.mp4", &[], None)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("video/mp4")
    );
    assert_eq!(&r.bytes[..], b"0123456789");
    let r = app
        .request(
            Method::GET,
            "/files/videos/t/main.mp4",
            &[("range", "bytes=2-5")],
            None,
        )
        .await;
    assert_eq!(r.status, 206);
    assert_eq!(&r.bytes[..], b"2345");
    assert_eq!(
        r.headers.get("content-range").and_then(|v| v.to_str().ok()),
        Some("bytes 2-5/10")
    );
    let r = app
        .request(Method::GET, "/files/videos/t/missing.mp4", &[], None)
        .await;
    r.assert_error(404, "not_found");
    let r = app
        .request(Method::GET, "/files/../stillreel.db", &[], None)
        .await;
    assert_eq!(r.status, 404);
}

async fn default_engine_follows_config(app: TestApp) {
    // This test spawns its own server with another default engine on the same backend.
    let backend = app.backend;
    drop(app);
    let Some(app) =
        TestApp::spawn_with(backend, |c| c.default_engine = stillreel_core::Engine::V24).await
    else {
        return;
    };
    let acct = app.account().await;
    let r = app
        .post("/api/v1/create_video", &acct.api_key, &create_body(1))
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

/// The `Retry-After` of a 429, in seconds.
fn retry_after(r: &Resp) -> u64 {
    r.headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no whole-second Retry-After in {:?}", r.headers))
}

async fn rate_limit_per_account(app: TestApp) {
    let (a, b) = (app.account().await, app.account().await);

    // Keys that are missing or unknown are refused as before and spend no budget.
    for _ in 0..5 {
        app.get("/api/v1/get_projects", "sr_unknown")
            .await
            .assert_error(401, "unauthorized");
        app.request(Method::GET, "/api/v1/get_engines", &[], None)
            .await
            .assert_error(401, "unauthorized");
    }

    // A: three GETs pass; the fourth request, a POST, is refused.
    for path in [
        "/api/v1/get_projects",
        "/api/v1/get_engines",
        "/api/v1/get_templates",
    ] {
        let r = app.get(path, &a.api_key).await;
        assert_eq!(r.status, 200, "{path}: {}", r.json);
    }
    let r = app
        .post("/api/v1/create_video", &a.api_key, &create_body(1))
        .await;
    r.assert_error(429, "rate_limited");
    assert_eq!(r.json["error"]["details"], json!([]));
    // 3/min gives one request back every 20 s.
    let wait = retry_after(&r);
    assert!((1..=20).contains(&wait), "Retry-After {wait}");
    assert_eq!(
        r.json["error"]["message"],
        format!("too many requests for this API key; retry in {wait} s")
    );
    let r = app.get("/api/v1/get_projects", &a.api_key).await;
    r.assert_error(429, "rate_limited");
    assert!(retry_after(&r) >= 1);
    // A bad key is still a 401, not a 429, while A is limited.
    app.get("/api/v1/get_projects", &format!("{}x", a.api_key))
        .await
        .assert_error(401, "unauthorized");

    // B has its own bucket; its three POSTs count like GETs.
    for _ in 0..3 {
        let r = app
            .post("/api/v1/create_video", &b.api_key, &create_body(1))
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
    }
    app.get("/api/v1/get_projects", &b.api_key)
        .await
        .assert_error(429, "rate_limited");

    // Operations endpoints, the OpenAPI document and files are never limited.
    for _ in 0..5 {
        for path in ["/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"] {
            let r = app.request(Method::GET, path, &[], None).await;
            assert_eq!(r.status, 200, "{path}");
        }
    }
    let r = app.request(Method::GET, "/metrics", &[], None).await;
    let text = String::from_utf8_lossy(&r.bytes);
    assert!(
        text.contains(
            r#"stillreel_http_requests_total{route="/api/v1/get_projects",status="429"} 2"#
        ),
        "{text}"
    );
    // B's three videos are queued; A's refused POST created nothing.
    assert!(
        text.contains(r#"stillreel_jobs{state="queued"} 3"#),
        "{text}"
    );
}

async fn no_rate_limit_by_default(app: TestApp) {
    assert_eq!(app.state.config.rate_limit, None);
    assert!(app.state.rate_limiter.is_none());
    let acct = app.account().await;
    for i in 0..40 {
        let r = app.get("/api/v1/get_engines", &acct.api_key).await;
        assert_eq!(r.status, 200, "request {i}: {}", r.json);
    }
    for _ in 0..5 {
        let r = app
            .post("/api/v1/create_video", &acct.api_key, &create_body(1))
            .await;
        assert_eq!(r.status, 200, "{}", r.json);
    }
}
