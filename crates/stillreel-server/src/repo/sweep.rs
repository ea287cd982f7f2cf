//! The lease sweep: what happens to jobs whose worker stopped renewing its lease (killed,
//! paused, cut off), and to the records those jobs were making.

use uuid::Uuid;

use crate::db::{Db, DbError, Tx, now_ms, on_tx};
use crate::queue;
use crate::repo::webhooks::record_event;
use crate::webhook::Event;

/// Puts running jobs whose lease ran out back in the queue (or marks them `failed` when they
/// used all their attempts). Returns how many jobs it touched. Run it periodically.
///
/// A job failed here also fails its video or branding in the same transaction (see
/// [`END_STUCK_RECORDS`]): a worker killed during each attempt must not leave a video
/// `in_progress` forever.
pub async fn expired_leases(db: &Db) -> Result<u64, DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let failed = queue::fail_expired_in(&mut tx, now).await?;
    let ended = end_stuck_records(&mut tx, now).await?;
    tx.commit().await?;
    for video in ended {
        db.invalidate_video(video);
    }
    let requeued = queue::requeue_expired(db, now).await?;
    Ok(failed + requeued)
}

/// Sets to `error` every video one of whose jobs that make it (prepare, clip, stitch,
/// combine, a model call, or a legacy render) ended `failed`, cancels that video's queued clips and stitch,
/// and sets to `error` every branding whose own job failed or whose main video is in `error`.
/// Idempotent: it also repairs records left behind by a process that died between failing a
/// job and failing its video (the worker does those two steps apart).
const END_STUCK_RECORDS: [&str; 3] = [
    "UPDATE videos SET status = 'error', error_code = 'render_failed',
         error_message = (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
                          FROM jobs j WHERE j.video_id = videos.id AND j.state = 'failed'
                            AND j.kind IN ('render', 'prepare', 'generate', 'clip', 'stitch', 'combine')),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = videos.id AND j.state = 'failed'
                     AND j.kind IN ('render', 'prepare', 'generate', 'clip', 'stitch', 'combine'))
     RETURNING id",
    "UPDATE jobs SET state = 'cancelled', last_error = 'a sibling job failed', updated_at = $1
     WHERE state = 'queued' AND kind IN ('render', 'prepare', 'generate', 'clip', 'stitch', 'combine')
       AND EXISTS (SELECT 1 FROM videos v WHERE v.id = jobs.video_id AND v.status = 'error')
     RETURNING video_id",
    "UPDATE brandings SET status = 'error',
         error_code = COALESCE((SELECT v.error_code FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'), 'render_failed'),
         error_message = COALESCE(
             (SELECT v.error_message FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'),
             (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
              FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding' AND j.state = 'failed')),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND (EXISTS (SELECT 1 FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error')
            OR (EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding' AND j.state = 'failed')
                AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.kind = 'branding'
                                AND j.state IN ('queued', 'running', 'done'))))
     RETURNING video_id",
];

/// Runs [`END_STUCK_RECORDS`] and writes the `video.failed` / `branding.failed` webhook
/// events of the records it ended in the same transaction, as every other path that fails a
/// record does (a client waiting for its callback must hear of a render lost to crashes too).
async fn end_stuck_records(tx: &mut Tx, now: i64) -> Result<Vec<Uuid>, DbError> {
    let [videos_sql, cancel_sql, brandings_sql] = END_STUCK_RECORDS;
    let videos: Vec<Uuid> = on_tx!(&mut *tx, conn => sqlx::query_scalar(videos_sql)
        .bind(now)
        .fetch_all(conn)
        .await?);
    let cancelled: Vec<Uuid> = on_tx!(&mut *tx, conn => sqlx::query_scalar(cancel_sql)
        .bind(now)
        .fetch_all(conn)
        .await?);
    let brandings: Vec<Uuid> = on_tx!(&mut *tx, conn => sqlx::query_scalar(brandings_sql)
        .bind(now)
        .fetch_all(conn)
        .await?);
    for &video in &videos {
        record_event(tx, video, Event::VideoFailed).await?;
    }
    // A branding ended with its failed video is told by the video's event (as when a worker
    // fails the video itself); one that failed on its own gets its own event.
    for &video in brandings.iter().filter(|v| !videos.contains(v)) {
        record_event(tx, video, Event::BrandingFailed).await?;
    }
    Ok(videos
        .into_iter()
        .chain(cancelled)
        .chain(brandings)
        .collect())
}
