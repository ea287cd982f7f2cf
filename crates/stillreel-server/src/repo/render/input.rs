//! What a render job reads before it starts: its video's request, clips and branding.

use sqlx::types::Json;
use stillreel_core::{
    BrandingTemplates, CombineVideoClipsRequest, CreateVideoRequest, Engine, Orientation,
    Resolution,
};
use uuid::Uuid;

use crate::db::{Db, DbError, on_db};
use crate::repo::parse_enum;
use crate::repo::videos::StoredClip;

/// One clip to render for a `create_video` video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipToRender {
    /// Index in `image_inputs`.
    pub position: usize,
    pub clip: StoredClip,
}

/// What a video is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderSource {
    /// Render one clip per image (clips already rendered by an earlier attempt have
    /// `clip.clip_key` set and may be reused).
    Create {
        request: CreateVideoRequest,
        clips: Vec<ClipToRender>,
    },
    /// Join existing, rendered clips, in order (a clip may repeat); `clip_keys[i]` is the
    /// storage key of `video_clip_uuids[i]`.
    Combine {
        request: CombineVideoClipsRequest,
        clip_keys: Vec<String>,
    },
}

/// The branded render to make after the main video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandingToRender {
    pub templates: BrandingTemplates,
    /// Effective: requested and two or more clips.
    pub speed_ramp: bool,
}

/// Everything a worker needs to render a video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderInput {
    pub video_id: Uuid,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
    pub source: RenderSource,
    /// Storage key of the main video once complete (the branded render starts from it).
    pub video_key: Option<String>,
    pub branding: Option<BrandingToRender>,
}

#[derive(sqlx::FromRow)]
struct InputRow {
    kind: String,
    request: Json<serde_json::Value>,
    orientation: String,
    resolution: String,
    engine: String,
    video_key: Option<String>,
    templates: Option<Json<BrandingTemplates>>,
    speed_ramp: Option<bool>,
}

fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, DbError> {
    serde_json::from_value(value).map_err(|err| DbError::Corrupt(format!("stored request: {err}")))
}

/// A clip of a created video, as [`render_input`] lists them.
#[derive(sqlx::FromRow)]
struct ClipPosition {
    position: i64,
    id: Uuid,
}

/// The render input of a video, or `None` if there is no such video.
pub async fn render_input(db: &Db, video_id: Uuid) -> Result<Option<RenderInput>, DbError> {
    let row: Option<InputRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT v.kind, v.request, v.orientation, v.resolution, v.engine, v.video_key, b.templates, b.speed_ramp
         FROM videos v LEFT JOIN brandings b ON b.video_id = v.id WHERE v.id = $1",
    )
    .bind(video_id)
    .fetch_optional(pool)
    .await?);
    let Some(row) = row else { return Ok(None) };
    let source = if row.kind == "combine" {
        let keys: Vec<Option<String>> = on_db!(db, pool => sqlx::query_scalar(
            "SELECT c.clip_key FROM combine_clips cc JOIN clips c ON c.id = cc.clip_id
             WHERE cc.video_id = $1 ORDER BY cc.position",
        )
        .bind(video_id)
        .fetch_all(pool)
        .await?);
        let clip_keys = keys
            .into_iter()
            .map(|k| k.ok_or_else(|| DbError::Corrupt("combined clip is not rendered".to_owned())))
            .collect::<Result<_, _>>()?;
        RenderSource::Combine {
            request: decode(row.request.0)?,
            clip_keys,
        }
    } else {
        let rows: Vec<ClipPosition> = on_db!(db, pool => sqlx::query_as(
            "SELECT position, id FROM clips WHERE video_id = $1 ORDER BY position",
        )
        .bind(video_id)
        .fetch_all(pool)
        .await?);
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let account: Uuid = on_db!(db, pool => sqlx::query_scalar("SELECT account_id FROM videos WHERE id = $1")
            .bind(video_id)
            .fetch_one(pool)
            .await?);
        let mut stored = crate::repo::videos::clips_of_account(db, account, &ids).await?;
        let mut clips = Vec::with_capacity(rows.len());
        for ClipPosition { position, id } in rows {
            let clip = stored
                .remove(&id)
                .ok_or_else(|| DbError::Corrupt(format!("clip {id} vanished")))?;
            clips.push(ClipToRender {
                position: usize::try_from(position).unwrap_or(0),
                clip,
            });
        }
        RenderSource::Create {
            request: decode(row.request.0)?,
            clips,
        }
    };
    Ok(Some(RenderInput {
        video_id,
        orientation: parse_enum(&row.orientation, "orientation")?,
        resolution: parse_enum(&row.resolution, "resolution")?,
        engine: parse_enum(&row.engine, "engine")?,
        source,
        video_key: row.video_key,
        branding: row.templates.map(|Json(templates)| BrandingToRender {
            templates,
            speed_ramp: row.speed_ramp.unwrap_or(false),
        }),
    }))
}

/// Whether every clip a combined video joins was made for a video branded with the speed ramp
/// (so its camera keeps moving through its ends and the ramp shows over it).
pub async fn combined_clips_paced_through(db: &Db, video_id: Uuid) -> Result<bool, DbError> {
    let eased: i64 = on_db!(db, pool => sqlx::query_scalar(
        "SELECT COUNT(*) FROM combine_clips cc JOIN clips c ON c.id = cc.clip_id
         LEFT JOIN brandings b ON b.video_id = c.video_id
         WHERE cc.video_id = $1 AND (b.speed_ramp IS NULL OR NOT b.speed_ramp)",
    )
    .bind(video_id)
    .fetch_one(pool)
    .await?);
    Ok(eased == 0)
}
