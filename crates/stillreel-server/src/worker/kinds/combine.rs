//! Combine: joins the existing clips of a `combine_video_clips` video (one job); completes
//! the video and queues its branded render when it asked for one.

use stillreel_core::JobError;
use stillreel_render::{CombineJob, InputFault, StoredVideo};

use super::branding;
use super::keys::token_prefix;
use super::video_failure::fail_video;
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Makes};
use crate::repo::graph;
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{Target, observed};

/// The kind that starts a `combine_video_clips` video: the route queues it with the video's
/// rows.
pub const COMBINE: JobKind = JobKind::new("combine", ClaimRank::Starting).making(Makes::Video);

#[derive(Debug, Clone, Copy)]
pub struct Combine;

impl Kind for Combine {
    const KIND: JobKind = COMBINE;

    /// `None`: the video is already complete (or gone).
    type Output = Option<StoredVideo>;

    async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<Option<StoredVideo>, Failure> {
        let Some(input) = records::render_input(ctx.db(), job.video_id).await? else {
            return Ok(None);
        };
        if input.video_key.is_some() {
            return Ok(None);
        }
        let RenderSource::Combine { request, clip_keys } = &input.source else {
            return Err(Failure::Permanent(render_failed(
                "a created video is not combined",
            )));
        };
        // A source video deleted while this waited took its clip's file: no retry can help.
        // The same verdict (and code) as a clip file found gone or broken by ffmpeg.
        let gone =
            crate::repo::videos::deleted_sources(ctx.db(), &request.video_clip_uuids).await?;
        if let Some(&i) = gone.first() {
            return Err(Failure::Permanent(JobError {
                code: InputFault::Clip.code().to_owned(),
                message: "this clip's video was deleted (POST /delete_video) before the combine \
                          ran, and its file with it"
                    .to_owned(),
                field: Some(format!("video_clip_uuids[{i}]")),
            }));
        }
        records::start_video(ctx.db(), input.video_id).await?;
        let work = CombineJob {
            key_prefix: token_prefix(input.video_id, job),
            clip_keys: clip_keys.clone(),
            orientation: input.orientation,
            resolution: input.resolution,
            audio_url: request.audio_url.clone(),
            transition: request.transition,
        };
        // One job: the whole bar.
        let target = Target::Video {
            video: input.video_id,
            from: 0,
            span: 100,
        };
        let result = observed(ctx.db(), target, |observer| async move {
            ctx.renderer.combine(&work, ctx.work_dir, &observer).await
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
        let completed = match output {
            Some(video) => graph::record_video_in(tx, job.video_id, &video.key).await?,
            // Complete already (an earlier attempt died before closing its job): make sure
            // the branded render was queued.
            None => true,
        };
        Ok(Settle::then(if completed {
            branding::follow_up_in(tx, job.video_id).await?
        } else {
            Vec::new()
        }))
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }
}
