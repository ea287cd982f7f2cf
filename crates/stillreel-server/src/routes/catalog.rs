//! `GET /get_templates`, `GET /get_engines`: the deployment's catalog.

use axum::Json;
use axum::extract::State;
use stillreel_core::{EngineList, ErrorCode, FieldError, TemplateList, TemplateSlotKind, catalog};

use super::QueryPairs;
use crate::error::ApiError;
use crate::extract::Auth;
use crate::state::AppState;

/// Intro and outro templates, optionally of one slot.
#[utoipa::path(
    get, path = "/api/v1/get_templates", tag = "catalog",
    params(("slot" = Option<crate::openapi::TemplateSlotKind>, Query, description = "Only templates of this slot")),
    responses(
        (status = 200, description = "The templates", body = crate::openapi::TemplateList),
        (status = 401, description = "No or unknown API key", body = crate::openapi::ErrorEnvelope),
        (status = 422, description = "Unknown slot", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "Over the account's rate limit (only when the operator sets one)", body = crate::openapi::ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Whole seconds to wait before the next request; at least 1"))),
        (status = 500, description = "Internal error", body = crate::openapi::ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_templates(
    State(state): State<AppState>,
    Auth(_): Auth,
    query: QueryPairs,
) -> Result<Json<TemplateList>, ApiError> {
    let slot = match query.get("slot") {
        None => None,
        Some(text) => Some(TemplateSlotKind::parse(text).ok_or_else(|| {
            ApiError::invalid(vec![FieldError::new(
                "slot",
                ErrorCode::InvalidValue,
                format!("slot must be {}", TemplateSlotKind::allowed_list()),
            )])
        })?),
    };
    let templates = state
        .templates
        .iter()
        .filter(|t| slot.is_none_or(|s| t.slot == s))
        .cloned()
        .collect();
    Ok(Json(TemplateList { templates }))
}

/// The engines, their camera motions, and the vfx types this deployment renders.
#[utoipa::path(
    get, path = "/api/v1/get_engines", tag = "catalog",
    responses(
        (status = 200, description = "The engines", body = crate::openapi::EngineList),
        (status = 401, description = "No or unknown API key", body = crate::openapi::ErrorEnvelope),
        (status = 429, description = "Over the account's rate limit (only when the operator sets one)", body = crate::openapi::ErrorEnvelope,
            headers(("Retry-After" = u64, description = "Whole seconds to wait before the next request; at least 1"))),
        (status = 500, description = "Internal error", body = crate::openapi::ErrorEnvelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_engines(State(state): State<AppState>, Auth(_): Auth) -> Json<EngineList> {
    Json(EngineList {
        engines: catalog::engines(state.config.default_engine, &state.available_vfx()),
    })
}
