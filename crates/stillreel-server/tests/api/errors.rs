//! The error envelope for what is wrong before any rule runs: the body (not JSON, wrong media
//! type, too large) and the route (unknown path, wrong method).

use hyper::Method;

use crate::common::{TestApp, project_body};

crate::both_backends!(body_errors_are_enveloped, routing_errors_are_enveloped,);

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
            Some(project_body("Spring listings").to_string().into_bytes()),
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
