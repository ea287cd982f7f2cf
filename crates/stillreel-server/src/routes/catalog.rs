//! `GET /get_templates`, `GET /get_engines`: the deployment's catalog.

use axum::Json;
use axum::extract::State;
use stillreel_core::{EngineList, ErrorCode, FieldError, TemplateList, TemplateSlotKind, catalog};

use super::params::QueryPairs;
use crate::error::{ApiError, Envelope};
use crate::extract::Auth;
use crate::state::AppState;

/// Intro and outro templates, optionally of one slot.
#[utoipa::path(
    get, path = "/get_templates", tag = "catalog",
    params(("slot" = Option<TemplateSlotKind>, Query, description = "Only templates of this slot")),
    responses(
        (status = 200, description = "The templates", body = TemplateList),
        (status = 422, description = "Unknown slot", body = Envelope),
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
    get, path = "/get_engines", tag = "catalog",
    responses(
        (status = 200, description = "The engines", body = EngineList),
    ),
    security(("api_key" = []))
)]
pub async fn get_engines(State(state): State<AppState>, Auth(_): Auth) -> Json<EngineList> {
    Json(EngineList {
        engines: catalog::engines(
            state.config.default_engine,
            &state.available_engines(),
            &state.available_vfx(),
        ),
        providers: state.provider_health(),
    })
}
