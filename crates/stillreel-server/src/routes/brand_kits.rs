//! `POST /create_brand_kit`, `GET /get_brand_kits`, `POST /update_brand_kit`,
//! `POST /delete_brand_kit`, and how a request's `branding.brand_kit` is resolved
//! (docs/API-DESIGN.md#brand-kits).

use axum::Json;
use axum::extract::State;
use stillreel_core::{
    BrandKit, BrandKitList, BrandingRequest, ErrorCode, FieldError, validate_create_brand_kit,
    validate_update_brand_kit,
};
use uuid::Uuid;

use super::library::page;
use super::params::QueryPairs;
use crate::error::{ApiError, Envelope};
use crate::extract::{Auth, JsonBody};
use crate::repo::brand_kits;
use crate::state::AppState;

/// Saves a brand kit.
#[utoipa::path(
    post, path = "/create_brand_kit", tag = "brand kits",
    request_body(content = stillreel_core::BrandKitBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The saved kit", body = BrandKit),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 409, description = "The account already keeps the most brand kits it may (`brand_kit_limit`)", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Invalid fields", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn create_brand_kit(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<BrandKit>, ApiError> {
    let kit = validate_create_brand_kit(&body, state.templates)?;
    match brand_kits::create(&state.db, ctx.account_id, kit).await? {
        Some(kit) => Ok(Json(kit)),
        None => Err(ApiError::Refused {
            status: axum::http::StatusCode::CONFLICT,
            code: "brand_kit_limit",
            message: format!(
                "this account already keeps {} brand kits, the most it may; delete one \
                 (POST /delete_brand_kit) or update one instead",
                brand_kits::MAX_BRAND_KITS
            ),
        }),
    }
}

/// The account's brand kits, oldest first, a page at a time.
#[utoipa::path(
    get, path = "/get_brand_kits", tag = "brand kits",
    params(
        ("limit" = Option<u32>, Query, description = "Kits per page, 1 to 100; default 20", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "The previous page's next_cursor"),
    ),
    responses(
        (status = 200, description = "One page of the account's kits, oldest first", body = BrandKitList),
        (status = 422, description = "Invalid limit or cursor", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn get_brand_kits(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    query: QueryPairs,
) -> Result<Json<BrandKitList>, ApiError> {
    let mut errors = Vec::new();
    let (limit, after) = page(&query, "get_brand_kits", &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::invalid(errors));
    }
    let (brand_kits, next_cursor) =
        brand_kits::list(&state.db, ctx.account_id, limit, after).await?;
    Ok(Json(BrandKitList {
        brand_kits,
        next_cursor,
    }))
}

/// Replaces a brand kit's content (members left out are cleared). Videos already made keep
/// the branding they were made with.
#[utoipa::path(
    post, path = "/update_brand_kit", tag = "brand kits",
    request_body(content = stillreel_core::UpdateBrandKitRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The kit as saved now", body = BrandKit),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 404, description = "No such kit for this account", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Invalid fields", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn update_brand_kit(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<BrandKit>, ApiError> {
    let request = validate_update_brand_kit(&body, state.templates)?;
    brand_kits::update(&state.db, ctx.account_id, request.uuid, request.body())
        .await?
        .map(Json)
        .ok_or_else(|| kit_not_found("uuid"))
}

/// Deletes a brand kit. Videos already made or queued with it are unaffected: a request's kit
/// is copied into the video when the video is created, so no video depends on the saved kit.
#[utoipa::path(
    post, path = "/delete_brand_kit", tag = "brand kits",
    request_body(content = super::stored_uploads::DeleteRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "Deleted", body = super::stored_uploads::Deleted),
        (status = 400, description = "Not JSON or not an object", body = Envelope),
        (status = 404, description = "No such kit for this account", body = Envelope),
        (status = 413, description = "Body over 1 MiB", body = Envelope),
        (status = 415, description = "Not a JSON content type", body = Envelope),
        (status = 422, description = "Missing or invalid uuid", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn delete_brand_kit(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    JsonBody(body): JsonBody,
) -> Result<Json<super::stored_uploads::Deleted>, ApiError> {
    let id = super::params::uuid_body(&body)?;
    if !brand_kits::delete(&state.db, ctx.account_id, id).await? {
        return Err(kit_not_found("uuid"));
    }
    Ok(Json(super::stored_uploads::Deleted {
        uuid: id,
        deleted: true,
    }))
}

fn kit_not_found(field: &str) -> ApiError {
    ApiError::not_found_fields(vec![FieldError::new(
        field,
        ErrorCode::NotFound,
        "this brand kit does not exist or belongs to another account",
    )])
}

/// A request's branding with its brand kit applied, the soundtrack to use (the request's
/// `audio_url`, or the kit's when the request names none) and which of them came from the
/// kit (`branding.intro`, `branding.outro`, `audio_url`: a failure of one is the kit's).
/// Without a kit, both as given.
pub async fn resolve(
    state: &AppState,
    account: Uuid,
    branding: Option<BrandingRequest>,
    audio_url: Option<String>,
) -> Result<Resolved, ApiError> {
    let Some(id) = branding.as_ref().and_then(|b| b.brand_kit) else {
        return Ok(Resolved {
            branding,
            audio_url,
            from_kit: Vec::new(),
        });
    };
    let kit = brand_kits::get(&state.db, account, id)
        .await?
        .ok_or_else(|| kit_not_found("branding.brand_kit"))?;
    let body = stillreel_core::BrandKitBody {
        name: kit.name,
        intro: kit.intro,
        outro: kit.outro,
        speed_ramp: kit.speed_ramp,
        audio_url: kit.audio_url,
    };
    let from_kit = kit_parts(branding.as_ref(), audio_url.as_deref(), &body);
    let merged = branding.map(|b| b.over_kit(&body));
    Ok(Resolved {
        branding: merged.filter(BrandingRequest::is_requested),
        audio_url: audio_url.or(body.audio_url),
        from_kit,
    })
}

/// What [`resolve`] answers.
#[derive(Debug)]
pub struct Resolved {
    pub branding: Option<BrandingRequest>,
    pub audio_url: Option<String>,
    /// The request fields whose value the kit gave (`branding.intro`, `branding.outro`,
    /// `audio_url`).
    pub from_kit: Vec<String>,
}

/// The parts of a video the kit `body` gives when the request has `branding` and `audio_url`:
/// those the kit has and the request does not replace.
fn kit_parts(
    branding: Option<&BrandingRequest>,
    audio_url: Option<&str>,
    body: &stillreel_core::BrandKitBody,
) -> Vec<String> {
    let request_intro = branding.is_some_and(|b| b.intro.is_some());
    let request_outro = branding.is_some_and(|b| b.outro.is_some());
    [
        ("branding.intro", body.intro.is_some() && !request_intro),
        ("branding.outro", body.outro.is_some() && !request_outro),
        ("audio_url", body.audio_url.is_some() && audio_url.is_none()),
    ]
    .into_iter()
    .filter(|(_, from_kit)| *from_kit)
    .map(|(part, _)| part.to_owned())
    .collect()
}
