//! Reading video records back: `get_video` (what clients poll) and the clips a combine names.

use std::collections::{HashMap, HashSet};

use sqlx::types::Json;
use stillreel_core::{
    Branding, BrandingTemplates, Engine, GeneratedContent, JobError, Orientation, Resolution,
    Status, Vfx, Video, VideoClip, Webhook, WebhookStatus,
};
use uuid::Uuid;

use crate::db::{Db, DbError, on_db, rfc3339};
use crate::repo::parse_enum;
use crate::storage::public_url;
use stillreel_render::store::storage::still_key;

/// A stored clip, as combine looks it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredClip {
    pub id: Uuid,
    pub image_url: String,
    pub camera_motion: stillreel_core::CameraMotion,
    pub vfx: Option<Vfx>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
    /// Storage key of the rendered clip; `None` until rendered.
    pub clip_key: Option<String>,
    /// The clip's video was deleted (`POST /delete_video`): its file is gone.
    pub video_deleted: bool,
    /// What of it a model made (`clips.generated`).
    pub generated: Vec<GeneratedContent>,
    pub notes: Vec<String>,
}

impl StoredClip {
    /// The clip record, for a rendered clip.
    pub fn record(&self, base_url: &str) -> Option<VideoClip> {
        let key = self.clip_key.as_deref()?;
        Some(VideoClip {
            uuid: self.id,
            image_url: self.image_url.clone(),
            clip_url: public_url(base_url, key),
            camera_motion: self.camera_motion,
            orientation: self.orientation,
            resolution: self.resolution,
            ai_engine: self.engine,
            vfx: self.vfx.clone(),
            thumbnail_url: Some(public_url(base_url, &still_key(key))),
            generated: (!self.generated.is_empty()).then(|| self.generated.clone()),
            notes: (!self.notes.is_empty()).then(|| self.notes.clone()),
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ClipRow {
    id: Uuid,
    image_url: String,
    camera_motion: String,
    vfx: Option<Json<Vfx>>,
    orientation: String,
    resolution: String,
    engine: String,
    clip_key: Option<String>,
    generated: Option<Json<Vec<GeneratedContent>>>,
    notes: Option<Json<Vec<String>>>,
    /// Only [`clips_of_account`] selects it.
    #[sqlx(default)]
    video_deleted_at: Option<i64>,
}

impl TryFrom<ClipRow> for StoredClip {
    type Error = DbError;
    fn try_from(row: ClipRow) -> Result<Self, DbError> {
        Ok(StoredClip {
            id: row.id,
            image_url: row.image_url,
            camera_motion: parse_enum(&row.camera_motion, "camera motion")?,
            vfx: row.vfx.map(|Json(v)| v),
            orientation: parse_enum(&row.orientation, "orientation")?,
            resolution: parse_enum(&row.resolution, "resolution")?,
            engine: parse_enum(&row.engine, "engine")?,
            clip_key: row.clip_key,
            video_deleted: row.video_deleted_at.is_some(),
            generated: row.generated.map(|Json(g)| g).unwrap_or_default(),
            notes: row.notes.map(|Json(n)| n).unwrap_or_default(),
        })
    }
}

const CLIP_COLUMNS: &str =
    "c.id, c.image_url, c.camera_motion, c.vfx, c.orientation, c.resolution, c.engine, c.clip_key,
     c.generated, c.notes";

/// The clips of `account` among `ids` (duplicates allowed), keyed by id. Clips of other
/// accounts are simply absent, so they look exactly like unknown ones.
pub async fn clips_of_account(
    db: &Db,
    account: Uuid,
    ids: &[Uuid],
) -> Result<HashMap<Uuid, StoredClip>, DbError> {
    let mut found = HashMap::new();
    for id in ids {
        if found.contains_key(id) {
            continue;
        }
        let row: Option<ClipRow> = on_db!(db, pool => sqlx::query_as(
            sqlx::AssertSqlSafe(format!("SELECT {CLIP_COLUMNS}, v.deleted_at AS video_deleted_at FROM clips c
                     JOIN videos v ON v.id = c.video_id WHERE c.id = $1 AND c.account_id = $2")),
        )
        .bind(*id)
        .bind(account)
        .fetch_optional(pool)
        .await?);
        if let Some(row) = row {
            found.insert(*id, StoredClip::try_from(row)?);
        }
    }
    Ok(found)
}

/// The positions in `ids` of the clips whose video was deleted since (a combine queued before
/// the delete): their files are gone, so the combine cannot be made.
pub async fn deleted_sources(db: &Db, ids: &[Uuid]) -> Result<Vec<usize>, DbError> {
    let mut gone = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let deleted: Option<i32> = on_db!(db, pool => sqlx::query_scalar(
            "SELECT 1 FROM clips c JOIN videos v ON v.id = c.video_id
             WHERE c.id = $1 AND v.deleted_at IS NOT NULL",
        )
        .bind(*id)
        .fetch_optional(pool)
        .await?);
        if deleted.is_some() {
            gone.push(i);
        }
    }
    Ok(gone)
}

/// Which of `ids` are the uuids of `account`'s videos (not deleted): sent where a clip's uuid
/// is wanted, they get a message saying where the clips' uuids are.
pub async fn videos_among(db: &Db, account: Uuid, ids: &[Uuid]) -> Result<HashSet<Uuid>, DbError> {
    let mut found = HashSet::new();
    for id in ids {
        if found.contains(id) {
            continue;
        }
        let row: Option<Uuid> = on_db!(db, pool => sqlx::query_scalar(
            "SELECT id FROM videos WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL",
        )
        .bind(*id)
        .bind(account)
        .fetch_optional(pool)
        .await?);
        if let Some(video) = row {
            found.insert(video);
        }
    }
    Ok(found)
}

#[derive(sqlx::FromRow)]
pub(crate) struct VideoRow {
    pub(crate) id: Uuid,
    project_id: Uuid,
    pub(crate) kind: String,
    orientation: String,
    resolution: String,
    engine: String,
    status: String,
    progress: i32,
    video_key: Option<String>,
    audio_url: Option<String>,
    title: Option<String>,
    error_code: Option<String>,
    error_message: Option<String>,
    error_field: Option<String>,
    pub(crate) created_at: i64,
    updated_at: i64,
    b_templates: Option<Json<BrandingTemplates>>,
    b_speed_ramp: Option<bool>,
    b_status: Option<String>,
    b_progress: Option<i32>,
    b_video_key: Option<String>,
    b_error_code: Option<String>,
    b_error_message: Option<String>,
    b_error_field: Option<String>,
    c_id: Option<Uuid>,
    c_image_url: Option<String>,
    c_camera_motion: Option<String>,
    c_vfx: Option<Json<Vfx>>,
    c_orientation: Option<String>,
    c_resolution: Option<String>,
    c_engine: Option<String>,
    c_clip_key: Option<String>,
    c_generated: Option<Json<Vec<GeneratedContent>>>,
    c_notes: Option<Json<Vec<String>>>,
    webhook_url: Option<String>,
    w_status: Option<String>,
    w_attempts: Option<i32>,
    w_last_status: Option<i32>,
}

impl VideoRow {
    /// The clip joined onto this row, if any.
    fn take_clip(&mut self) -> Option<ClipRow> {
        Some(ClipRow {
            id: self.c_id.take()?,
            image_url: self.c_image_url.take()?,
            camera_motion: self.c_camera_motion.take()?,
            vfx: self.c_vfx.take(),
            orientation: self.c_orientation.take()?,
            resolution: self.c_resolution.take()?,
            engine: self.c_engine.take()?,
            clip_key: self.c_clip_key.take(),
            generated: self.c_generated.take(),
            notes: self.c_notes.take(),
            video_deleted_at: None,
        })
    }
}

fn job_error(
    code: Option<String>,
    message: Option<String>,
    field: Option<String>,
) -> Option<JobError> {
    code.map(|code| JobError {
        code,
        message: message.unwrap_or_default(),
        field,
    })
}

/// The columns of a video record: the video, its branding, its webhook delivery and (joined
/// by the caller) its rendered clips.
pub(crate) const RECORD_SELECT: &str =
    "SELECT v.id, v.project_id, v.kind, v.orientation, v.resolution, v.engine, v.status, v.progress,
            v.video_key, v.audio_url, v.title, v.error_code, v.error_message, v.error_field, v.created_at, v.updated_at,
            b.templates AS b_templates, b.speed_ramp AS b_speed_ramp, b.status AS b_status, b.progress AS b_progress,
            b.video_key AS b_video_key, b.error_code AS b_error_code,
            b.error_message AS b_error_message, b.error_field AS b_error_field,
            c.id AS c_id, c.image_url AS c_image_url, c.camera_motion AS c_camera_motion, c.vfx AS c_vfx,
            c.orientation AS c_orientation, c.resolution AS c_resolution, c.engine AS c_engine,
            c.clip_key AS c_clip_key, c.generated AS c_generated, c.notes AS c_notes,
            v.webhook_url, w.status AS w_status, w.attempts AS w_attempts, w.last_status AS w_last_status
     FROM videos v
     LEFT JOIN brandings b ON b.video_id = v.id
     LEFT JOIN webhook_deliveries w ON w.video_id = v.id
          AND w.subject = (SELECT MIN(subject) FROM webhook_deliveries WHERE video_id = v.id)
     LEFT JOIN clips c ON c.video_id = v.id AND c.clip_key IS NOT NULL";

/// The video record of `id` as `account` sees it: `None` when it does not exist, was
/// deleted, or belongs to another account. URLs are built on `base_url`.
pub async fn get_video(
    db: &Db,
    account: Uuid,
    id: Uuid,
    base_url: &str,
) -> Result<Option<Video>, DbError> {
    // One round trip (what clients poll): the video, its branding, its rendered clips (a row each).
    let rows: Vec<VideoRow> = on_db!(db, pool => sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{RECORD_SELECT}
         WHERE v.id = $1 AND v.account_id = $2 AND v.deleted_at IS NULL
         ORDER BY c.position"),
    ))
    .bind(id)
    .bind(account)
    .fetch_all(pool)
    .await?);
    if rows.is_empty() {
        return Ok(None);
    }
    let mut combined = if rows[0].kind == "combine" {
        combine_clips(db, &[id]).await?
    } else {
        HashMap::new()
    };
    let combined = combined.remove(&id).unwrap_or_default();
    record(rows, combined, base_url).map(Some)
}

/// The clips each combined video of `videos` is made of, in order.
pub(crate) async fn combine_clips(
    db: &Db,
    videos: &[Uuid],
) -> Result<HashMap<Uuid, Vec<ClipRow>>, DbError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        video_id: Uuid,
        #[sqlx(flatten)]
        clip: ClipRow,
    }
    let mut by_video: HashMap<Uuid, Vec<ClipRow>> = HashMap::new();
    if videos.is_empty() {
        return Ok(by_video);
    }
    let list = (1..=videos.len())
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT cc.video_id, {CLIP_COLUMNS}
         FROM combine_clips cc JOIN clips c ON c.id = cc.clip_id
         WHERE cc.video_id IN ({list}) AND c.clip_key IS NOT NULL ORDER BY cc.video_id, cc.position"
    );
    let rows: Vec<Row> = on_db!(db, pool => {
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()));
        for id in videos {
            query = query.bind(*id);
        }
        query.fetch_all(pool).await?
    });
    for row in rows {
        by_video.entry(row.video_id).or_default().push(row.clip);
    }
    Ok(by_video)
}

