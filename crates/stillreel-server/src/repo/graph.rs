//! What the steps of the job graph read and write (prepare → clip × n → stitch).
//!
//! Each `record_*_in` runs inside the transaction in which the worker's runner completes the
//! step's job by its lease token (`worker/runner.rs`), and answers facts: what it recorded and
//! what is now ready (the clips still to render, whether this was the last clip, whether the
//! video completed). The kind that ran the step builds the jobs that follow from them
//! (`worker/kinds/`), queued in that same transaction: a worker that lost its lease records
//! nothing. Only the clip that records the last clip, through the `videos.clips_left` counter,
//! is told it was the last; so the stitch exists exactly once and only once every clip is
//! recorded, and no job waits for another.

use stillreel_camera::input::ExifOrientation;
use stillreel_core::{CameraMotion, GeneratedContent, MediaFormat};
use stillreel_render::steps::{Prepared, StoredInput, StoredMusic};
use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx};

/// The video's progress bar (0–100), shared by the steps of its graph: prepare fills the
/// first [`PREPARE_SHARE`] points, the clips together the next [`CLIPS_SHARE`] (from the mean
/// of their own progress, in [`RAISE_FROM_CLIPS`]), the stitch the last [`STITCH_SHARE`] (of
/// which it reports all but one: 100 comes with completion).
pub const PREPARE_SHARE: u8 = 5;
pub const CLIPS_SHARE: u8 = 90;
pub const STITCH_SHARE: u8 = 100 - PREPARE_SHARE - CLIPS_SHARE;
/// Where the stitch's share starts.
pub const STITCH_FROM: u8 = PREPARE_SHARE + CLIPS_SHARE;

/// The video's progress from its clips' ($3 = [`PREPARE_SHARE`] + $4 = [`CLIPS_SHARE`] × mean
/// clip progress), in integer SQL that reads the same on both backends. Only ever raises the
/// stored value.
const RAISE_FROM_CLIPS: &str = "UPDATE videos SET progress = (
         SELECT $3 + ($4 * SUM(c.progress)) / (100 * COUNT(*)) FROM clips c WHERE c.video_id = videos.id),
         updated_at = $1
     WHERE id = $2 AND status = 'in_progress'
       AND progress < (SELECT $3 + ($4 * SUM(c.progress)) / (100 * COUNT(*)) FROM clips c WHERE c.video_id = videos.id)";

/// Runs [`RAISE_FROM_CLIPS`] for `video_id` in `tx`; whether it raised the progress.
async fn raise_from_clips_in(tx: &mut Tx, video_id: Uuid, now: i64) -> Result<bool, DbError> {
    Ok(on_tx!(tx, conn => sqlx::query(RAISE_FROM_CLIPS)
        .bind(now)
        .bind(video_id)
        .bind(i64::from(PREPARE_SHARE))
        .bind(i64::from(CLIPS_SHARE))
        .execute(conn)
        .await?
        .rows_affected())
        > 0)
}

/// How recording a rendered clip ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipRecorded {
    /// The clip is recorded; `last`: it was the video's last clip to record, and the video
    /// is still running (its stitch is due).
    Recorded { last: bool },
    /// The clip already had a file (an attempt whose completion was lost after recording
    /// it): the new upload is an orphan.
    AlreadyRecorded,
}

/// How recording what prepare stored ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareRecorded {
    /// The video is running; these clips (positions, in order) are still to render. Empty
    /// when an earlier attempt rendered them all.
    Running { clips_left: Vec<usize> },
    /// The video is no longer running (failed, or gone): nothing follows.
    Stopped,
}

/// Records what prepare stored in `tx`; answers the clips still to render.
pub async fn record_prepare_in(
    tx: &mut Tx,
    video_id: Uuid,
    prepared: &Prepared,
) -> Result<PrepareRecorded, DbError> {
    let now = now_ms();
    for input in &prepared.inputs {
        on_tx!(&mut *tx, conn => sqlx::query(
            "UPDATE clips SET input_key = $1, input_format = $2, input_width = $3, input_height = $4,
                 input_orientation = $5, input_digest = $6, updated_at = $7
             WHERE video_id = $8 AND position = $9",
        )
        .bind(&input.key)
        .bind(input.format.extension())
        .bind(input.upright.map(|(w, _)| i64::from(w)))
        .bind(input.upright.map(|(_, h)| i64::from(h)))
        .bind(i32::from(input.orientation.0))
        // The digest's bits, as the signed integer both databases store.
        .bind(i64::from_ne_bytes(input.digest.to_ne_bytes()))
        .bind(now)
        .bind(video_id)
        .bind(i64::try_from(input.index).unwrap_or(i64::MAX))
        .execute(conn)
        .await
        .map(drop)?);
    }
    // Clips an earlier attempt rendered count as done.
    on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE clips SET progress = 100 WHERE video_id = $1 AND clip_key IS NOT NULL",
    )
    .bind(video_id)
    .execute(conn)
    .await
    .map(drop)?);
    let left: Vec<i64> = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT position FROM clips WHERE video_id = $1 AND clip_key IS NULL ORDER BY position",
    )
    .bind(video_id)
    .fetch_all(conn)
    .await?);
    let running = on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE videos SET clips_left = $1, music_key = $2, music_format = $3,
             progress = CASE WHEN progress < $4 THEN $4 ELSE progress END, updated_at = $5
         WHERE id = $6 AND status = 'in_progress'",
    )
    .bind(i64::try_from(left.len()).unwrap_or(i64::MAX))
    .bind(prepared.music.as_ref().map(|m| m.key.as_str()))
    .bind(prepared.music.as_ref().map(|m| m.format.extension()))
    .bind(i32::from(PREPARE_SHARE))
    .bind(now)
    .bind(video_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    Ok(if running {
        PrepareRecorded::Running {
            clips_left: left
                .iter()
                .map(|&position| usize::try_from(position).unwrap_or(0))
                .collect(),
        }
    } else {
        PrepareRecorded::Stopped
    })
}

