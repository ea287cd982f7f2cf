//! Prepare: fetches and checks every input of a `create_video` video once and stores the
//! checked copies; records them and queues one clip job per clip still to render.

use stillreel_core::JobError;
use stillreel_render::{PrepareJob, Prepared};

use super::generate::needs_model;
use super::{fail_video, input_prefix};
use crate::db::{DbError, Tx};
use crate::queue::{Job, JobKind};
use crate::repo::graph;
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{DbObserver, Target};

#[derive(Debug, Clone, Copy)]
pub struct Prepare;

impl Kind for Prepare {
    const KIND: JobKind = JobKind::PREPARE;
    /// The single render job of before the job graph: a queued one starts the graph.
    const ALIASES: &'static [&'static str] = &["render"];
    const PROGRESS_SHARE: u8 = graph::PREPARE_SHARE;

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
        let observer = DbObserver::spawn(
            ctx.db().clone(),
            Target::Video {
                video: input.video_id,
                from: 0,
                span: Self::PROGRESS_SHARE,
            },
        );
        let result = ctx.renderer.prepare(&work, ctx.work_dir, &observer).await;
        observer.finish().await;
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
                let mut next = graph::record_prepare_in(tx, job.video_id, &prepared).await?;
                // A clip that needs a model call waits for it: its generate job queues it.
                for job in &mut next {
                    if job.kind == JobKind::CLIP
                        && job.clip_index.is_some_and(|i| generated.contains(&i))
                    {
                        job.kind = JobKind::GENERATE;
                    }
                }
                next
            }
            // Complete already (an earlier attempt died before closing its job): make sure
            // the branded render was queued.
            None => graph::branding_follow_up_in(tx, job.video_id).await?,
        }))
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }
}
