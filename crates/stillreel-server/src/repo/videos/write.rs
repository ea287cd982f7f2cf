//! The rows of a new video, for both endpoints and both backends, as one [`Batch`]: the
//! video (with its `webhook_url`), its clips (create) or its list of clips (combine), its
//! branding record, its first job (through the queue) and its idempotency answer.

use stillreel_core::{
    Branding, BrandingRequest, BrandingTemplates, CombineVideoClipsRequest, CreateVideoRequest,
    Engine, Orientation, Resolution, Status, Video, VideoClip, Webhook, WebhookStatus,
};
use uuid::Uuid;

use crate::db::{Batch, Db, DbError, Value, now_ms, rfc3339};
use crate::queue::{self, JobKind, NewJob};
use crate::repo::idempotency;

/// A video to store.
#[derive(Debug)]
pub struct NewVideo {
    pub account: Uuid,
    pub project: Uuid,
    pub source: Source,
    /// The request's `Idempotency-Key`, whose answer is stored with the video.
    pub idempotency_key: Option<String>,
    /// The parts the request's brand kit gave (`branding.intro`, `branding.outro`,
    /// `audio_url`): a failure of one of them is reported at `branding.brand_kit`.
    pub from_kit: Vec<String>,
    /// The kind of the job that starts the video's work (the prepare or the combine kind,
    /// declared by the worker's kinds, which sit above the repository), queued with its rows.
    pub first_job: JobKind,
    /// The storage keys of the account's uploads the request names, as the fetcher reads
    /// them (`routes::stored_uploads::upload_keys`): what `delete_upload` refuses to delete
    /// while the video is queued or rendering.
    pub upload_keys: Vec<String>,
}

/// What a new video is made of.
#[derive(Debug)]
pub enum Source {
    /// `create_video`: one clip per image, rendered by the job graph.
    Images(CreateVideoRequest),
    /// `combine_video_clips`: clips that passed every check, as records in request order,
    /// and the engine they share.
    Clips {
        request: CombineVideoClipsRequest,
        engine: Engine,
        clips: Vec<VideoClip>,
    },
}

/// The branding record to create, or `None` when none was requested.
fn branding_of(
    request: Option<&BrandingRequest>,
    clips: usize,
) -> Option<(BrandingTemplates, bool)> {
    let b = request.filter(|b| b.is_requested())?;
    let templates = BrandingTemplates {
        intro: b.intro.clone(),
        outro: b.outro.clone(),
    };
    // The ramp takes effect only with two or more clips (docs/API-DESIGN.md#branding).
    Some((templates, b.speed_ramp && clips >= 2))
}

/// What the rows of a new video take from its request, whichever endpoint made it.
struct Parts<'a> {
    /// `videos.kind`: `create` or `combine`.
    kind: &'static str,
    /// The stored request.
    request: Value,
    webhook_url: Option<&'a str>,
    orientation: Orientation,
    resolution: Resolution,
    engine: Engine,
    /// The record's clips: a combine's existing ones; a created video's are rows of their own.
    clips: Vec<VideoClip>,
    /// The branding record and whether its speed ramp takes effect.
    branding: Option<(BrandingTemplates, bool)>,
}

