//! Static files: rendered media at `/files/{key}` and the web form at `/`.
//!
//! tower-http's `ServeDir` answers `Range` requests (206 with `Content-Range`), sets
//! `Content-Type` from the extension and refuses paths that climb out of the directory. With
//! files in an object store, `/files/{key}` answers `302` to a presigned GET instead: records
//! keep a stable URL of ours, and the bytes (Range included) come from the store.

use std::path::Path;

use std::future::Future;

use axum::Router;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::config::StorageConfig;
use crate::samples::is_sample_path;
use crate::state::AppState;

/// `GET /files/{key}`: from the media directory, or a redirect into the object store.
pub fn media(storage: &StorageConfig) -> Router<AppState> {
    match storage {
        // Files being written (the storage's `.<name>.<id>.part` temporaries) and any other
        // dot name are never served: a half-written render must not be downloadable, nor
        // anything an operator hid.
        StorageConfig::Local(root) => Router::new()
            .nest_service(
                crate::storage::FILES_PATH,
                ServeDir::new(root).append_index_html_on_directories(false),
            )
            .layer(middleware::from_fn(only(is_media_path))),
        StorageConfig::S3(_) => Router::new().route(
            &format!("{}/{{*key}}", crate::storage::FILES_PATH),
            axum::routing::get(presigned),
        ),
    }
}

/// `302` to a presigned GET of `key`. Not cached by clients: the link expires, the URL of ours
/// does not.
async fn presigned(State(state): State<AppState>, UrlPath(key): UrlPath<String>) -> Response {
    if crate::storage::check_key(&key).is_err() || !crate::storage::is_served_key(&key) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let storage = std::sync::Arc::clone(&state.storage);
    // Presigning waits on the storage's own runtime: keep it off this one's workers.
    let signed = tokio::task::spawn_blocking(move || storage.download_url(&key)).await;
    match signed {
        Ok(Ok(Some(url))) => match HeaderValue::from_str(&url) {
            Ok(location) => (
                StatusCode::FOUND,
                [
                    (header::LOCATION, location),
                    (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                ],
            )
                .into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
        Ok(Ok(None)) => StatusCode::NOT_FOUND.into_response(),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "presigning a download failed");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
        Err(err) => {
            tracing::warn!(error = %err, "presigning a download failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// `GET /samples/{name}`: the bundled sample pictures (`STILLREEL_SAMPLES_DIR`), so the
/// README's demo has images to point at without any outside server, and any song an operator
/// puts beside them (a demo with music works offline too). Only pictures and sound files
/// directly in that folder: not its README, generator script or anything else there.
pub fn samples(root: &Path) -> Router<AppState> {
    Router::new()
        .nest_service(
            "/samples",
            ServeDir::new(root).append_index_html_on_directories(false),
        )
        .layer(middleware::from_fn(only(is_sample_path)))
}

/// Whether a `/files/...` path may be served: no segment starts with a dot or ends in
/// `.part`, nothing is percent-encoded (stored keys never are, and decoding here as
/// `ServeDir` does would be a second parser to keep in step), and the key is not private (a
/// video's checked inputs).
pub fn is_media_path(path: &str) -> bool {
    let key = path
        .strip_prefix(crate::storage::FILES_PATH)
        .unwrap_or(path);
    !path.contains('%')
        && crate::storage::is_served_key(key)
        && path
            .split('/')
            .all(|segment| !segment.starts_with('.') && !segment.ends_with(".part"))
}

/// A middleware that answers 404 (the envelope layer wraps it) for paths `allowed` refuses.
fn only(
    allowed: fn(&str) -> bool,
) -> impl Fn(Request, Next) -> std::pin::Pin<Box<dyn Future<Output = Response> + Send>> + Clone {
    move |request: Request, next: Next| {
        Box::pin(async move {
            if allowed(request.uri().path()) {
                next.run(request).await
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        })
    }
}

/// Adds the web form's files at `/` to `router`, or, when the directory is missing, a page
/// saying how to build it. Paths that match nothing else end in `not_found` (enveloped 404).
pub fn with_web<H, T>(router: Router<AppState>, dir: &Path, not_found: H) -> Router<AppState>
where
    H: axum::handler::Handler<T, AppState>,
    T: 'static,
{
    if dir.is_dir() {
        // mime_guess maps .wasm to application/wasm, which browsers require for streaming
        // compilation. A missing file is ServeDir's bare 404, which the envelope layer wraps.
        let serve = ServeDir::new(dir);
        router.fallback_service(
            tower::ServiceBuilder::new()
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ))
                .service(serve),
        )
    } else {
        let page = format!(
            "<!doctype html><meta charset=utf-8><title>stillreel</title>\
             <h1>stillreel</h1><p>The web form is not built: <code>{}</code> does not exist.</p>\
             <p>Build it (see the README: the web form's build command writes <code>web/dist</code>), \
             or point <code>STILLREEL_WEB_DIR</code> at a built copy. The API is at \
             <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a>.</p>",
            html_escape(&dir.display().to_string())
        );
        router
            .route("/", axum::routing::get(move || async move { Html(page) }))
            .fallback(not_found)
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_paths() {
        assert!(is_media_path("/files/videos/abc/main.mp4"));
        assert!(!is_media_path("/files/videos/abc/.main.mp4.1-2.part"));
        assert!(!is_media_path("/files/videos/abc/main.mp4.part"));
        assert!(!is_media_path("/files/.hidden"));
        assert!(!is_media_path("/files/videos/%2emain.part"));
        // A video's checked inputs are stored, never served.
        assert!(!is_media_path("/files/private/videos/abc/input-000.png"));
        assert!(!is_media_path("/files//private/videos/abc/music.mp3"));
        assert!(is_media_path("/files/videos/private/main.mp4"));
    }
}
