//! What failing a step of a video for good does, the same for every kind that makes the
//! video (prepare, generate, clip, stitch, combine).

use stillreel_core::JobError;
use uuid::Uuid;

use crate::db::{DbError, Tx};
use crate::queue;
use crate::repo::render as records;

/// The video fails with the step's error, and its queued siblings (the other clips, the
/// stitch) are cancelled. Answers the video's checked inputs (and a branded sound made
/// ahead), removed once the failure is committed.
pub(super) async fn fail_video(
    tx: &mut Tx,
    video_id: Uuid,
    error: &JobError,
) -> Result<Vec<String>, DbError> {
    records::fail_video_in(tx, video_id, error).await?;
    queue::cancel_siblings_in(tx, video_id).await?;
    let mut keys = crate::repo::graph::prepared_keys_in(tx, video_id).await?;
    // A stitch may have made the branded sound ahead before the video failed.
    keys.push(crate::storage::branded_sound_key(video_id));
    Ok(keys)
}
