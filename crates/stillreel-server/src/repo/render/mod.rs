//! What the render worker reads and writes. Every update is conditional, so status only moves
//! forward (`queued → in_progress → complete | error`, docs/API-DESIGN.md#status-lifecycle) and
//! progress never goes down, whatever order workers (or a job run twice) call these in. Each
//! returns `true` when it changed the row, `false` when the row was not in a state that allows the
//! change.
//!
//! What a job reads to start (its video's request, clips and branding) is in [`input`].

use stillreel_core::JobError;
use uuid::Uuid;

mod input;

pub use input::{
    BrandingToRender, ClipToRender, RenderInput, RenderSource, combined_clips_paced_through,
    render_input,
};

use crate::db::{Db, DbError, Tx, now_ms, on_tx};
use crate::webhook::Event;

/// Runs one UPDATE of video `$video`'s rows in a transaction of its own; returns whether it
/// changed a row (and then the commit drops the video's cached answer).
macro_rules! update {
    ($db:expr, $video:expr, $query:expr) => {{
        let mut tx = $db.begin().await?;
        let n = on_tx!(&mut tx, conn => $query.execute(conn).await?.rows_affected());
        if n > 0 {
            tx.touch($video);
        }
        tx.commit().await?;
        n > 0
    }};
}

/// `queued → in_progress`.
pub async fn start_video(db: &Db, video_id: Uuid) -> Result<bool, DbError> {
    Ok(update!(
        db,
        video_id,
        sqlx::query("UPDATE videos SET status = 'in_progress', updated_at = $1 WHERE id = $2 AND status = 'queued'")
            .bind(now_ms())
            .bind(video_id)
    ))
}

/// Raises progress (0–100) of an `in_progress` video; a lower value than stored is ignored.
pub async fn set_video_progress(db: &Db, video_id: Uuid, progress: u8) -> Result<bool, DbError> {
    let p = i32::from(progress.min(100));
    Ok(update!(
        db,
        video_id,
        sqlx::query(
            "UPDATE videos SET progress = $1, updated_at = $2
             WHERE id = $3 AND status = 'in_progress' AND progress < $1",
        )
        .bind(p)
        .bind(now_ms())
        .bind(video_id)
    ))
}

/// The one "video complete" update: `in_progress → complete` with the stored file and
/// progress 100, and its `video.completed` webhook event (`webhooks::record_event`, nothing
/// when the video has no `webhook_url`) in the same transaction, so a crash between settling
/// and delivering cannot lose the event. `false`: the video was not in progress.
pub async fn complete_video_in(
    tx: &mut Tx,
    video_id: Uuid,
    video_key: &str,
) -> Result<bool, DbError> {
    crate::storage::check_key(video_key)?;
    let changed = on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE videos SET status = 'complete', progress = 100, video_key = $1, updated_at = $2
         WHERE id = $3 AND status = 'in_progress'",
    )
    .bind(video_key)
    .bind(now_ms())
    .bind(video_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if changed {
        tx.touch(video_id);
        crate::repo::webhooks::record_event(tx, video_id, Event::VideoCompleted).await?;
    }
    Ok(changed)
}

/// The parts of video `video_id` its brand kit gave (`NewVideo::from_kit`), in `tx`.
///
/// [`NewVideo::from_kit`]: crate::repo::videos::NewVideo::from_kit
pub async fn kit_fields_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<String>, DbError> {
    let row: Option<Option<sqlx::types::Json<Vec<String>>>> = on_tx!(&mut *tx, conn => sqlx::query_scalar(
        "SELECT kit_fields FROM videos WHERE id = $1",
    )
    .bind(video_id)
    .fetch_optional(conn)
    .await?);
    Ok(row
        .flatten()
        .map(|sqlx::types::Json(parts)| parts)
        .unwrap_or_default())
}