/// What a clip job needs of its clip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipInput {
    pub clip_id: Uuid,
    /// The stored checked input; `None` when prepare has not recorded it (a bug, or a video
    /// from before the graph whose render job was replaced).
    pub input: Option<StoredInput>,
    /// Already rendered (an earlier attempt recorded it).
    pub clip_key: Option<String>,
}

/// A clip's row as [`clip_input`] reads it.
#[derive(sqlx::FromRow)]
struct InputRow {
    id: Uuid,
    input_key: Option<String>,
    input_format: Option<String>,
    input_width: Option<i32>,
    input_height: Option<i32>,
    input_orientation: Option<i32>,
    input_digest: Option<i64>,
    clip_key: Option<String>,
}

/// The stored input of clip `index` of `video_id`.
pub async fn clip_input(
    db: &Db,
    video_id: Uuid,
    index: usize,
) -> Result<Option<ClipInput>, DbError> {
    let row: Option<InputRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT id, input_key, input_format, input_width, input_height, input_orientation,
                input_digest, clip_key
         FROM clips WHERE video_id = $1 AND position = $2",
    )
    .bind(video_id)
    .bind(i64::try_from(index).unwrap_or(i64::MAX))
    .fetch_optional(pool)
    .await?);
    let Some(row) = row else {
        return Ok(None);
    };
    let format = row
        .input_format
        .as_deref()
        .and_then(MediaFormat::from_extension);
    let input = match (row.input_key, format) {
        (Some(key), Some(format)) => Some(StoredInput {
            index,
            key,
            format,
            upright: row
                .input_width
                .zip(row.input_height)
                .and_then(|(w, h)| Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?))),
            orientation: ExifOrientation(
                row.input_orientation
                    .and_then(|o| u8::try_from(o).ok())
                    .unwrap_or(1),
            ),
            digest: u64::from_ne_bytes(row.input_digest.unwrap_or_default().to_ne_bytes()),
        }),
        _ => None,
    };
    Ok(Some(ClipInput {
        clip_id: row.id,
        input,
        clip_key: row.clip_key,
    }))
}

/// Records a rendered clip (its key, the camera motion really used, what of it a model made
/// and the renderer's notes) in `tx` and counts it off `videos.clips_left`; answers whether it
/// was the last.
pub async fn record_clip_in(
    tx: &mut Tx,
    video_id: Uuid,
    clip_id: Uuid,
    clip_key: &str,
    motion: Option<CameraMotion>,
    (generated, notes): (&[GeneratedContent], &[String]),
) -> Result<ClipRecorded, DbError> {
    crate::storage::check_key(clip_key)?;
    let now = now_ms();
    let generated = (!generated.is_empty()).then(|| sqlx::types::Json(generated.to_vec()));
    let notes = (!notes.is_empty()).then(|| sqlx::types::Json(notes.to_vec()));
    let recorded = on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE clips SET clip_key = $1, camera_motion = COALESCE($2, camera_motion), progress = 100,
             updated_at = $3, generated = $5, notes = $6
         WHERE id = $4 AND clip_key IS NULL",
    )
    .bind(clip_key)
    .bind(motion.map(|m| m.as_str()))
    .bind(now)
    .bind(clip_id)
    .bind(generated.clone())
    .bind(notes.clone())
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if !recorded {
        return Ok(ClipRecorded::AlreadyRecorded);
    }
    tx.touch(video_id);
    // The decrement and the test of its result are one statement, so two clips completing at
    // once on two machines cannot both see 0 (the row lock serializes them).
    let left: Option<ClipsLeft> = on_tx!(&mut *tx, conn => sqlx::query_as(
        "UPDATE videos SET clips_left = clips_left - 1, updated_at = $1
         WHERE id = $2 AND clips_left > 0
         RETURNING clips_left, status",
    )
    .bind(now)
    .bind(video_id)
    .fetch_optional(conn)
    .await?);
    raise_from_clips_in(tx, video_id, now).await?;
    let last = left.is_some_and(|l| l.clips_left == 0 && l.status == "in_progress");
    Ok(ClipRecorded::Recorded { last })
}

