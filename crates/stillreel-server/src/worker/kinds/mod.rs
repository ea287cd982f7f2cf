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
mod prepare;
mod stitch;
mod webhook;

pub use branding::Branding;
pub use clip::{Clip, RenderedClip};
pub use combine::Combine;
pub use prepare::Prepare;
pub use stitch::Stitch;
pub use webhook::{BrandingWebhook, VideoWebhook};

use super::kind::Kinds;

/// Every kind this service runs: one line per kind.
pub fn builtin() -> Kinds {
    Kinds::new()
        .with(Prepare)
        .with(Clip)
        .with(Stitch)
        .with(Combine)
        .with(Branding)
        .with(VideoWebhook)
        .with(BrandingWebhook)
}

/// Where a video's files go in storage.
fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// What failing a step of a video for good does: the video fails with the step's error, and
/// its queued siblings (the other clips, the stitch) are cancelled.
async fn fail_video(tx: &mut Tx, video_id: Uuid, error: &JobError) -> Result<(), DbError> {
    records::fail_video_in(tx, video_id, error).await?;
    queue::cancel_siblings_in(tx, video_id).await?;
    Ok(())
}
