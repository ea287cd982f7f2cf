//! Creating videos (with their clips, branding record and render job, in one transaction) and
//! reading video records back.

use std::collections::HashMap;

use sqlx::types::Json;
use stillreel_core::{
    Branding, BrandingRequest, BrandingTemplates, CombineVideoClipsRequest, CreateVideoRequest,
    Engine, JobError, Orientation, Resolution, Status, Vfx, Video, VideoClip, Webhook,
    WebhookStatus,
};
use uuid::Uuid;

use super::parse_enum;
use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx, rfc3339};
use crate::queue::{self, JobKind};
use crate::storage::public_url;

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
        })
    }
}

#[derive(sqlx::FromRow)]
struct ClipRow {
    id: Uuid,
    image_url: String,
    camera_motion: String,
    vfx: Option<Json<Vfx>>,
    orientation: String,
    resolution: String,
    engine: String,
    clip_key: Option<String>,
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
        })
    }
}

const CLIP_COLUMNS: &str =
    "c.id, c.image_url, c.camera_motion, c.vfx, c.orientation, c.resolution, c.engine, c.clip_key";

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

#[expect(
    clippy::too_many_arguments,
    reason = "one row, one statement; a struct would only rename the columns"
)]
async fn insert_video_row(
    tx: &mut Tx,
    id: Uuid,
    account: Uuid,
    project: Uuid,
    kind: &str,
    request: &serde_json::Value,
    orientation: Orientation,
    resolution: Resolution,
    engine: Engine,
    now: i64,
) -> Result<(), DbError> {
    on_tx!(tx, conn => sqlx::query(
        "INSERT INTO videos (id, account_id, project_id, kind, request, orientation, resolution, engine,
                             status, progress, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', 0, $9, $9)",
    )
    .bind(id)
    .bind(account)
    .bind(project)
    .bind(kind)
    .bind(Json(request))
    .bind(orientation.as_str())
    .bind(resolution.as_str())
    .bind(engine.as_str())
    .bind(now)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(())
}

async fn insert_branding_row(
    tx: &mut Tx,
    video: Uuid,
    templates: &BrandingTemplates,
    speed_ramp: bool,
    now: i64,
) -> Result<(), DbError> {
    on_tx!(tx, conn => sqlx::query(
        "INSERT INTO brandings (video_id, templates, speed_ramp, status, progress, created_at, updated_at)
         VALUES ($1, $2, $3, 'queued', 0, $4, $4)",
    )
    .bind(video)
    .bind(Json(templates))
    .bind(speed_ramp)
    .bind(now)
    .execute(conn)
    .await
    .map(drop)?);
    Ok(())
}

#[expect(clippy::too_many_arguments, reason = "the fields of one record")]
fn queued_record(
    id: Uuid,
    project: Uuid,
    orientation: Orientation,
    resolution: Resolution,
    engine: Engine,
    video_clips: Vec<VideoClip>,
    branding: Option<(BrandingTemplates, bool)>,
    now: i64,
) -> Video {
    Video {
        uuid: id,
        project,
        status: Status::Queued,
        video_url: String::new(),
        video_clips,
        orientation,
        resolution,
        ai_engine: engine,
        branding: branding.map(|(templates, speed_ramp)| Branding {
            status: Status::Queued,
            video_url: String::new(),
            templates,
            speed_ramp,
            error: None,
        }),
        progress: 0,
        created_at: rfc3339(now),
        updated_at: rfc3339(now),
        error: None,
        webhook: None,
    }
}

/// The echo of a new video's `webhook_url`: nothing sent yet. Stores the URL on the video
/// row (in `tx`) for the settling transaction to find.
async fn with_webhook(tx: &mut Tx, mut video: Video, url: Option<&str>) -> Result<Video, DbError> {
    if let Some(url) = url {
        crate::repo::webhooks::set_url(tx, video.uuid, url).await?;
        video.webhook = Some(Webhook {
            url: url.to_owned(),
            status: WebhookStatus::Pending,
            attempts: 0,
            last_status: None,
        });
    }
    Ok(video)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, DbError> {
    serde_json::to_value(value).map_err(|err| DbError::Corrupt(format!("cannot serialize: {err}")))
}

/// Parameters shared by every clip row of [`insert_clips`]: `$1` video, `$2` account,
/// `$3` orientation, `$4` resolution, `$5` engine, `$6` timestamp.
const SHARED_CLIP_BINDS: usize = 6;
/// Parameters per clip row: id, position, image URL, camera motion, vfx.
const CLIP_ROW_BINDS: usize = 5;

/// `INSERT INTO clips ... VALUES (...), (...), ...` for `rows` rows: one statement and one
/// round trip whatever the number of images (the clip limit keeps it far below both
/// backends' bind-parameter limits). Only placeholders are generated, never values.
fn clip_insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO clips (id, video_id, account_id, position, image_url, camera_motion, vfx,
                            orientation, resolution, engine, created_at, updated_at) VALUES ",
    );
    for row in 0..rows {
        let b = SHARED_CLIP_BINDS + row * CLIP_ROW_BINDS;
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!(
            "(${}, $1, $2, ${}, ${}, ${}, ${}, $3, $4, $5, $6, $6)",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5
        ));
    }
    sql
}

