//! Stitch: joins a video's recorded clips, in index order, with its music or silence;
//! completes the video and queues its branded render when it asked for one.

use stillreel_core::JobError;
use stillreel_render::store::storage::still_key;
use stillreel_render::{AheadSound, StitchJob, StoredVideo};
use uuid::Uuid;

use super::branding::{self, brand_job};
use super::keys::key_prefix;
use super::video_failure::fail_video;
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Makes, NewJob};
use crate::repo::graph;
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{Target, observed};

#[derive(Debug, Clone, Copy)]
pub struct Stitch;

/// Join a video's clips, in index order, and mix its music or silence.
pub const STITCH: JobKind = JobKind::new("stitch", ClaimRank::Finishing).making(Makes::Video);

/// The stitch of `video_id` (queued by the last clip recorded, or by a prepare that found
/// every clip rendered).
pub(super) fn job(video_id: Uuid) -> NewJob {
    NewJob::new(video_id, STITCH)
}

impl Kind for Stitch {
    const KIND: JobKind = STITCH;

    /// `None`: the video is already complete (or gone).
    type Output = Option<StoredVideo>;

    async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<Option<StoredVideo>, Failure> {
        let Some(input) = records::render_input(ctx.db(), job.video_id).await? else {
            return Ok(None);
        };
        if input.video_key.is_some() {
            return Ok(None);
        }
        let (keys, music) = graph::stitch_input(ctx.db(), input.video_id).await?;
        let clip_keys = keys
            .into_iter()
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| Failure::Permanent(render_failed("a clip of the video is missing")))?;
        // The branded render's sound, made ahead beside the video's own (best effort: a
        // failure to work it out only leaves it to the branded render). The job's keys are
        // not needed for its sound.
        let keys = (String::new(), String::new());
        let branded_sound = match brand_job(ctx, &input, keys, music.clone()).await {
            Ok(job) => job.map(|j| AheadSound {
                sound: j.sound(),
                key: crate::storage::branded_sound_key(input.video_id),
            }),
            Err(_) => None,
        };
        let work = StitchJob {
            branded_sound,
            key_prefix: key_prefix(input.video_id),
            token: Some(job.token.clone()),
            clip_keys,
            music,
            transition: match &input.source {
                RenderSource::Create { request, .. } => request.transition,
                RenderSource::Combine { request, .. } => request.transition,
            },
        };
        // All of its share but the last point: 100 comes with completion.
        let target = Target::Video {
            video: input.video_id,
            from: graph::STITCH_FROM,
            span: graph::STITCH_SHARE - 1,
        };
        let result = observed(ctx.db(), target, |observer| async move {
            ctx.renderer
                .stitch_clips(&work, ctx.work_dir, &observer)
                .await
        })
        .await;
        result.map(Some).map_err(Failure::Job)
    }

    async fn record(
        &self,
        tx: &mut Tx,
        _: &Services,
        job: &Job,
        output: Option<StoredVideo>,
    ) -> Result<Settle, DbError> {
        let Some(video) = output else {
            return Ok(Settle::then(
                branding::follow_up_in(tx, job.video_id).await?,
            ));
        };
        let next = if graph::record_video_in(tx, job.video_id, &video.key).await? {
            branding::follow_up_in(tx, job.video_id).await?
        } else {
            Vec::new()
        };
        // The checked inputs served their purpose: nothing reads them once the video is
        // stitched (branding starts from the video, and takes the music it lays under the
        // outro, which it removes itself).
        let remove = graph::inputs_done_at_stitch_in(tx, job.video_id).await?;
        Ok(Settle {
            next,
            remove,
            ..Settle::done()
        })
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }

    /// The video and its poster (stored beside it). Not the branded sound made ahead: its key
    /// is the video's, not the attempt's, and the next attempt writes the same file.
    fn uploads(&self, output: &Option<StoredVideo>) -> Vec<String> {
        output
            .iter()
            .flat_map(|v| [v.key.clone(), still_key(&v.key)])
            .collect()
    }
}
