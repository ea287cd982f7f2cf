//! What the steps of the job graph read and write (prepare → clip × n → stitch).
//!
//! Every step's result is recorded in one transaction together with the completion of its
//! job, which matches the job's lease token ([`queue::complete_in`]): a worker that lost its
//! lease records nothing. The clip completion that records the last clip also enqueues the
//! stitch, in the same transaction, through the `videos.clips_left` counter; so the stitch
//! exists exactly once and only once every clip is recorded, and no job waits for another.

use stillreel_core::CameraMotion;
use stillreel_render::fetch::{ExifOrientation, MediaFormat};
use stillreel_render::steps::{Prepared, StoredInput, StoredMusic};
use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_db, on_tx};
use crate::queue::{self, Job, JobKind, NewJob};
use crate::webhook::Event;

/// Share of the video's progress bar for prepare; the clips have the next 90, the stitch the
/// last 5 (of which it reports 4: 100 comes with completion).
pub const PREPARE_SHARE: u8 = 5;
pub const STITCH_FROM: u8 = 95;

/// The video's progress from its clips' (`PREPARE_SHARE` + 90 × mean clip progress), in
/// integer SQL that reads the same on both backends. Only ever raises the stored value.
const RAISE_FROM_CLIPS: &str = "UPDATE videos SET progress = (
         SELECT 5 + (90 * SUM(c.progress)) / (100 * COUNT(*)) FROM clips c WHERE c.video_id = videos.id),
         updated_at = $1
     WHERE id = $2 AND status = 'in_progress'
       AND progress < (SELECT 5 + (90 * SUM(c.progress)) / (100 * COUNT(*)) FROM clips c WHERE c.video_id = videos.id)";

/// How a clip completion ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipRecorded {
    /// The clip is recorded; `stitch_enqueued` when it was the last one.
    Recorded { stitch_enqueued: bool },
    /// The job is done but the clip already had a file (an attempt whose completion was lost
    /// after recording it): the new upload is an orphan.
    AlreadyRecorded,
    /// The lease (token) was no longer this worker's: nothing was written.
    LeaseLost,
}

/// Records what prepare stored and queues the clips still to render (or the stitch, when an
/// earlier `render` job had rendered them all), with the completion of `job`. `false`: the
/// lease was lost and nothing was written.
pub async fn finish_prepare(
    db: &Db,
    job: &Job,
    worker_id: &str,
    prepared: &Prepared,
) -> Result<bool, DbError> {
    let mut tx = db.begin().await?;
    if !queue::complete_in(&mut tx, job, worker_id).await? {
        return Ok(false);
    }
    let now = now_ms();
    for input in &prepared.inputs {
        on_tx!(&mut tx, conn => sqlx::query(
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
        .bind(job.video_id)
        .bind(i64::try_from(input.index).unwrap_or(i64::MAX))
        .execute(conn)
        .await
        .map(drop)?);
    }
    // Clips an earlier attempt rendered count as done.
    on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE clips SET progress = 100 WHERE video_id = $1 AND clip_key IS NOT NULL",
    )
    .bind(job.video_id)
    .execute(conn)
    .await
    .map(drop)?);
    let left: Vec<i64> = on_tx!(&mut tx, conn => sqlx::query_scalar(
        "SELECT position FROM clips WHERE video_id = $1 AND clip_key IS NULL ORDER BY position",
    )
    .bind(job.video_id)
    .fetch_all(conn)
    .await?);
    let running = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE videos SET clips_left = $1, music_key = $2, music_format = $3,
             progress = CASE WHEN progress < $4 THEN $4 ELSE progress END, updated_at = $5
         WHERE id = $6 AND status = 'in_progress'",
    )
    .bind(i64::try_from(left.len()).unwrap_or(i64::MAX))
    .bind(prepared.music.as_ref().map(|m| m.key.as_str()))
    .bind(prepared.music.as_ref().map(|m| m.format.extension()))
    .bind(i32::from(PREPARE_SHARE))
    .bind(now)
    .bind(job.video_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if running {
        // The next jobs, in one round trip: every clip still to render, or the stitch.
        let next: Vec<NewJob> = if left.is_empty() {
            vec![NewJob::new(job.video_id, JobKind::Stitch)]
        } else {
            left.iter()
                .map(|&position| NewJob::clip(job.video_id, usize::try_from(position).unwrap_or(0)))
                .collect()
        };
        queue::enqueue_jobs(&mut tx, &next).await?;
    }
    tx.commit().await?;
    db.invalidate_video(job.video_id);
    Ok(true)
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

type InputRow = (
    Uuid,
    Option<String>,
    Option<String>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i64>,
    Option<String>,
);

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
    let Some((clip_id, key, format, width, height, orientation, digest, clip_key)) = row else {
        return Ok(None);
    };
    let input = match (key, format.as_deref().and_then(MediaFormat::from_extension)) {
        (Some(key), Some(format)) => Some(StoredInput {
            index,
            key,
            format,
            upright: width
                .zip(height)
                .and_then(|(w, h)| Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?))),
            orientation: ExifOrientation(
                orientation.and_then(|o| u8::try_from(o).ok()).unwrap_or(1),
            ),
            digest: u64::from_ne_bytes(digest.unwrap_or_default().to_ne_bytes()),
        }),
        _ => None,
    };
    Ok(Some(ClipInput {
        clip_id,
        input,
        clip_key,
    }))
}

