//! `POST /create_project`, `GET /get_projects`, `GET /get_account`.

use axum::Json;
use axum::extract::State;
use stillreel_core::{Project, ProjectList, validate_create_project};

use crate::error::{ApiError, Envelope};
use crate::extract::{Auth, JsonBody};
use crate::repo::accounts::{self, AccountInfo};
use crate::state::AppState;

/// Creates a project.
#[utoipa::path(
    post, path = "/create_project", tag = "projects",
    request_body(content = stillreel_core::CreateProjectRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The new project", body = Project),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 408, description = "The body took longer than the server's body deadline (30 s by default) to arrive", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Invalid name", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn create_project(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<Project>, ApiError> {
    let request = validate_create_project(&body)?;
    Ok(Json(
        accounts::create_project(&state.db, ctx.account_id, &request.name).await?,
    ))
}

/// The account's projects, oldest first (the default project included).
#[utoipa::path(
    get, path = "/get_projects", tag = "projects",
    responses(
        (status = 200, description = "Every project of the account", body = ProjectList),
    ),
    security(("api_key" = []))
)]
pub async fn get_projects(
    State(state): State<AppState>,
    Auth(ctx): Auth,
) -> Result<Json<ProjectList>, ApiError> {
    Ok(Json(ProjectList {
        projects: accounts::list_projects(&state.db, ctx.account_id).await?,
    }))
}

/// The calling account: its name, clip limit (clips per video) and default project.
#[utoipa::path(
    get, path = "/get_account", tag = "projects",
    responses(
        (status = 200, description = "The key's account", body = AccountInfo),
    ),
    security(("api_key" = []))
)]
pub async fn get_account(
    State(state): State<AppState>,
    Auth(ctx): Auth,
) -> Result<Json<AccountInfo>, ApiError> {
    Ok(Json(accounts::info(&state.db, &ctx).await?))
}
