//! API keys, one account's data kept from another, and the per-account rate limit.

use hyper::Method;
use serde_json::json;
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder};
use stillreel_server::config::{Config, RateLimit};

use crate::common::{Resp, TestApp, combine_body, create_body, json_body, project_body};
use crate::{render_all, uuid_of};

crate::both_backends!(
    auth_forms,
    isolation_endpoint_by_endpoint,
    no_rate_limit_by_default,
);

// `STILLREEL_RATE_LIMIT=3/min`: its own server per backend.
crate::both_backends!(
    mod rate_limit, configured by three_per_minute:
    rate_limit_per_account,
);

fn three_per_minute(config: &mut Config) {
    config.rate_limit = RateLimit::parse("3/min").expect("valid limit");
}

/// The `Retry-After` of a 429, in seconds.
fn retry_after(r: &Resp) -> u64 {
    r.headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no whole-second Retry-After in {:?}", r.headers))
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

async fn isolation_endpoint_by_endpoint(app: TestApp) {
    let alice = app.account().await;
    let bob = app.account().await;
    let a_project = uuid_of(
        &app.post(
            "/api/v1/create_project",
            &alice.api_key,
            &project_body("Alice's"),
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
    let into = |project| json_body(&CreateVideoBuilder::new().project(project).build());
    let r = app
        .post("/api/v1/create_video", &bob.api_key, &into(a_project))
        .await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "not_found".to_owned())]
    );
    app.post(
        "/api/v1/create_video",
        &bob.api_key,
        &into(alice.default_project),
    )
    .await
    .assert_error(404, "not_found");
    // combine with Alice's clip, or into Alice's project.
    let combine = combine_body(&[a_clips[0]]);
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
    let into_alice = json_body(
        &CombineBuilder::new()
            .clips(vec![b_clips[0]])
            .project(a_project)
            .build(),
    );
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