/// One video's record from its rows (one per rendered clip, in order) and, for a combined
/// video, the clips it is made of.
pub(crate) fn record(
    mut rows: Vec<VideoRow>,
    combined: Vec<ClipRow>,
    base_url: &str,
) -> Result<Video, DbError> {
    // Listed once its clip_url is set, in input order (API-DESIGN.md#records-and-endpoints).
    let mut clip_rows: Vec<ClipRow> = rows.iter_mut().filter_map(VideoRow::take_clip).collect();
    let row = rows.swap_remove(0);
    if row.kind == "combine" {
        // A combined video owns no clips; it lists the ones it is made of.
        clip_rows = combined;
    }
    let mut video_clips = Vec::with_capacity(clip_rows.len());
    for clip in clip_rows {
        if let Some(record) = StoredClip::try_from(clip)?.record(base_url) {
            video_clips.push(record);
        }
    }

    let status: Status = parse_enum(&row.status, "video status")?;
    let branding = match (row.b_templates, row.b_status) {
        (Some(Json(templates)), Some(b_status)) => {
            let b_status: Status = parse_enum(&b_status, "branding status")?;
            Some(Branding {
                status: b_status,
                video_url: match (b_status, &row.b_video_key) {
                    (Status::Complete, Some(key)) => public_url(base_url, key),
                    _ => String::new(),
                },
                templates,
                speed_ramp: row.b_speed_ramp.unwrap_or(false),
                progress: u8::try_from(row.b_progress.unwrap_or(0).clamp(0, 100)).unwrap_or(0),
                error: job_error(row.b_error_code, row.b_error_message, row.b_error_field)
                    .filter(|_| b_status == Status::Error),
            })
        }
        _ => None,
    };
    let finished = match (status, &row.video_key) {
        (Status::Complete, Some(key)) => Some(key),
        _ => None,
    };
    Ok(Video {
        uuid: row.id,
        project: row.project_id,
        status,
        video_url: finished.map_or_else(String::new, |key| public_url(base_url, key)),
        video_clips,
        poster_url: finished.map(|key| public_url(base_url, &still_key(key))),
        audio_url: row.audio_url,
        title: row.title,
        orientation: parse_enum(&row.orientation, "orientation")?,
        resolution: parse_enum(&row.resolution, "resolution")?,
        ai_engine: parse_enum(&row.engine, "engine")?,
        branding,
        progress: u8::try_from(row.progress.clamp(0, 100)).unwrap_or(0),
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
        error: job_error(row.error_code, row.error_message, row.error_field)
            .filter(|_| status == Status::Error),
        // The latest event's delivery: 'branding' sorts before 'video', and a branded
        // render's event always comes after its video's.
        webhook: row.webhook_url.map(|url| Webhook {
            url,
            status: row
                .w_status
                .as_deref()
                .and_then(WebhookStatus::parse)
                .unwrap_or(WebhookStatus::Pending),
            attempts: row
                .w_attempts
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0),
            last_status: row.w_last_status.and_then(|n| u16::try_from(n).ok()),
        }),
    })
}
