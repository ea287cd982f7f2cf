//! Where the steps of a video store their files: every key is made here
//! (docs/SECURITY.md#stored-files). The checked inputs (photos, music) go under
//! `PRIVATE_PREFIX`, which `/files/` never serves and media URLs cannot name. Every file that
//! is served carries the job's lease token (128 random bits), so no URL can be guessed from
//! another: clips and the stitched video have it in their file name (`clip-000-<token>.mp4`,
//! `video-<token>.mp4`), a combined video and the branded copy in their folder
//! (`<token>/video.mp4`, `<token>/branded.mp4`).

use uuid::Uuid;

use crate::queue;

/// The prefix of a video's checked inputs.
pub(super) fn input_prefix(video_id: Uuid) -> String {
    format!("{}/videos/{video_id}", crate::storage::PRIVATE_PREFIX)
}

/// The prefix of a video's clips and stitched video (whose names carry the token).
pub(super) fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// The folder holding every file a video's jobs serve (clips, the stitched or combined video,
/// the branded copy and their stills): where the orphan sweep looks for an abandoned
/// attempt's files (`worker/orphans.rs`).
pub fn served_folder(video_id: Uuid) -> String {
    key_prefix(video_id)
}

/// The prefix of a combined video or a branded copy: the job's token is the folder.
pub(super) fn token_prefix(video_id: Uuid, job: &queue::Job) -> String {
    format!("videos/{video_id}/{}", job.token)
}
