//! `POST /upload_media`: a picture or a sound file as the raw request body, stored under the
//! account and answered with a URL any request may use (docs/API-DESIGN.md#uploads).
//!
//! The body is never held whole: it streams to a temporary file in the data dir, keeping only
//! its first [`HEAD_BYTES`] in memory, where the format is sniffed and an image's header is
//! read. The rules are the fetched media's: the byte limits of `STILLREEL_MEDIA_MAX_BYTES`,
//! the pixel cap of `STILLREEL_MEDIA_MAX_PIXELS` (checked as soon as the header has arrived)
//! and at most 16384 pixels a side; the format by magic bytes, never by the declared type.
//! A HEIC picture is kept as it was sent (its header must read, and every picture it holds,
//! a grid's assembled size included, is held to the pixel cap); the renderer decodes it to
//! JPEG when a request uses it, as for a fetched one.
//! The stored file is served at `/files/uploads/…`, which the renderer reads from storage
//! directly (`worker/files.rs`), so no allow-list entry is needed for it.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use futures_util::StreamExt;
use stillreel_core::UploadedMedia;
use stillreel_core::media::MediaClass;
use stillreel_core::media::SNIFF_LEN;
use stillreel_render::media::heif::{self, HeifHeader};
use uuid::Uuid;

use super::upload_kind::{Kept, declared_class, sniffed};
use crate::db::now_ms;
use crate::error::{ApiError, Envelope};
use crate::extract::Auth;
use crate::repo::uploads::{self, NewUpload};
use crate::state::AppState;

mod finalise;

use finalise::{TempFile, finalise};

/// Bytes of the body kept in memory: enough for every format's magic and for an image header
/// behind large EXIF blocks.
pub const HEAD_BYTES: usize = 1 << 20;

/// The longest an upload may take, at least: the JSON body deadline is for 1 MiB, this for up
/// to 40 MiB (and the operator's deadline times ten when that is longer).
const MIN_UPLOAD_DEADLINE: Duration = Duration::from_secs(300);

/// The largest side of an image, as for fetched media.
const MAX_SIDE: u32 = 16_384;

fn refused(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::Refused {
        status,
        code,
        message: message.into(),
    }
}

fn mebibytes(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    }
}

fn too_large(class: MediaClass, limit: u64) -> ApiError {
    let what = match class {
        MediaClass::Image => "an image",
        MediaClass::Audio => "a soundtrack",
    };
    refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        "media_too_large",
        format!(
            "the file is over {}, the largest {what} this service takes",
            mebibytes(limit)
        ),
    )
}

fn over_quota(quota: u64, used: u64, bytes: u64) -> ApiError {
    refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        "upload_quota_exceeded",
        format!(
            "this account may keep {} of uploads; {} are stored and this file is {}. \
             The operator sets the quota (accounts.upload_quota_bytes)",
            mebibytes(quota),
            mebibytes(used),
            mebibytes(bytes)
        ),
    )
}

/// Checks an image's header (from the first bytes of the body) against the pixel cap.
/// `Ok(false)`: the header is not complete yet.
fn check_image_head(head: &[u8], max_pixels: u64, complete: bool) -> Result<bool, ApiError> {
    let size = match imagesize::blob_size(head) {
        Ok(size) => size,
        Err(_) if !complete => return Ok(false),
        Err(_) => {
            return Err(refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_media",
                "the image is damaged: its header could not be read",
            ));
        }
    };
    let (w, h) = (size.width as u64, size.height as u64);
    over_pixel_cap(w, h, max_pixels)?;
    if w == 0 || h == 0 || w > u64::from(MAX_SIDE) || h > u64::from(MAX_SIDE) {
        return Err(refused(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_media",
            format!("the image is {w}×{h} pixels; at most {MAX_SIDE} per side"),
        ));
    }
    Ok(true)
}

/// What the streamed body turned out to be.
struct Received {
    format: Kept,
    bytes: u64,
}

/// Reads and drops what is left of a refused body, a bounded amount for a bounded time, so
/// the client (still sending) gets to read the answer instead of a broken pipe.
async fn drain(stream: &mut axum::body::BodyDataStream) {
    const MAX_BYTES: usize = 8 << 20;
    let read_rest = async {
        let mut seen = 0usize;
        while let Some(Ok(chunk)) = stream.next().await {
            seen += chunk.len();
            if seen > MAX_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), read_rest).await;
}