/// Records a rendered clip (its key and the camera motion really used) with the completion of
/// `job`, counts it off `videos.clips_left`, and enqueues the stitch when it was the last.
pub async fn finish_clip(
    db: &Db,
    job: &Job,
    worker_id: &str,
    clip_id: Uuid,
    clip_key: &str,
    motion: Option<CameraMotion>,
) -> Result<ClipRecorded, DbError> {
    crate::storage::check_key(clip_key).map_err(|e| DbError::Corrupt(e.to_string()))?;
    let mut tx = db.begin().await?;
    if !queue::complete_in(&mut tx, job, worker_id).await? {
        return Ok(ClipRecorded::LeaseLost);
    }
    let now = now_ms();
    let recorded = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE clips SET clip_key = $1, camera_motion = COALESCE($2, camera_motion), progress = 100,
             updated_at = $3
         WHERE id = $4 AND clip_key IS NULL",
    )
    .bind(clip_key)
    .bind(motion.map(|m| m.as_str()))
    .bind(now)
    .bind(clip_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if !recorded {
        tx.commit().await?;
        return Ok(ClipRecorded::AlreadyRecorded);
    }
    // The decrement and the test of its result are one statement, so two clips completing at
    // once on two machines cannot both see 0 (the row lock serializes them).
    let left: Option<(i32, String)> = on_tx!(&mut tx, conn => sqlx::query_as(
        "UPDATE videos SET clips_left = clips_left - 1, updated_at = $1
         WHERE id = $2 AND clips_left > 0
         RETURNING clips_left, status",
    )
    .bind(now)
    .bind(job.video_id)
    .fetch_optional(conn)
    .await?);
    on_tx!(&mut tx, conn => sqlx::query(RAISE_FROM_CLIPS)
        .bind(now)
        .bind(job.video_id)
        .execute(conn)
        .await
        .map(drop)?);
    let stitch_enqueued = matches!(&left, Some((0, status)) if status == "in_progress");
    if stitch_enqueued {
        queue::enqueue(&mut tx, job.video_id, JobKind::Stitch).await?;
    }
    tx.commit().await?;
    db.invalidate_video(job.video_id);
    Ok(ClipRecorded::Recorded { stitch_enqueued })
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
    let mut changed = false;
    if raised {
        changed = on_tx!(&mut tx, conn => sqlx::query(RAISE_FROM_CLIPS)
            .bind(now)
            .bind(video_id)
            .execute(conn)
            .await?
            .rows_affected())
            > 0;
    }
    tx.commit().await?;
    if changed {
        db.invalidate_video(video_id);
    }
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
    let music: Option<(Option<String>, Option<String>)> = on_db!(db, pool => sqlx::query_as(
        "SELECT music_key, music_format FROM videos WHERE id = $1",
    )
    .bind(video_id)
    .fetch_optional(pool)
    .await?);
    let music = music.and_then(|(key, format)| {
        Some(StoredMusic {
            key: key?,
            format: MediaFormat::from_extension(&format?)?,
        })
    });
    Ok((keys, music))
}

/// Completes the video with its stitched file, with the completion of `job`, and queues its
/// branded render when it has one. `false`: the lease was lost and nothing was written.
pub async fn finish_stitch(
    db: &Db,
    job: &Job,
    worker_id: &str,
    video_key: &str,
) -> Result<bool, DbError> {
    crate::storage::check_key(video_key).map_err(|e| DbError::Corrupt(e.to_string()))?;
    let mut tx = db.begin().await?;
    if !queue::complete_in(&mut tx, job, worker_id).await? {
        return Ok(false);
    }
    let completed = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE videos SET status = 'complete', progress = 100, video_key = $1, updated_at = $2
         WHERE id = $3 AND status = 'in_progress'",
    )
    .bind(video_key)
    .bind(now_ms())
    .bind(job.video_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if completed {
        crate::repo::webhooks::record_event(&mut tx, job.video_id, Event::VideoCompleted).await?;
        enqueue_branding_in(&mut tx, job.video_id).await?;
    }
    tx.commit().await?;
    db.invalidate_video(job.video_id);
    Ok(true)
}

/// Queues the branded render of a video that has a branding record, unless already queued.
pub async fn enqueue_branding_in(tx: &mut Tx, video_id: Uuid) -> Result<bool, DbError> {
    let wanted: bool = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM brandings WHERE video_id = $1)
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE video_id = $1 AND kind = 'branding')",
    )
    .bind(video_id)
    .fetch_one(conn)
    .await?);
    if wanted {
        queue::enqueue(tx, video_id, JobKind::Branding).await?;
    }
    Ok(wanted)
}

/// The storage keys of what prepare stored for a video (its checked inputs and music): once
/// the video is stitched nothing reads them again, and the worker removes them.
pub async fn prepared_keys(db: &Db, video_id: Uuid) -> Result<Vec<String>, DbError> {
    let mut keys: Vec<String> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT input_key FROM clips WHERE video_id = $1 AND input_key IS NOT NULL ORDER BY position",
    )
    .bind(video_id)
    .fetch_all(pool)
    .await?);
    let music: Option<Option<String>> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT music_key FROM videos WHERE id = $1",
    )
    .bind(video_id)
    .fetch_optional(pool)
    .await?);
    keys.extend(music.flatten());
    Ok(keys)
}
