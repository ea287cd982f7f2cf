//! `GET /get_uploads` and `POST /delete_upload`: the account's stored uploads, listed as the
//! library lists videos, and deleted to free their quota (docs/API-DESIGN.md#uploads).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use stillreel_core::{ErrorCode, FieldError, UploadList, UploadedMedia};
use stillreel_render::media::fetch::own_url_path;
use utoipa::ToSchema;
use uuid::Uuid;

use super::library::page;
use super::params::QueryPairs;
use crate::db::rfc3339;
use crate::error::{ApiError, Envelope};
use crate::extract::{Auth, JsonBody};
use crate::repo::uploads::{self, DeletedUpload, StoredUpload};
use crate::state::AppState;
use crate::storage::public_url;

/// The storage keys of the uploads `request` names (any string of it that is a URL under
/// `public_url`'s `/files/uploads/`), normalized as the fetcher reads an own file
/// ([`own_url_path`]), so every spelling of one file's URL gives its one key. Sorted, each
/// once.
pub fn upload_keys(public_url: &str, request: &impl Serialize) -> Vec<String> {
    let (Ok(base), Ok(value)) = (
        reqwest::Url::parse(public_url),
        serde_json::to_value(request),
    ) else {
        return Vec::new();
    };
    let prefix = format!("{}/files/", base.path().trim_end_matches('/'));
    let mut keys = Vec::new();
    let mut pending = vec![&value];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::String(text) => {
                let key = own_url_path(&base, text)
                    .and_then(|path| path.strip_prefix(prefix.as_str()).map(str::to_owned))
                    .filter(|key| key.starts_with("uploads/"));
                keys.extend(key);
            }
            serde_json::Value::Array(items) => pending.extend(items),
            serde_json::Value::Object(fields) => pending.extend(fields.values()),
            _ => {}
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// An upload's record, as `upload_media` answers it and `get_uploads` lists it.
pub fn record(upload: StoredUpload, base_url: &str) -> UploadedMedia {
    UploadedMedia {
        uuid: upload.id,
        url: public_url(base_url, &upload.key),
        media_type: upload.media_type,
        bytes: u64::try_from(upload.bytes).unwrap_or(0),
        created_at: rfc3339(upload.created_at),
    }
}

/// The account's uploads, newest first, a page at a time.
#[utoipa::path(
    get, path = "/get_uploads", tag = "uploads",
    params(
        ("limit" = Option<u32>, Query, description = "Uploads per page, 1 to 100; default 20", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "The previous page's next_cursor"),
    ),
    responses(
        (status = 200, description = "One page of uploads, each as upload_media answered it", body = UploadList),
        (status = 422, description = "Invalid limit or cursor", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_uploads(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    query: QueryPairs,
) -> Result<Json<UploadList>, ApiError> {
    let mut errors = Vec::new();
    let (limit, after) = page(&query, "get_uploads", &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::invalid(errors));
    }
    let (rows, next_cursor) = uploads::list(&state.db, ctx.account_id, limit, after).await?;
    Ok(Json(UploadList {
        uploads: rows
            .into_iter()
            .map(|row| record(row, &state.config.public_url))
            .collect(),
        next_cursor,
    }))
}

/// `POST /delete_upload` (and `POST /delete_brand_kit`) body.
#[derive(Debug, serde::Deserialize, ToSchema)]
pub struct DeleteRequest {
    pub uuid: Uuid,
}

/// `POST /delete_upload` (and `POST /delete_brand_kit`) answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub uuid: Uuid,
    pub deleted: bool,
}

/// Deletes an upload: its file leaves storage and its bytes no longer count against the quota.
#[utoipa::path(
    post, path = "/delete_upload", tag = "uploads",
    request_body(content = DeleteRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 404, description = "No such upload for this account", body = Envelope),
        (status = 409, description = "A video of the account that is still queued or rendering uses the file (`upload_in_use`)", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Missing or invalid uuid", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn delete_upload(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<Deleted>, ApiError> {
    let id = super::params::uuid_body(&body)?;
    // The row's deletion and the file's removal run on a task of their own, so a client that
    // hangs up cannot leave the row gone and the file still stored.
    let task = tokio::spawn(delete_upload_and_file(state, ctx.account_id, id));
    task.await
        .map_err(|e| ApiError::Internal(format!("delete task: {e}")))?
}

async fn delete_upload_and_file(
    state: AppState,
    account: Uuid,
    id: Uuid,
) -> Result<Json<Deleted>, ApiError> {
    match uploads::delete(&state.db, account, id).await? {
        DeletedUpload::NotFound => Err(ApiError::not_found_fields(vec![FieldError::new(
            "uuid",
            ErrorCode::NotFound,
            "this upload does not exist or belongs to another account",
        )])),
        DeletedUpload::InUse => Err(ApiError::Refused {
            status: StatusCode::CONFLICT,
            code: "upload_in_use",
            message: "a video that is still queued or rendering uses this file; delete it once \
                      get_video shows that video (and its branded render) complete or error"
                .to_owned(),
        }),
        DeletedUpload::Done(key) => {
            let storage = state.storage.clone();
            let removed = tokio::task::spawn_blocking(move || storage.delete(&key))
                .await
                .map_err(|e| ApiError::Internal(format!("delete task: {e}")))?;
            if let Err(error) = removed {
                // The record is gone (the quota is freed) either way; the start-up sweep
                // removes a file left behind.
                tracing::warn!(upload = %id, %error, "a deleted upload's file could not be removed");
            }
            Ok(Json(Deleted {
                uuid: id,
                deleted: true,
            }))
        }
    }
}