/// Streams `body` into `file`, checking the limits as it goes.
async fn receive(
    stream: &mut axum::body::BodyDataStream,
    path: &Path,
    class: MediaClass,
    limit: u64,
    max_pixels: u64,
    (quota, used): (u64, u64),
) -> Result<Received, ApiError> {
    let io = |e: std::io::Error| ApiError::Internal(format!("upload file {}: {e}", path.display()));
    // Written in place, chunk by chunk, with std's file: tokio's file hands every chunk to a
    // blocking thread through a buffer of its own, and the benchmark measured a 20 MB upload
    // growing the server's peak memory by more than the file's size that way (per-thread
    // allocator arenas). A chunk is at most a few tens of KiB into the page cache.
    let mut file = std::fs::File::create(path).map_err(io)?;
    let mut head: Vec<u8> = Vec::new();
    let mut bytes = 0u64;
    let mut header_checked = class == MediaClass::Audio;
    let mut format = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            refused(
                StatusCode::BAD_REQUEST,
                "body_unreadable",
                format!("the body could not be read: {e}"),
            )
        })?;
        bytes += chunk.len() as u64;
        if bytes > limit {
            return Err(too_large(class, limit));
        }
        // A body without a Content-Length is stopped as soon as it cannot fit either (the
        // recording checks the quota again, with the account locked).
        if used.saturating_add(bytes) > quota {
            return Err(over_quota(quota, used, bytes));
        }
        if head.len() < HEAD_BYTES {
            let take = chunk.len().min(HEAD_BYTES - head.len());
            head.extend_from_slice(&chunk[..take]);
            if format.is_none() && head.len() >= SNIFF_LEN {
                format = Some(sniffed(&head, class)?);
            }
            if !header_checked {
                header_checked = check_image_head(&head, max_pixels, false)?;
            }
        }
        file.write_all(&chunk).map_err(io)?;
    }
    file.flush().map_err(io)?;
    let format = match format {
        Some(format) => format,
        None => sniffed(&head, class)?,
    };
    if !header_checked {
        check_image_head(&head, max_pixels, true)?;
    }
    if format == Kept::Heic {
        check_heic_header(&head, path, bytes, max_pixels)?;
    }
    Ok(Received { format, bytes })
}

/// The decoder's own header must read now, not first when a video uses the file: every
/// picture it declares (a grid's assembled size, whatever its `ispe` says) is held to the
/// pixel cap, and a file of several top-level pictures is refused, before anything decodes
/// it. A grid described past the first [`HEAD_BYTES`] is read from the stored file.
fn check_heic_header(
    head: &[u8],
    path: &Path,
    bytes: u64,
    max_pixels: u64,
) -> Result<(), ApiError> {
    let damaged = |damage: heif::Damaged| {
        refused(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_media",
            format!("the image is damaged: {damage}"),
        )
    };
    let header = match HeifHeader::read(head) {
        Err(damage) if damage == heif::DESCRIPTION_PAST_END && bytes > head.len() as u64 => {
            let whole = std::fs::read(path)
                .map_err(|e| ApiError::Internal(format!("upload file {}: {e}", path.display())))?;
            HeifHeader::read(&whole).map_err(damaged)?
        }
        read => read.map_err(damaged)?,
    };
    let (w, h) = header.largest;
    over_pixel_cap(u64::from(w), u64::from(h), max_pixels)?;
    if header.pictures > 1 {
        return Err(refused(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_media",
            format!(
                "the HEIC file holds {} pictures; send one picture per file",
                header.pictures
            ),
        ));
    }
    Ok(())
}

