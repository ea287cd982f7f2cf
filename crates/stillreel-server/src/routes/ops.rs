//! Operations endpoints: `/healthz`, `/readyz`, `/metrics` (`/api/v1/openapi.json` is served
//! by `app.rs`, which builds the document with the router).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::queue;
use crate::state::Services;

/// The process is up.
pub async fn healthz() -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "ok"}))
}

/// The process can serve: its database answers and its data folder has the free space
/// `STILLREEL_MIN_FREE_BYTES` asks for. Not ready says why (every reason found).
pub async fn readyz(State(state): State<Services>) -> Result<Json<serde_json::Value>, ApiError> {
    let mut reasons = Vec::new();
    if !state.db.ping().await {
        reasons.push("the database does not answer");
    }
    if crate::disk::is_low(&state.config) {
        reasons.push("the server is out of disk space (less free than STILLREEL_MIN_FREE_BYTES)");
    }
    if reasons.is_empty() {
        Ok(Json(serde_json::json!({"status": "ready"})))
    } else {
        Err(ApiError::Unavailable(reasons.join("; ")))
    }
}

/// Prometheus text exposition; with `STILLREEL_METRICS_TOKEN` set, only for
/// `Authorization: Bearer <token>`.
pub async fn metrics(State(state): State<Services>, headers: HeaderMap) -> Response {
    if let Some(token) = &state.config.metrics_token {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if !token.accepts(presented) {
            return ApiError::MetricsUnauthorized.into_response();
        }
    }
    let depth = match queue::depth_by_state(&state.db).await {
        Ok(depth) => depth,
        Err(err) => {
            tracing::warn!(error = %err, "queue depth unavailable for /metrics");
            Vec::new()
        }
    };
    let by_kind = queue::depth_by_kind(&state.db).await.unwrap_or_default();
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render_with_kinds(&depth, &by_kind),
    )
        .into_response()
}
