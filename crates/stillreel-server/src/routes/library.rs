//! `GET /get_videos` and `POST /delete_video`: the account's library
//! (docs/API-DESIGN.md#library).

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use stillreel_core::limits::TITLE_MAX_CHARS;
use stillreel_core::{ErrorCode, FieldError, Status, VideoList};
use utoipa::ToSchema;
use uuid::Uuid;

use super::params::QueryPairs;
use crate::error::{ApiError, Envelope};
use crate::extract::{Auth, JsonBody};
use crate::page_cache::PageKey;
use crate::repo::accounts;
use crate::repo::videos::{self, Deleted, ListQuery, StoredClip};
use crate::state::AppState;

/// Videos (or uploads) on a page unless `limit` says otherwise.
pub const DEFAULT_PAGE: usize = 20;
/// The most videos (or uploads) on one page.
pub const MAX_PAGE: usize = 100;

/// `limit` and `cursor` of a listing (`get_videos`, `get_uploads`): the page size (default
/// [`DEFAULT_PAGE`]) and the `(created_at, id)` to continue after. Errors are added to
/// `errors`; `endpoint` names the listing in the cursor's message.
pub fn page(
    query: &QueryPairs,
    endpoint: &str,
    errors: &mut Vec<FieldError>,
) -> (usize, Option<(i64, Uuid)>) {
    let limit = match query.get("limit") {
        None => Some(DEFAULT_PAGE),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => Some(n),
            _ => {
                errors.push(FieldError::new(
                    "limit",
                    ErrorCode::InvalidValue,
                    format!("limit must be a whole number from 1 to {MAX_PAGE}"),
                ));
                None
            }
        },
    };
    let after = match query.get("cursor").filter(|s| !s.is_empty()) {
        None => None,
        Some(text) => {
            let parsed = videos::parse_cursor(text);
            if parsed.is_none() {
                errors.push(FieldError::new(
                    "cursor",
                    ErrorCode::InvalidValue,
                    format!("cursor must be a next_cursor that {endpoint} answered"),
                ));
            }
            parsed
        }
    };
    (limit.unwrap_or(DEFAULT_PAGE), after)
}

