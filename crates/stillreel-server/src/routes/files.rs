//! Static files: rendered media at `/files/{key}` and the web form at `/`.
//!
//! tower-http's `ServeDir` answers `Range` requests (206 with `Content-Range`), sets
//! `Content-Type` from the extension and refuses paths that climb out of the directory.

use std::path::Path;

use axum::Router;
use axum::http::HeaderValue;
use axum::http::header;
use axum::response::Html;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::state::AppState;

/// `GET /files/{key}` from the media directory.
pub fn media(root: &Path) -> Router<AppState> {
    Router::new().nest_service(
        crate::storage::FILES_PATH,
        ServeDir::new(root).append_index_html_on_directories(false),
    )
}

/// `GET /samples/{name}`: the bundled sample pictures (`STILLREEL_SAMPLES_DIR`), so the
/// README's demo has images to point at without any outside server.
pub fn samples(root: &Path) -> Router<AppState> {
    Router::new().nest_service(
        "/samples",
        ServeDir::new(root).append_index_html_on_directories(false),
    )
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