/// What counting a clip off its video left ([`record_clip_in`]).
#[derive(sqlx::FromRow)]
struct ClipsLeft {
    clips_left: i32,
    status: String,
}

/// Raises the progress of clip `clip_id` and, from all its siblings', of its video.
pub async fn set_clip_progress(
    db: &Db,
    video_id: Uuid,
    clip_id: Uuid,
    progress: u8,
) -> Result<(), DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let raised = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE clips SET progress = $1 WHERE id = $2 AND progress < $1",
    )
    .bind(i32::from(progress.min(100)))
    .bind(clip_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if raised && raise_from_clips_in(&mut tx, video_id, now).await? {
        tx.touch(video_id);
    }
    tx.commit().await?;
    Ok(())
}

/// What the stitch joins: the recorded clips in position order (never a listing of files),
/// and the stored music. `None` for a clip not recorded.
pub async fn stitch_input(
    db: &Db,
    video_id: Uuid,
) -> Result<(Vec<Option<String>>, Option<StoredMusic>), DbError> {
    let keys: Vec<Option<String>> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT clip_key FROM clips WHERE video_id = $1 ORDER BY position",
    )
    .bind(video_id)
    .fetch_all(pool)
    .await?);
    let music: Option<MusicRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT music_key, music_format FROM videos WHERE id = $1",
    )
    .bind(video_id)
    .fetch_optional(pool)
    .await?);
    let music = music.and_then(|row| {
        Some(StoredMusic {
            key: row.music_key?,
            format: MediaFormat::from_extension(&row.music_format?)?,
        })
    });
    Ok((keys, music))
}

/// A video's stored music, as [`stitch_input`] reads it.
#[derive(sqlx::FromRow)]
struct MusicRow {
    music_key: Option<String>,
    music_format: Option<String>,
}

/// Completes the video with its file (stitched or combined) in `tx` (the webhook event with
/// it); answers whether this completed it (not already complete, failed or gone).
pub async fn record_video_in(
    tx: &mut Tx,
    video_id: Uuid,
    video_key: &str,
) -> Result<bool, DbError> {
    crate::repo::render::complete_video_in(tx, video_id, video_key).await
}

/// Whether a video's branded render is due: it asked for one, and no branding job exists
/// yet.
pub async fn branding_due_in(tx: &mut Tx, video_id: Uuid) -> Result<bool, DbError> {
    Ok(on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM brandings WHERE video_id = $1)
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE video_id = $1 AND makes = 'branding')",
    )
    .bind(video_id)
    .fetch_one(conn)
    .await?))
}

/// The storage keys a finished stitch removes: the checked photos, and the music unless a
/// branded render will still lay it under its outro (the branding step removes it then).
pub async fn inputs_done_at_stitch_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<String>, DbError> {
    let mut keys = input_keys_in(tx, video_id).await?;
    let branded: bool = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM brandings WHERE video_id = $1)",
    )
    .bind(video_id)
    .fetch_one(conn)
    .await?);
    if !branded {
        keys.extend(music_key_in(tx, video_id).await?);
    }
    Ok(keys)
}

/// What the stitch left for the branded render and nothing reads once it is done or has
/// failed: the stored music and the branded sound made ahead.
pub async fn branding_leftovers_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<String>, DbError> {
    let mut keys: Vec<String> = music_key_in(tx, video_id).await?.into_iter().collect();
    keys.push(crate::storage::branded_sound_key(video_id));
    Ok(keys)
}

/// The stored copy of a video's music, if prepare kept one.
pub async fn music_key_in(tx: &mut Tx, video_id: Uuid) -> Result<Option<String>, DbError> {
    let music: Option<Option<String>> = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT music_key FROM videos WHERE id = $1",
    )
    .bind(video_id)
    .fetch_optional(conn)
    .await?);
    Ok(music.flatten())
}

/// The stored copies of a video's checked photos, in clip order.
async fn input_keys_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<String>, DbError> {
    Ok(on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT input_key FROM clips WHERE video_id = $1 AND input_key IS NOT NULL ORDER BY position",
    )
    .bind(video_id)
    .fetch_all(conn)
    .await?))
}

/// The storage keys of what prepare stored for a video (its checked inputs and music): once
/// the video is stitched or has failed nothing reads them again, and they are removed.
pub async fn prepared_keys_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<String>, DbError> {
    let mut keys = input_keys_in(tx, video_id).await?;
    keys.extend(music_key_in(tx, video_id).await?);
    Ok(keys)
}
