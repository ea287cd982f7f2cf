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
///
/// Each attempt it takes back is written to `abandoned_attempts` in the same transaction, for
/// [`crate::repo::orphans`]: its worker may have stored files it never recorded.
pub async fn expired_leases(db: &Db) -> Result<u64, DbError> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    crate::repo::orphans::note_expired_in(&mut tx, now).await?;
    let failed = queue::fail_expired_in(&mut tx, now).await?;
    for video in end_stuck_records(&mut tx, now).await? {
        tx.touch(video);
    }
    let requeued = queue::requeue_expired_in(&mut tx, now).await?;
    tx.commit().await?;
    Ok(failed + requeued)
}

/// Sets to `error` every video one of whose jobs that make it (`jobs.makes = 'video'`, see
/// `queue::Makes`) ended `failed`, cancels that video's queued clips and stitch,
/// and sets to `error` every branding whose own job failed or whose main video is in `error`.
/// Idempotent: it also repairs records left behind by a process that died between failing a
/// job and failing its video (the worker does those two steps apart).
///
/// Every record these end has a failed job (a video or branding only ends in `error` with the
/// job that failed it, in one transaction, or here), so each statement starts from the failed
/// jobs (the `state` index) rather than from every queued video, job or branding: the sweep
/// runs every 30 s on the single SQLite writer, and walking a backlog of 15,000 queued videos
/// read 3,500 pages (14 MB into the writer's page cache) each time, for nothing.
const END_STUCK_RECORDS: [&str; 3] = [
    "UPDATE videos SET status = 'error', error_code = 'render_failed',
         error_message = (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
                          FROM jobs j WHERE j.video_id = videos.id AND j.state = 'failed'
                            AND j.makes = 'video'),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND id IN (SELECT j.video_id FROM jobs j WHERE j.state = 'failed'
                    AND j.makes = 'video')
     RETURNING id",
    "UPDATE jobs SET state = 'cancelled', last_error = 'a sibling job failed', updated_at = $1
     WHERE id IN (SELECT j.id FROM jobs f
                  JOIN videos v ON v.id = f.video_id
                  JOIN jobs j ON j.video_id = f.video_id
                  WHERE f.state = 'failed' AND v.status = 'error' AND j.state = 'queued'
                    AND j.makes = 'video')
     RETURNING video_id",
    "UPDATE brandings SET status = 'error',
         error_code = COALESCE((SELECT v.error_code FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'), 'render_failed'),
         error_message = COALESCE(
             (SELECT v.error_message FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error'),
             (SELECT 'rendering was interrupted ' || MAX(j.attempts) || ' times'
              FROM jobs j WHERE j.video_id = brandings.video_id AND j.makes = 'branding' AND j.state = 'failed')),
         error_field = NULL, updated_at = $1
     WHERE status IN ('queued', 'in_progress')
       AND video_id IN (SELECT f.video_id FROM jobs f WHERE f.state = 'failed')
       AND (EXISTS (SELECT 1 FROM videos v WHERE v.id = brandings.video_id AND v.status = 'error')
            OR (EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.makes = 'branding' AND j.state = 'failed')
                AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = brandings.video_id AND j.makes = 'branding'
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