/// Adds the rows of `video` to `batch`; returns its `queued` record's JSON, which is also
/// stored as the idempotency answer when the request had a key.
pub(super) fn rows(batch: &mut Batch, video: &NewVideo) -> Result<(Uuid, String), DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let audio_url = match &video.source {
        Source::Images(request) => request.audio_url.as_deref(),
        Source::Clips { request, .. } => request.audio_url.as_deref(),
    };
    let title = match &video.source {
        Source::Images(request) => request.title.as_deref(),
        Source::Clips { request, .. } => request.title.as_deref(),
    };
    let Parts {
        kind,
        request: request_json,
        webhook_url,
        orientation: o,
        resolution: r,
        engine,
        clips,
        branding,
    } = match &video.source {
        Source::Images(request) => Parts {
            kind: "create",
            request: Value::json(Some(request))?,
            webhook_url: request.webhook_url.as_deref(),
            orientation: request.orientation,
            resolution: request.resolution,
            engine: request.ai_engine,
            clips: Vec::new(),
            branding: branding_of(request.branding.as_ref(), request.image_inputs.len()),
        },
        Source::Clips {
            request,
            engine,
            clips,
        } => Parts {
            kind: "combine",
            request: Value::json(Some(request))?,
            webhook_url: request.webhook_url.as_deref(),
            orientation: request.orientation,
            resolution: request.resolution,
            engine: *engine,
            clips: clips.clone(),
            branding: branding_of(request.branding.as_ref(), clips.len()),
        },
    };
    batch
        .statement(
            "INSERT INTO videos (id, account_id, project_id, kind, request, orientation, resolution,
                                 engine, status, progress, webhook_url, audio_url, title,
                                 title_folded, created_at, updated_at, kit_fields, upload_keys)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(id)
        .bind(video.account)
        .bind(video.project)
        .bind(kind)
        .bind(request_json)
        .bind(o.as_str())
        .bind(r.as_str())
        .bind(engine.as_str())
        .bind(webhook_url)
        .bind(audio_url)
        .bind(title)
        .bind(title.map(str::to_lowercase).as_deref())
        .bind(now)
        .bind(now)
        .bind(Value::json(
            Some(&video.from_kit).filter(|parts| !parts.is_empty()),
        )?)
        .bind(key_list(&video.upload_keys).as_deref());
    match &video.source {
        Source::Images(request) => image_clip_rows(batch, id, video.account, request, now)?,
        Source::Clips { clips, .. } => combined_clip_rows(batch, id, clips),
    }
    if let Some((templates, ramp)) = &branding {
        batch
            .statement(
                "INSERT INTO brandings (video_id, templates, speed_ramp, status, progress,
                                        created_at, updated_at)
                 VALUES (?, ?, ?, 'queued', 0, ?, ?)",
            )
            .bind(id)
            .bind(Value::json(Some(templates))?)
            .bind(*ramp)
            .bind(now)
            .bind(now);
    }
    queue::enqueue_in(batch, &[NewJob::new(id, video.first_job)], now);

    let record = Video {
        uuid: id,
        project: video.project,
        status: Status::Queued,
        video_url: String::new(),
        video_clips: clips,
        poster_url: None,
        audio_url: audio_url.map(str::to_owned),
        title: title.map(str::to_owned),
        orientation: o,
        resolution: r,
        ai_engine: engine,
        branding: branding.map(|(templates, speed_ramp)| Branding {
            status: Status::Queued,
            video_url: String::new(),
            templates,
            speed_ramp,
            progress: 0,
            error: None,
        }),
        progress: 0,
        created_at: rfc3339(now),
        updated_at: rfc3339(now),
        error: None,
        webhook: webhook_url.map(|url| Webhook {
            url: url.to_owned(),
            status: WebhookStatus::Pending,
            attempts: 0,
            last_status: None,
        }),
    };
    let json = serde_json::to_string(&record).map_err(|err| DbError::Encode(err.to_string()))?;
    if let Some(key) = &video.idempotency_key {
        idempotency::finish_in(batch, video.account, key, &json);
    }
    Ok((id, json))
}

/// One clip row per image, not yet rendered: one multi-row insert whatever the number of
/// images (the clip limit keeps it far below both backends' parameter limits).
fn image_clip_rows(
    batch: &mut Batch,
    video: Uuid,
    account: Uuid,
    request: &CreateVideoRequest,
    now: i64,
) -> Result<(), DbError> {
    batch.statement(
        "INSERT INTO clips (id, video_id, account_id, position, image_url, camera_motion, vfx,
                            orientation, resolution, engine, created_at, updated_at)
         VALUES ",
    );
    for (position, input) in request.image_inputs.iter().enumerate() {
        batch
            .sql(if position == 0 { "" } else { ", " })
            .sql("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .bind(Uuid::now_v7())
            .bind(video)
            .bind(account)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(input.image_url.as_str())
            .bind(input.camera_motion.as_str())
            .bind(Value::json(input.vfx.as_ref())?)
            .bind(request.orientation.as_str())
            .bind(request.resolution.as_str())
            .bind(request.ai_engine.as_str())
            .bind(now)
            .bind(now);
    }
    Ok(())
}

/// The list of clips a combined video is made of, in request order.
fn combined_clip_rows(batch: &mut Batch, video: Uuid, clips: &[VideoClip]) {
    if clips.is_empty() {
        return;
    }
    batch.statement("INSERT INTO combine_clips (video_id, position, clip_id) VALUES ");
    for (position, clip) in clips.iter().enumerate() {
        batch
            .sql(if position == 0 { "" } else { ", " })
            .sql("(?, ?, ?)")
            .bind(video)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(clip.uuid);
    }
}

/// Stores `videos` in one transaction; returns their records' JSON, in order.
pub(super) async fn store(db: &Db, videos: &[&NewVideo]) -> Result<Vec<String>, DbError> {
    let mut records = Vec::with_capacity(videos.len());
    let mut ids = Vec::with_capacity(videos.len());
    let mut tx = db.begin().await?;
    for video in videos {
        // One round trip per video rather than one for all: a video's SQL repeats (for a
        // given number of images), so SQLite's statement cache keeps it prepared.
        let mut batch = Batch::new();
        let (id, json) = rows(&mut batch, video)?;
        records.push(json);
        ids.push((video.account, id));
        batch.run(&mut tx).await?;
    }
    tx.commit().await?;
    // After the commit: a page read from now on lists the new videos.
    for (account, id) in ids {
        db.invalidate_pages(account, Some(id));
    }
    Ok(records)
}

/// `videos.upload_keys` for a video naming `keys`: each key between spaces (` a b `), so
/// `LIKE '% key %'` finds one whole key (a key holds no space and no LIKE wildcard).
/// `None` when the video names no upload.
fn key_list(keys: &[String]) -> Option<String> {
    (!keys.is_empty()).then(|| format!(" {} ", keys.join(" ")))
}
