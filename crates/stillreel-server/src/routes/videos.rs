//! `POST /create_video`, `POST /combine_video_clips`, `GET /get_video`.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use stillreel_core::{
    ClipFacts, Engine, ErrorCode, FieldError, Options, VfxType, check_combine_clips,
    validate_combine_video_clips, validate_create_video,
};
use uuid::Uuid;

use super::params::QueryPairs;
use crate::error::{ApiError, Envelope};
use crate::extract::{Auth, IdempotencyKey, JsonBody};
use crate::repo::accounts::{self, AccountCtx};
use crate::repo::idempotency::{self, Begin};
use crate::repo::videos::{self, NewVideo, Source};
use crate::state::AppState;
use crate::worker::kinds;

/// A JSON body that is already serialized.
fn json_response(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Which POST a request is, for idempotency hashing.
#[derive(Debug, Clone, Copy)]
pub enum Endpoint {
    CreateVideo,
    Combine,
}

/// The identity of a request body for idempotency: the endpoint and the body's JSON in a
/// canonical form (sorted members, no insignificant white space), so re-sent bodies that
/// only differ in formatting count as the same request. Non-JSON bodies hash as sent.
pub fn request_hash(endpoint: Endpoint, body: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(match endpoint {
        Endpoint::CreateVideo => b"create_video\n".as_slice(),
        Endpoint::Combine => b"combine_video_clips\n".as_slice(),
    });
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(value) => hasher.update(value.to_string().as_bytes()),
        Err(_) => hasher.update(body.as_bytes()),
    }
    hasher.finalize().into()
}

/// Runs `handle` under the request's `Idempotency-Key`, if any (docs/API-DESIGN.md#idempotency).
async fn idempotent<F, Fut>(
    state: &AppState,
    ctx: AccountCtx,
    key: IdempotencyKey,
    endpoint: Endpoint,
    body: &str,
    handle: F,
) -> Result<Response, ApiError>
where
    F: FnOnce(Option<String>) -> Fut,
    Fut: Future<Output = Result<String, ApiError>>,
{
    let Some(key) = key.0 else {
        return handle(None).await.map(json_response);
    };
    match idempotency::begin(
        &state.db,
        ctx.account_id,
        &key,
        &request_hash(endpoint, body),
    )
    .await?
    {
        Begin::Replay(stored) => return Ok(json_response(stored)),
        Begin::Reused => return Err(ApiError::IdempotencyKeyReused),
        Begin::InProgress => return Err(ApiError::IdempotencyInProgress),
        Begin::Fresh => {}
    }
    match handle(Some(key.clone())).await {
        Ok(body) => Ok(json_response(body)),
        Err(err) => {
            if let Err(cleanup) = idempotency::abandon(&state.db, ctx.account_id, &key).await {
                tracing::warn!(error = %cleanup, "could not release an idempotency key");
            }
            Err(err)
        }
    }
}

/// The project a video goes to: the one named (if the account owns it) or the default.
async fn project_of(
    state: &AppState,
    ctx: AccountCtx,
    named: Option<Uuid>,
) -> Result<Uuid, ApiError> {
    match named {
        None => Ok(ctx.default_project),
        Some(id) if accounts::owns_project(&state.db, ctx.account_id, id).await? => Ok(id),
        Some(_) => Err(ApiError::not_found_fields(vec![FieldError::new(
            "project",
            ErrorCode::NotFound,
            "this project does not exist or belongs to another account",
        )])),
    }
}

/// The core's options for this deployment and account: the account's clip limit, the
/// catalog, the vfx and engines the linked renderer can draw, the operator's default engine.
fn rule_options<'a>(
    state: &'a AppState,
    ctx: &AccountCtx,
    vfx: &'a [VfxType],
    engines: &'a [Engine],
) -> Options<'a> {
    Options {
        clip_limit: ctx.clip_limit,
        templates: state.templates,
        available_vfx: vfx,
        available_engines: engines,
        default_engine: state.config.default_engine,
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|err| ApiError::Internal(format!("serialize: {err}")))
}