/// Stores a picture or a soundtrack; answers its URL.
#[utoipa::path(
    post, path = "/upload_media", tag = "uploads",
    request_body(content = Vec<u8>, description = "The file itself, with its Content-Type (image/jpeg, image/png, image/webp, image/heic or audio/*). The format is decided by the file's first bytes; a HEIC picture is kept as sent and decoded to JPEG when a video uses it.", content_type = "application/octet-stream"),
    responses(
        (status = 200, description = "The stored file", body = UploadedMedia),
        (status = 408, description = "The body did not arrive in time", body = Envelope),
        (status = 413, description = "Over the media size limit (`media_too_large`) or the account's upload quota (`upload_quota_exceeded`)", body = Envelope),
        (status = 415, description = "Not a JPEG, PNG, WebP or HEIC picture or a supported audio format (`unsupported_media`)", body = Envelope),
        (status = 429, description = "The account is already sending the most uploads it may at once (`too_many_uploads`)", body = Envelope),
        (status = 422, description = "A damaged image, or one over the pixel limit (`invalid_media`)", body = Envelope),
        (status = 507, description = "The server is out of disk space (`insufficient_storage`); nothing was stored", body = Envelope),
    ),
    security(("api_key" = []))
)]
pub async fn upload_media(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    request: Request,
) -> Result<Json<UploadedMedia>, ApiError> {
    super::disk_guard::refuse_when_low(&state)?;
    // Taken before the body is read and held until the answer: one key's slow uploads hold
    // at most this many connections.
    let Some(_slot) = state.upload_slots.try_take(ctx.account_id) else {
        return Err(refused(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_uploads",
            format!(
                "this account is already sending {} uploads, the most it may at once; send \
                 this one when one of them has finished",
                state.upload_slots.per_account()
            ),
        ));
    };
    let (parts, body) = request.into_parts();
    let mut stream = body.into_data_stream();
    let answer = store_upload(&state, ctx.account_id, &parts.headers, &mut stream).await;
    if answer.is_err() {
        drain(&mut stream).await;
    }
    answer.map(Json)
}

async fn store_upload(
    state: &AppState,
    account: Uuid,
    headers: &axum::http::HeaderMap,
    stream: &mut axum::body::BodyDataStream,
) -> Result<UploadedMedia, ApiError> {
    let class = declared_class(
        headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    )?;
    let limits = &state.config.limits;
    let limit = match class {
        MediaClass::Image => limits.max_image_bytes,
        MediaClass::Audio => limits.max_audio_bytes,
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large(class, limit));
    }
    let (quota, used) = uploads::usage(&state.db, account).await?;
    if let Some(n) = declared
        && used.saturating_add(n) > quota
    {
        return Err(over_quota(quota, used, n));
    }

    // Time-ordered: the orphan sweep reads an unrecorded file's age from its name.
    let id = Uuid::now_v7();
    let dir = state.config.data_dir.join("uploads-tmp");
    tokio::fs::create_dir_all(&dir)
        .await
        .map_err(|e| ApiError::Internal(format!("{}: {e}", dir.display())))?;
    let temp = TempFile(Some(dir.join(format!("{id}.part"))));
    let path = temp.0.clone().unwrap_or_default();
    let deadline = MIN_UPLOAD_DEADLINE.max(state.config.http.body_timeout * 10);
    let received = tokio::time::timeout(
        deadline,
        receive(
            stream,
            &path,
            class,
            limit,
            limits.max_pixels,
            (quota, used),
        ),
    )
    .await
    .unwrap_or(Err(ApiError::RequestTimeout))?;

    let key = format!(
        "uploads/{}/{id}.{}",
        account.simple(),
        received.format.extension()
    );
    let upload = NewUpload {
        id,
        account,
        key,
        media_type: received.format.media_type(),
        bytes: received.bytes,
        created_at: now_ms(),
    };
    // Storing, recording (the quota check) and undoing a refused store run on a task of their
    // own: a client that hangs up drops this handler, and with it any await in progress, but
    // not a spawned task. Whatever the client does, the file ends up recorded or removed.
    let finalise = tokio::spawn(finalise(state.clone(), upload, temp));
    let upload = finalise
        .await
        .map_err(|e| ApiError::Internal(format!("upload task: {e}")))??;
    Ok(super::stored_uploads::record(
        upload.stored(),
        &state.config.public_url,
    ))
}

/// 422 `invalid_media` for a picture of `w` × `h` over the pixel cap.
fn over_pixel_cap(w: u64, h: u64, max_pixels: u64) -> Result<(), ApiError> {
    if w * h > max_pixels {
        return Err(refused(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_media",
            format!(
                "the image is {w}×{h} pixels; the limit is {} megapixels",
                max_pixels as f64 / 1e6
            ),
        ));
    }
    Ok(())
}