/// One clip row per image, not yet rendered.
async fn insert_clips(
    tx: &mut Tx,
    video: Uuid,
    account: Uuid,
    request: &CreateVideoRequest,
    now: i64,
) -> Result<(), DbError> {
    let sql = clip_insert_sql(request.image_inputs.len());
    on_tx!(tx, conn => {
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(video)
            .bind(account)
            .bind(request.orientation.as_str())
            .bind(request.resolution.as_str())
            .bind(request.ai_engine.as_str())
            .bind(now);
        for (position, input) in request.image_inputs.iter().enumerate() {
            query = query
                .bind(Uuid::now_v7())
                .bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(input.image_url.clone())
                .bind(input.camera_motion.as_str())
                .bind(input.vfx.clone().map(Json));
        }
        query.execute(conn).await.map(drop)?
    });
    Ok(())
}

/// Stores a `create_video` request: the video, one clip row per image (not yet rendered), the
/// branding record when requested, and its render job, all in `tx`. Returns the `queued`
/// record to answer with.
pub async fn insert_create(
    tx: &mut Tx,
    account: Uuid,
    project: Uuid,
    request: &CreateVideoRequest,
) -> Result<Video, DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let (o, r, e) = (request.orientation, request.resolution, request.ai_engine);
    let branding = branding_of(request.branding.as_ref(), request.image_inputs.len());
    match tx {
        Tx::Sqlite(t) => {
            insert_create_sqlite(t, id, account, project, request, branding.as_ref(), now).await?
        }
        Tx::Postgres(_) => {
            insert_video_row(
                tx,
                id,
                account,
                project,
                "create",
                &to_json(request)?,
                o,
                r,
                e,
                now,
            )
            .await?;
            insert_clips(tx, id, account, request, now).await?;
            if let Some((templates, ramp)) = &branding {
                insert_branding_row(tx, id, templates, *ramp, now).await?;
            }
            queue::enqueue(tx, id, JobKind::Prepare).await?;
        }
    }
    let record = queued_record(id, project, o, r, e, Vec::new(), branding, now);
    with_webhook(tx, record, request.webhook_url.as_deref()).await
}

