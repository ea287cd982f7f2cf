//! The service's kinds of job, one file each. To add a kind: a file here implementing
//! [`Kind`](super::Kind), and one line in [`builtin`].

use stillreel_core::JobError;
use uuid::Uuid;

use crate::db::{DbError, Tx};
use crate::queue;
use crate::repo::render as records;

mod branding;
mod clip;
mod combine;
mod generate;
mod prepare;
mod stitch;
mod webhook;

pub use branding::Branding;
pub use clip::{Clip, RenderedClip};
pub use combine::Combine;
pub use generate::Generate;
pub use prepare::Prepare;
pub use stitch::Stitch;
pub use webhook::{BrandingWebhook, VideoWebhook};

use super::kind::Kinds;

/// Every kind this service runs: one line per kind.
pub fn builtin() -> Kinds {
    Kinds::new()
        .with(Prepare)
        .with(Generate)
        .with(Clip)
        .with(Stitch)
        .with(Combine)
        .with(Branding)
        .with(VideoWebhook)
        .with(BrandingWebhook)
}

// Where the steps of a video store their files: every key is made here
// (docs/SECURITY.md#stored-files). The checked inputs (photos, music) go under
// `PRIVATE_PREFIX`, which `/files/` never serves and media URLs cannot name. Every file that is
// served carries the job's lease token (128 random bits), so no URL can be guessed from
// another: clips and the stitched video have it in their file name (`clip-000-<token>.mp4`,
// `video-<token>.mp4`), a combined video and the branded copy in their folder
// (`<token>/video.mp4`, `<token>/branded.mp4`).

/// The prefix of a video's checked inputs.
/// How the clips of a `create_video` video move: through their ends when the video is to be
/// branded with the speed ramp (so the ramp shows, docs/EFFECTS.md "Speed ramp"), else the
/// engine's own eased curve.
fn clip_pace(input: &records::RenderInput) -> stillreel_camera::geometry::clip_plan::Pace {
    if input.branding.as_ref().is_some_and(|b| b.speed_ramp) {
        stillreel_camera::geometry::clip_plan::Pace::Through
    } else {
        stillreel_camera::geometry::clip_plan::Pace::Engine
    }
}

fn input_prefix(video_id: Uuid) -> String {
    format!("{}/videos/{video_id}", crate::storage::PRIVATE_PREFIX)
}

/// The prefix of a video's clips and stitched video (whose names carry the token).
fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// The folder holding every file a video's jobs serve (clips, the stitched or combined video,
/// the branded copy and their stills): where the orphan sweep looks for an abandoned
/// attempt's files (`worker/orphans.rs`).
pub(super) fn served_folder(video_id: Uuid) -> String {
    key_prefix(video_id)
}

/// The prefix of a combined video or a branded copy: the job's token is the folder.
fn token_prefix(video_id: Uuid, job: &queue::Job) -> String {
    format!("videos/{video_id}/{}", job.token)
}

/// What failing a step of a video for good does: the video fails with the step's error, and
/// its queued siblings (the other clips, the stitch) are cancelled. Answers the video's
/// checked inputs (and a branded sound made ahead), removed once the failure is committed.
async fn fail_video(tx: &mut Tx, video_id: Uuid, error: &JobError) -> Result<Vec<String>, DbError> {
    records::fail_video_in(tx, video_id, error).await?;
    queue::cancel_siblings_in(tx, video_id).await?;
    let mut keys = crate::repo::graph::prepared_keys_in(tx, video_id).await?;
    // A stitch may have made the branded sound ahead before the video failed.
    keys.push(crate::storage::branded_sound_key(video_id));
    Ok(keys)
}
