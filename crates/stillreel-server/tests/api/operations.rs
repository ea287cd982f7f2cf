//! Operations endpoints (`/healthz`, `/readyz`, `/metrics`, the OpenAPI document) and stored
//! files under `/files`.

use hyper::Method;

use crate::common::{TestApp, create_body};
use crate::store;

crate::both_backends!(
    health_ready_metrics_and_openapi,
    files_are_served_with_ranges,
);

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