/// The SQLite form of [`insert_create`]: the same rows, written by one multi-statement batch
/// in one round trip to the connection's thread. On SQLite that hop, not the inserts, is most
/// of the cost of a create (and the single writer serializes them), so this roughly halves
/// the writer's time per video. Parameters are numbered globally across the statements
/// (sqlx binds `$N` by number on SQLite); PostgreSQL runs the statements one by one instead.
async fn insert_create_sqlite(
    conn: &mut sqlx::SqliteConnection,
    id: Uuid,
    account: Uuid,
    project: Uuid,
    request: &CreateVideoRequest,
    branding: Option<&(BrandingTemplates, bool)>,
    now: i64,
) -> Result<(), DbError> {
    const FIRST_CLIP_BIND: usize = 10;
    let mut sql = String::from(
        "INSERT INTO videos (id, account_id, project_id, kind, request, orientation, resolution, engine,
                             status, progress, created_at, updated_at)
         VALUES ($1, $2, $3, 'create', $4, $5, $6, $7, 'queued', 0, $8, $8);
         INSERT INTO clips (id, video_id, account_id, position, image_url, camera_motion, vfx,
                            orientation, resolution, engine, created_at, updated_at) VALUES ",
    );
    for row in 0..request.image_inputs.len() {
        let b = FIRST_CLIP_BIND + row * CLIP_ROW_BINDS;
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!(
            "(${}, $1, $2, ${}, ${}, ${}, ${}, $5, $6, $7, $8, $8)",
            b + 1,
            b + 2,
            b + 3,
            b + 4,
            b + 5
        ));
    }
    sql.push(';');
    if branding.is_some() {
        sql.push_str(
            "INSERT INTO brandings (video_id, templates, speed_ramp, status, progress, created_at, updated_at)
             VALUES ($1, $9, $10, 'queued', 0, $8, $8);",
        );
    }
    // The row `queue::enqueue` writes.
    sql.push_str(
        "INSERT INTO jobs (video_id, kind, state, run_after, created_at, updated_at)
         VALUES ($1, 'prepare', 'queued', $8, $8, $8);",
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .bind(account)
        .bind(project)
        .bind(Json(to_json(request)?))
        .bind(request.orientation.as_str())
        .bind(request.resolution.as_str())
        .bind(request.ai_engine.as_str())
        .bind(now)
        .bind(branding.map(|(templates, _)| Json(templates.clone())))
        .bind(branding.is_some_and(|(_, ramp)| *ramp));
    for (position, input) in request.image_inputs.iter().enumerate() {
        query = query
            .bind(Uuid::now_v7())
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(input.image_url.clone())
            .bind(input.camera_motion.as_str())
            .bind(input.vfx.clone().map(Json));
    }
    query.execute(conn).await?;
    Ok(())
}

/// Stores a `combine_video_clips` request that passed every check: the video, its list of
/// clips, the branding record when requested, and its job, all in `tx`. `clips` are the
/// records in request order. Returns the `queued` record to answer with.
pub async fn insert_combine(
    tx: &mut Tx,
    account: Uuid,
    project: Uuid,
    request: &CombineVideoClipsRequest,
    engine: Engine,
    clips: Vec<VideoClip>,
) -> Result<Video, DbError> {
    let id = Uuid::now_v7();
    let now = now_ms();
    let (o, r) = (request.orientation, request.resolution);
    insert_video_row(
        tx,
        id,
        account,
        project,
        "combine",
        &to_json(request)?,
        o,
        r,
        engine,
        now,
    )
    .await?;
    for (position, clip) in clips.iter().enumerate() {
        let position = i64::try_from(position).unwrap_or(i64::MAX);
        on_tx!(&mut *tx, conn => sqlx::query(
            "INSERT INTO combine_clips (video_id, position, clip_id) VALUES ($1, $2, $3)",
        )
        .bind(id)
        .bind(position)
        .bind(clip.uuid)
        .execute(conn)
        .await
        .map(drop)?);
    }
    let branding = branding_of(request.branding.as_ref(), clips.len());
    if let Some((templates, ramp)) = &branding {
        insert_branding_row(tx, id, templates, *ramp, now).await?;
    }
    queue::enqueue(tx, id, JobKind::Combine).await?;
    let record = queued_record(id, project, o, r, engine, clips, branding, now);
    with_webhook(tx, record, request.webhook_url.as_deref()).await
}

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
            sqlx::AssertSqlSafe(format!("SELECT {CLIP_COLUMNS} FROM clips c WHERE c.id = $1 AND c.account_id = $2")),
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

