//! Security headers on every answer: what a browser may load, run and frame for each kind of
//! path (docs/SECURITY.md#browser-headers).

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

/// The web form: its own scripts, styles and WebAssembly (`'wasm-unsafe-eval'` lets the
/// browser compile the validator; no `eval` of text); pictures and videos from anywhere (the
/// listing photos are the user's URLs, and with object storage `/files/` redirects to the
/// store); requests only to its own origin; never framed.
pub const FORM_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
    style-src 'self'; img-src 'self' data: blob: https: http:; \
    media-src 'self' blob: https: http:; connect-src 'self'; object-src 'none'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Stored media and sample pictures: nothing in them may run, even opened directly (a file
/// that a browser would take for a page is sandboxed, without scripts or an origin).
pub const FILES_POLICY: &str = "default-src 'none'; img-src 'self'; media-src 'self'; \
    style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'";

/// JSON answers (the API, `/healthz`, `/metrics`): nothing to load at all.
pub const API_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// Adds `Content-Security-Policy` (by path), `X-Content-Type-Options: nosniff`,
/// `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY` (for browsers older than
/// `frame-ancestors`) to every response.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let policy = policy_for(request.uri().path());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// The policy for a request path.
pub fn policy_for(path: &str) -> &'static str {
    let under = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if under(crate::storage::FILES_PATH) || under("/samples") {
        FILES_POLICY
    } else if under("/api") || matches!(path, "/healthz" | "/readyz" | "/metrics") {
        API_POLICY
    } else {
        FORM_POLICY
    }
}

/// The longest `X-Request-Id` a client may choose.
pub const REQUEST_ID_MAX_CHARS: usize = 64;

/// Whether a client's `X-Request-Id` is taken as the request's id: 1 to
/// [`REQUEST_ID_MAX_CHARS`] characters of `[A-Za-z0-9._-]`, so it is safe in logs and echoed
/// back unchanged. Any other value is replaced by a fresh id.
pub fn is_safe_request_id(value: &[u8]) -> bool {
    (1..=REQUEST_ID_MAX_CHARS).contains(&value.len())
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Drops a client's `X-Request-Id` that [`is_safe_request_id`] refuses, so the id layer
/// after this one makes a fresh one.
pub async fn drop_unsafe_request_id(mut request: Request, next: Next) -> Response {
    let unsafe_ids = request
        .headers()
        .get_all("x-request-id")
        .iter()
        .any(|v| !is_safe_request_id(v.as_bytes()));
    let several = request.headers().get_all("x-request-id").iter().count() > 1;
    if unsafe_ids || several {
        request.headers_mut().remove("x-request-id");
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_request_ids_are_kept() {
        for ok in ["a", "req-1.2_3", &"x".repeat(REQUEST_ID_MAX_CHARS)] {
            assert!(is_safe_request_id(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "",
            "has space",
            "new\nline",
            "<script>",
            "é",
            &"x".repeat(REQUEST_ID_MAX_CHARS + 1),
        ] {
            assert!(!is_safe_request_id(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn each_path_gets_its_policy() {
        assert_eq!(policy_for("/"), FORM_POLICY);
        assert_eq!(policy_for("/index.html"), FORM_POLICY);
        assert_eq!(
            policy_for("/stillreel/pkg/stillreel_wasm_bg.wasm"),
            FORM_POLICY
        );
        assert_eq!(policy_for("/files/videos/a/main.mp4"), FILES_POLICY);
        assert_eq!(policy_for("/samples/house.jpg"), FILES_POLICY);
        assert_eq!(policy_for("/filesx"), FORM_POLICY);
        assert_eq!(policy_for("/api/v1/get_video"), API_POLICY);
        assert_eq!(policy_for("/metrics"), API_POLICY);
        assert!(FORM_POLICY.contains("'wasm-unsafe-eval'"));
        // WebAssembly may compile; text may not be evaluated as script.
        assert!(
            !FORM_POLICY
                .replace("'wasm-unsafe-eval'", "")
                .contains("'unsafe-eval'")
        );
        assert!(!FORM_POLICY.contains("'unsafe-inline'"));
    }
}