/// `queued | in_progress → error` in `tx`, with the `video.failed` event; the branded render,
/// unless already final, fails with the same error (that is not an event of its own).
pub async fn fail_video_in(tx: &mut Tx, video_id: Uuid, error: &JobError) -> Result<bool, DbError> {
    let now = now_ms();
    let changed = on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE videos SET status = 'error', error_code = $1, error_message = $2, error_field = $3, updated_at = $4
         WHERE id = $5 AND status IN ('queued', 'in_progress')",
    )
    .bind(&error.code)
    .bind(&error.message)
    .bind(error.field.as_deref())
    .bind(now)
    .bind(video_id)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if changed {
        tx.touch(video_id);
        on_tx!(&mut *tx, conn => sqlx::query(FAIL_BRANDING)
            .bind(&error.code)
            .bind(&error.message)
            .bind(error.field.as_deref())
            .bind(now)
            .bind(video_id)
            .execute(conn)
            .await
            .map(drop)?);
        crate::repo::webhooks::record_event(tx, video_id, Event::VideoFailed).await?;
    }
    Ok(changed)
}

/// Branding `queued | in_progress → error` in `tx`, with the `branding.failed` event.
pub async fn fail_branding_in(
    tx: &mut Tx,
    video_id: Uuid,
    error: &JobError,
) -> Result<bool, DbError> {
    let changed = on_tx!(&mut *tx, conn => sqlx::query(FAIL_BRANDING)
        .bind(&error.code)
        .bind(&error.message)
        .bind(error.field.as_deref())
        .bind(now_ms())
        .bind(video_id)
        .execute(conn)
        .await?
        .rows_affected())
        > 0;
    if changed {
        tx.touch(video_id);
        crate::repo::webhooks::record_event(tx, video_id, Event::BrandingFailed).await?;
    }
    Ok(changed)
}

const FAIL_BRANDING: &str = "UPDATE brandings SET status = 'error', error_code = $1, error_message = $2, error_field = $3, updated_at = $4
     WHERE video_id = $5 AND status IN ('queued', 'in_progress')";

/// Branding `queued → in_progress`.
pub async fn start_branding(db: &Db, video_id: Uuid) -> Result<bool, DbError> {
    Ok(update!(
        db,
        video_id,
        sqlx::query("UPDATE brandings SET status = 'in_progress', updated_at = $1 WHERE video_id = $2 AND status = 'queued'")
            .bind(now_ms())
            .bind(video_id)
    ))
}

/// Raises the progress of an `in_progress` branded render.
pub async fn set_branding_progress(db: &Db, video_id: Uuid, progress: u8) -> Result<bool, DbError> {
    Ok(update!(
        db,
        video_id,
        sqlx::query(
            "UPDATE brandings SET progress = $1, updated_at = $2
             WHERE video_id = $3 AND status = 'in_progress' AND progress < $1",
        )
        .bind(i32::from(progress.min(100)))
        .bind(now_ms())
        .bind(video_id)
    ))
}

/// Branding `in_progress → complete` in `tx`, with the `branding.completed` event.
/// `speed_ramp`: whether the ramp was applied; it can only lower the record's (a ramp asked
/// for over clips that stop at their ends is not applied, docs/API-DESIGN.md#branding).
pub async fn complete_branding_in(
    tx: &mut Tx,
    video_id: Uuid,
    video_key: &str,
    speed_ramp: bool,
) -> Result<bool, DbError> {
    crate::storage::check_key(video_key)?;
    let changed = on_tx!(&mut *tx, conn => sqlx::query(
        "UPDATE brandings SET status = 'complete', progress = 100, video_key = $1, updated_at = $2,
         speed_ramp = (speed_ramp AND $4)
         WHERE video_id = $3 AND status = 'in_progress'",
    )
    .bind(video_key)
    .bind(now_ms())
    .bind(video_id)
    .bind(speed_ramp)
    .execute(conn)
    .await?
    .rows_affected())
        > 0;
    if changed {
        tx.touch(video_id);
        crate::repo::webhooks::record_event(tx, video_id, Event::BrandingCompleted).await?;
    }
    Ok(changed)
}