#[derive(sqlx::FromRow)]
struct VideoRow {
    id: Uuid,
    project_id: Uuid,
    kind: String,
    orientation: String,
    resolution: String,
    engine: String,
    status: String,
    progress: i32,
    video_key: Option<String>,
    error_code: Option<String>,
    error_message: Option<String>,
    error_field: Option<String>,
    created_at: i64,
    updated_at: i64,
    b_templates: Option<Json<BrandingTemplates>>,
    b_speed_ramp: Option<bool>,
    b_status: Option<String>,
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

/// The video record of `id` as `account` sees it: `None` when it does not exist or belongs to
/// another account. URLs are built on `base_url`.
pub async fn get_video(
    db: &Db,
    account: Uuid,
    id: Uuid,
    base_url: &str,
) -> Result<Option<Video>, DbError> {
    // One round trip in the common case: the video, its branding and (for a create video) its
    // rendered clips, one row per clip. `get_video` is what clients poll.
    let mut rows: Vec<VideoRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT v.id, v.project_id, v.kind, v.orientation, v.resolution, v.engine, v.status, v.progress,
                v.video_key, v.error_code, v.error_message, v.error_field, v.created_at, v.updated_at,
                b.templates AS b_templates, b.speed_ramp AS b_speed_ramp, b.status AS b_status,
                b.video_key AS b_video_key, b.error_code AS b_error_code,
                b.error_message AS b_error_message, b.error_field AS b_error_field,
                c.id AS c_id, c.image_url AS c_image_url, c.camera_motion AS c_camera_motion, c.vfx AS c_vfx,
                c.orientation AS c_orientation, c.resolution AS c_resolution, c.engine AS c_engine,
                c.clip_key AS c_clip_key,
                v.webhook_url, w.status AS w_status, w.attempts AS w_attempts, w.last_status AS w_last_status
         FROM videos v
         LEFT JOIN brandings b ON b.video_id = v.id
         LEFT JOIN webhook_deliveries w ON w.video_id = v.id
              AND w.subject = (SELECT MIN(subject) FROM webhook_deliveries WHERE video_id = v.id)
         LEFT JOIN clips c ON c.video_id = v.id AND c.clip_key IS NOT NULL
         WHERE v.id = $1 AND v.account_id = $2
         ORDER BY c.position",
    )
    .bind(id)
    .bind(account)
    .fetch_all(pool)
    .await?);
    if rows.is_empty() {
        return Ok(None);
    }
    // A clip is listed once its clip_url is set, in input order
    // (docs/API-DESIGN.md#records-and-endpoints).
    let mut clip_rows: Vec<ClipRow> = rows.iter_mut().filter_map(VideoRow::take_clip).collect();
    let row = rows.swap_remove(0);
    if row.kind == "combine" {
        // A combined video owns no clips; it lists the ones it is made of.
        clip_rows = on_db!(db, pool => sqlx::query_as(
            "SELECT c.id, c.image_url, c.camera_motion, c.vfx, c.orientation, c.resolution, c.engine, c.clip_key
             FROM combine_clips cc JOIN clips c ON c.id = cc.clip_id
             WHERE cc.video_id = $1 AND c.clip_key IS NOT NULL ORDER BY cc.position",
        )
        .bind(id)
        .fetch_all(pool)
        .await?);
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
                error: job_error(row.b_error_code, row.b_error_message, row.b_error_field)
                    .filter(|_| b_status == Status::Error),
            })
        }
        _ => None,
    };
    Ok(Some(Video {
        uuid: row.id,
        project: row.project_id,
        status,
        video_url: match (status, &row.video_key) {
            (Status::Complete, Some(key)) => public_url(base_url, key),
            _ => String::new(),
        },
        video_clips,
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
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_insert_placeholders_are_numbered_per_row() {
        let sql = clip_insert_sql(2);
        assert!(sql.contains("($7, $1, $2, $8, $9, $10, $11, $3, $4, $5, $6, $6), ($12, $1, $2, $13, $14, $15, $16, $3, $4, $5, $6, $6)"), "{sql}");
    }
}