/// The query of `get_videos`, checked. A member given empty (`project=`) is an error like any
/// other bad value, as the OpenAPI document says; leave it out for "any".
fn list_query(query: &QueryPairs) -> Result<ListQuery, ApiError> {
    let mut errors = Vec::new();
    let project = match query.get("project") {
        None => None,
        Some(_) => match query.uuid("project") {
            Ok(id) => Some(id),
            Err(ApiError::Validation { errors: e, .. }) => {
                errors.extend(e);
                None
            }
            Err(other) => return Err(other),
        },
    };
    let status = match query.get("status") {
        None => None,
        Some(text) => {
            let parsed = Status::parse(text);
            if parsed.is_none() {
                errors.push(FieldError::new(
                    "status",
                    ErrorCode::InvalidValue,
                    format!("status must be one of {}", Status::allowed_list()),
                ));
            }
            parsed
        }
    };
    let (limit, after) = page(query, "get_videos", &mut errors);
    // An empty q (a cleared search box) lists everything. Longer than a title can be, it
    // could match nothing.
    let q = query.get("q").filter(|s| !s.is_empty());
    if let Some(q) = q {
        let length = q.chars().count();
        if length > TITLE_MAX_CHARS {
            errors.push(FieldError::new(
                "q",
                ErrorCode::TooLong,
                format!(
                    "q must be at most {TITLE_MAX_CHARS} characters, a title's length; it has {length}"
                ),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::invalid(errors));
    }
    Ok(ListQuery {
        project,
        status,
        title_contains: q.map(stillreel_core::rules::title::search_text),
        limit,
        after,
    })
}

/// The account's videos, newest first, a page at a time.
#[utoipa::path(
    get, path = "/get_videos", tag = "videos",
    params(
        ("project" = Option<String>, Query, description = "Only this project's videos", format = Uuid),
        ("status" = Option<String>, Query, description = "Only videos with this status: queued, in_progress, complete or error"),
        ("limit" = Option<u32>, Query, description = "Videos per page, 1 to 100; default 20", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "The previous page's next_cursor"),
        ("q" = Option<String>, Query, description = "Only videos whose title contains this text, ignoring case (`%` and `_` are plain characters; characters a title cannot hold, such as control characters, are dropped); at most 120 characters; empty means any", max_length = 120),
    ),
    responses(
        (status = 200, description = "One page of videos, each as get_video answers it", body = VideoList),
        (status = 404, description = "The project does not exist or belongs to another account", body = Envelope),
        (status = 422, description = "Invalid project, status, limit or cursor, or q too long", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_videos(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    query: QueryPairs,
) -> Result<Response, ApiError> {
    let query = list_query(&query)?;
    // Searches are not cached: the cache is for the polled pages, and its key has no q.
    let cache = state
        .db
        .page_cache()
        .filter(|_| state.config.get_video_cache && query.title_contains.is_none());
    let key: PageKey = (
        query.project,
        query.status.map(|s| s.as_str()),
        query.limit,
        query.after,
    );
    // A cached page was only stored after its project was found to be the account's, and a
    // project never changes hands: a hit needs no ownership query.
    if let Some(body) = cache.and_then(|c| c.get(ctx.account_id, &key)) {
        return Ok(json_bytes(body));
    }
    let ticket = cache.and_then(|c| c.ticket(ctx.account_id));
    if let Some(project) = query.project
        && !accounts::owns_project(&state.db, ctx.account_id, project).await?
    {
        return Err(ApiError::not_found_fields(vec![FieldError::new(
            "project",
            ErrorCode::NotFound,
            "this project does not exist or belongs to another account",
        )]));
    }
    let (videos, next_cursor) =
        videos::list_videos(&state.db, ctx.account_id, &query, &state.config.public_url).await?;
    let listed: Vec<Uuid> = videos.iter().map(|v| v.uuid).collect();
    let body = Bytes::from(
        serde_json::to_vec(&VideoList {
            videos,
            next_cursor,
        })
        .map_err(|e| ApiError::Internal(format!("encoding a page: {e}")))?,
    );
    if let (Some(cache), Some(ticket)) = (cache, ticket) {
        cache.put(ctx.account_id, key, &listed, body.clone(), ticket);
    }
    Ok(json_bytes(body))
}

fn json_bytes(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `POST /delete_video` body.
#[derive(Debug, serde::Deserialize, ToSchema)]
pub struct DeleteVideoRequest {
    pub uuid: Uuid,
}

/// `POST /delete_video` answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedVideo {
    pub uuid: Uuid,
    pub deleted: bool,
}

/// Deletes a settled video: its record disappears and its files leave storage.
#[utoipa::path(
    post, path = "/delete_video", tag = "videos",
    request_body(content = DeleteVideoRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Deleted", body = DeletedVideo),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 404, description = "No such video for this account", body = Envelope),
        (status = 409, description = "The video or its branded render is still queued or rendering (`video_in_progress`)", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Missing or invalid uuid", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn delete_video(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<DeletedVideo>, ApiError> {
    let id = super::params::uuid_body(&body)?;
    // Marking the record deleted and removing its files run on a task of their own, so a
    // client that hangs up cannot leave the record deleted and its files still served.
    let task = tokio::spawn(delete_video_and_files(state, ctx.account_id, id));
    task.await
        .map_err(|e| ApiError::Internal(format!("delete task: {e}")))?
}

async fn delete_video_and_files(
    state: AppState,
    account: Uuid,
    id: Uuid,
) -> Result<Json<DeletedVideo>, ApiError> {
    match videos::delete_video(&state.db, account, id).await? {
        Deleted::NotFound => Err(ApiError::not_found("video")),
        Deleted::Busy => Err(ApiError::Refused {
            status: StatusCode::CONFLICT,
            code: "video_in_progress",
            message: "this video or its branded render is still queued or rendering; delete it \
                      once get_video shows it complete or error"
                .to_owned(),
        }),
        Deleted::Done(keys) => {
            let storage = state.storage.clone();
            let removed = tokio::task::spawn_blocking(move || {
                let errors = keys
                    .iter()
                    .filter_map(|key| storage.delete(key).err())
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>();
                for folder in videos::folders_of(id) {
                    crate::storage::remove_empty_folders(storage.as_ref(), &folder);
                }
                errors
            })
            .await
            .map_err(|e| ApiError::Internal(format!("delete task: {e}")))?;
            for error in removed {
                // The record is gone either way; a file left behind is logged for the operator.
                tracing::warn!(video = %id, %error, "a deleted video's file could not be removed");
            }
            Ok(Json(DeletedVideo {
                uuid: id,
                deleted: true,
            }))
        }
    }
}

/// Refuses a combine that names a clip of a deleted video, with a message that says so (the
/// clip's file is gone).
pub fn refuse_deleted_clips(
    found: &HashMap<Uuid, StoredClip>,
    requested: &[Uuid],
) -> Result<(), ApiError> {
    let gone: Vec<FieldError> = requested
        .iter()
        .enumerate()
        .filter(|(_, id)| found.get(id).is_some_and(|c| c.video_deleted))
        .map(|(i, _)| {
            FieldError::new(
                format!("video_clip_uuids[{i}]"),
                ErrorCode::NotFound,
                "this clip's video was deleted (POST /delete_video), and its file with it",
            )
        })
        .collect();
    if gone.is_empty() {
        Ok(())
    } else {
        Err(ApiError::not_found_fields(gone))
    }
}
