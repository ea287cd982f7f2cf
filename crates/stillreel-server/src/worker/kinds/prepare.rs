//! Prepare: fetches and checks every input of a `create_video` video once and stores the
//! checked copies; records them and queues one clip job per clip still to render (a generate
//! job first for a clip that needs a model call), or the stitch when none is left.

use stillreel_core::JobError;
use stillreel_render::{PrepareJob, Prepared};
use uuid::Uuid;

use super::generate::needs_model;
use super::keys::input_prefix;
use super::video_failure::fail_video;
use super::{branding, clip, generate, stitch};
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Makes, NewJob};
use crate::repo::graph::{self, PrepareRecorded};
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{Target, observed};

/// The kind that starts a `create_video` video: the route queues it with the video's rows.
pub const PREPARE: JobKind = JobKind::new("prepare", ClaimRank::Starting).making(Makes::Video);

#[derive(Debug, Clone, Copy)]
pub struct Prepare;

impl Kind for Prepare {
    const KIND: JobKind = PREPARE;
    /// The single render job of before the job graph: a queued one starts the graph.
    const ALIASES: &'static [&'static str] = &["render"];

    /// `None`: the video is already complete (or gone). With the clips whose model call
    /// (`generate.rs`) runs before them.
    type Output = Option<(Prepared, Vec<usize>)>;

    async fn run(
        &self,
        ctx: &JobCtx<'_>,
        job: &Job,
    ) -> Result<Option<(Prepared, Vec<usize>)>, Failure> {
        let Some(input) = records::render_input(ctx.db(), job.video_id).await? else {
            return Ok(None);
        };
        if input.video_key.is_some() {
            return Ok(None);
        }
        let RenderSource::Create { request, clips } = &input.source else {
            return Err(Failure::Permanent(render_failed(
                "a combined video has no prepare step",
            )));
        };
        records::start_video(ctx.db(), input.video_id).await?;
        let work = PrepareJob {
            key_prefix: input_prefix(input.video_id),
            images: clips
                .iter()
                .filter(|c| c.clip.clip_key.is_none())
                .map(|c| (c.position, c.clip.image_url.clone()))
                .collect(),
            audio_url: request.audio_url.clone(),
        };
        let target = Target::Video {
            video: input.video_id,
            from: 0,
            span: graph::PREPARE_SHARE,
        };
        let result = observed(ctx.db(), target, |observer| async move {
            ctx.renderer.prepare(&work, ctx.work_dir, &observer).await
        })
        .await;
        let generated = clips
            .iter()
            .filter(|c| needs_model(ctx.renderer, input.engine, c.clip.vfx.as_ref()))
            .map(|c| c.position)
            .collect();
        result.map(|p| Some((p, generated))).map_err(Failure::Job)
    }

    async fn record(
        &self,
        tx: &mut Tx,
        _: &Services,
        job: &Job,
        output: Option<(Prepared, Vec<usize>)>,
    ) -> Result<Settle, DbError> {
        Ok(Settle::then(match output {
            Some((prepared, generated)) => {
                let recorded = graph::record_prepare_in(tx, job.video_id, &prepared).await?;
                follow_ups(job.video_id, recorded, &generated)
            }
            // Complete already (an earlier attempt died before closing its job): make sure
            // the branded render was queued.
            None => branding::follow_up_in(tx, job.video_id).await?,
        }))
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }
}

/// What follows a recorded prepare: a job per clip left to render (its generate job when the
/// clip needs a model call, which queues the clip after it), or the stitch when an earlier
/// attempt rendered them all; nothing once the video stopped.
fn follow_ups(video_id: Uuid, recorded: PrepareRecorded, generated: &[usize]) -> Vec<NewJob> {
    match recorded {
        PrepareRecorded::Stopped => Vec::new(),
        PrepareRecorded::Running { clips_left } if clips_left.is_empty() => {
            vec![stitch::job(video_id)]
        }
        PrepareRecorded::Running { clips_left } => clips_left
            .into_iter()
            .map(|index| {
                if generated.contains(&index) {
                    generate::job(video_id, index)
                } else {
                    clip::job(video_id, index)
                }
            })
            .collect(),
    }
}