/// Creates a video from images; answers the `queued` record.
#[utoipa::path(
    post, path = "/create_video", tag = "videos",
    request_body(content = stillreel_core::CreateVideoRequest, content_type = "application/json"),
    params(("Idempotency-Key" = Option<String>, Header, description = "At most 255 characters; same key and body within 24 h returns the original record.")),
    responses(
        (status = 200, description = "The queued video", body = stillreel_core::Video),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 408, description = "The body took longer than the server's body deadline (30 s by default) to arrive", body = Envelope),
        (status = 404, description = "Project not found", body = Envelope),
        (status = 409, description = "Idempotency key in use by a running request", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Invalid fields, or idempotency key reused", body = Envelope),
        (status = 507, description = "The server is out of disk space (`insufficient_storage`); nothing was created", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn create_video(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    key: IdempotencyKey,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    idempotent(
        &state,
        ctx,
        key,
        Endpoint::CreateVideo,
        &body,
        |key| async {
            super::disk_guard::refuse_when_low(&state)?;
            let vfx = state.available_vfx();
            let engines = state.available_engines();
            let options = rule_options(&state, &ctx, &vfx, &engines);
            let mut request = validate_create_video(&body, &options)?;
            let resolved = super::brand_kits::resolve(
                &state,
                ctx.account_id,
                request.branding.take(),
                request.audio_url.take(),
            )
            .await?;
            (request.branding, request.audio_url) = (resolved.branding, resolved.audio_url);
            let project = project_of(&state, ctx, request.project).await?;
            let upload_keys =
                super::stored_uploads::upload_keys(&state.config.public_url, &request);
            let video = NewVideo {
                account: ctx.account_id,
                project,
                source: Source::Images(request),
                idempotency_key: key,
                from_kit: resolved.from_kit,
                first_job: kinds::PREPARE,
                upload_keys,
            };
            Ok(state.videos.create(video).await?)
        },
    )
    .await
}

/// Combines rendered clips into a new video; answers the `queued` record with the clips.
#[utoipa::path(
    post, path = "/combine_video_clips", tag = "videos",
    request_body(content = stillreel_core::CombineVideoClipsRequest, content_type = "application/json"),
    params(("Idempotency-Key" = Option<String>, Header, description = "At most 255 characters; same key and body within 24 h returns the original record.")),
    responses(
        (status = 200, description = "The queued video with the included clips", body = stillreel_core::Video),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 408, description = "The body took longer than the server's body deadline (30 s by default) to arrive", body = Envelope),
        (status = 404, description = "Project or clips not found", body = Envelope),
        (status = 409, description = "Idempotency key in use by a running request", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Invalid fields, mismatching clips, or idempotency key reused", body = Envelope),
        (status = 507, description = "The server is out of disk space (`insufficient_storage`); nothing was created", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn combine_video_clips(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    key: IdempotencyKey,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    idempotent(&state, ctx, key, Endpoint::Combine, &body, |key| async {
        super::disk_guard::refuse_when_low(&state)?;
        let vfx = state.available_vfx();
        let engines = state.available_engines();
        let options = rule_options(&state, &ctx, &vfx, &engines);
        let mut request = validate_combine_video_clips(&body, &options)?;
        let resolved = super::brand_kits::resolve(
            &state,
            ctx.account_id,
            request.branding.take(),
            request.audio_url.take(),
        )
        .await?;
        (request.branding, request.audio_url) = (resolved.branding, resolved.audio_url);
        let upload_keys = super::stored_uploads::upload_keys(&state.config.public_url, &request);
        let (project, source) = combine_source(&state, ctx, request).await?;
        let video = NewVideo {
            account: ctx.account_id,
            project,
            source,
            idempotency_key: key,
            from_kit: resolved.from_kit,
            first_job: kinds::COMBINE,
            upload_keys,
        };
        Ok(state.videos.create(video).await?)
    })
    .await
}

/// The message for a video's uuid sent in `video_clip_uuids`: where its clips' uuids are.
fn video_uuid_message(video: &Uuid) -> String {
    format!(
        "this is the uuid of a video, not of a clip: combine takes clip uuids, which \
         GET /api/v1/get_video?uuid={video} lists as video_clips[].uuid"
    )
}

/// What a combine is made of: the account's rendered clips it names (unknown, foreign and
/// not-yet-rendered clips, like an unknown project, are one 404 with every field), checked to
/// fit together; the project and the video's source.
async fn combine_source(
    state: &AppState,
    ctx: AccountCtx,
    request: stillreel_core::CombineVideoClipsRequest,
) -> Result<(Uuid, Source), ApiError> {
    let found =
        videos::clips_of_account(&state.db, ctx.account_id, &request.video_clip_uuids).await?;
    super::library::refuse_deleted_clips(&found, &request.video_clip_uuids)?;
    // Unknown, foreign and not-yet-rendered clips are one case to the client: 404. A uuid of
    // one of the account's own videos is the usual mistake, and is told as such.
    let unknown: Vec<Uuid> = request
        .video_clip_uuids
        .iter()
        .filter(|id| !found.contains_key(id))
        .copied()
        .collect();
    let videos = videos::videos_among(&state.db, ctx.account_id, &unknown).await?;
    let missing: Vec<FieldError> = request
        .video_clip_uuids
        .iter()
        .enumerate()
        .filter(|(_, id)| found.get(id).is_none_or(|c| c.clip_key.is_none()))
        .map(|(i, id)| {
            let message = if videos.contains(id) {
                video_uuid_message(id)
            } else {
                "this clip does not exist, belongs to another account, or is not rendered yet"
                    .to_owned()
            };
            FieldError::new(
                format!("video_clip_uuids[{i}]"),
                ErrorCode::NotFound,
                message,
            )
        })
        .collect();
    let project = match (
        project_of(state, ctx, request.project).await,
        missing.is_empty(),
    ) {
        (Err(ApiError::NotFound { mut details, .. }), _) => {
            details.extend(missing);
            return Err(ApiError::not_found_fields(details));
        }
        (Err(other), _) => return Err(other),
        (Ok(_), false) => return Err(ApiError::not_found_fields(missing)),
        (Ok(project), true) => project,
    };
    let clips: Vec<_> = request
        .video_clip_uuids
        .iter()
        .filter_map(|id| found.get(id))
        .collect();
    let facts: Vec<ClipFacts> = clips
        .iter()
        .map(|c| ClipFacts {
            orientation: c.orientation,
            resolution: c.resolution,
            engine: c.engine,
        })
        .collect();
    let engine = check_combine_clips(request.orientation, request.resolution, &facts)
        .map_err(ApiError::invalid)?;
    let records = clips
        .iter()
        .filter_map(|c| c.record(&state.config.public_url))
        .collect();
    Ok((
        project,
        Source::Clips {
            request,
            engine,
            clips: records,
        },
    ))
}

/// A video and its branded render, as they are now.
#[utoipa::path(
    get, path = "/get_video", tag = "videos",
    params(("uuid" = String, Query, description = "The video's UUID", format = Uuid)),
    responses(
        (status = 200, description = "The video", body = stillreel_core::Video),
        (status = 404, description = "No such video for this account", body = Envelope),
        (status = 422, description = "Missing or invalid uuid", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_video(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    query: QueryPairs,
) -> Result<Response, ApiError> {
    let id = query.uuid("uuid")?;
    let cache = state
        .db
        .video_cache()
        .filter(|_| state.config.get_video_cache);
    if let Some(json) = cache.and_then(|c| c.get(id, ctx.account_id)) {
        return Ok(json_response(json));
    }
    let generation = cache.map(|c| c.generation());
    let video = videos::get_video(&state.db, ctx.account_id, id, &state.config.public_url)
        .await?
        .ok_or_else(|| ApiError::not_found("video"))?;
    let json = to_json(&video)?;
    if let (Some(cache), Some(generation)) = (cache, generation) {
        cache.put(id, ctx.account_id, json.clone(), generation);
    }
    Ok(json_response(json))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_hash_ignores_formatting_not_content() {
        let a = request_hash(Endpoint::CreateVideo, r#"{"a": 1, "b": [1,2]}"#);
        let b = request_hash(Endpoint::CreateVideo, "{\"b\":[1,2],\n \"a\":1}");
        let c = request_hash(Endpoint::CreateVideo, r#"{"a": 2, "b": [1,2]}"#);
        let d = request_hash(Endpoint::Combine, r#"{"a": 1, "b": [1,2]}"#);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
