//! Generate: a clip's model call (a staged or peopled still, a fan clip, the photo's depth
//! map), run before its clip job by the model lane's own loops (`queue::Lane::Model`,
//! `STILLREEL_PROVIDER_CONCURRENCY`), so a model that takes minutes holds no ffmpeg slot.
//! The answer is checked and stored under a key made of the role, the model, the picture and
//! the parameters (`stillreel_render::store::generated`); the clip job, queued when this one
//! completes, finds it there, and a retry or a second video of the same photo calls nothing.

use std::time::Duration;

use stillreel_core::{Engine, JobError, Vfx};
use stillreel_providers::Role;
use stillreel_render::Renderer;
use uuid::Uuid;

use super::clip::{self, ClipWork, clip_work, needs_depth};
use super::video_failure::fail_video;
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Lane, Makes, NewJob};
use crate::state::Services;
use crate::worker::failure::Failure;
use crate::worker::kind::{JobCtx, Kind, Settle};

#[derive(Debug, Clone, Copy)]
pub struct Generate;

/// Make a clip's generated input (a staged still, a fan clip, a depth map) with the configured
/// model provider, before its clip renders (`Job::clip_index`). Claimed only by the model lane.
pub const GENERATE: JobKind = JobKind::new("generate", ClaimRank::Middle)
    .making(Makes::Video)
    .in_lane(Lane::Model);

/// The model-call job of clip `index` of `video_id` (queued by prepare).
pub(super) fn job(video_id: Uuid, index: usize) -> NewJob {
    NewJob::new(video_id, GENERATE).for_clip(index)
}

/// Whether a clip needs a model call first: its vfx's role, the clip role for the generative
/// engine, or the depth role for a v25 photo clip, is configured.
pub(super) fn needs_model(renderer: &Renderer, engine: Engine, vfx: Option<&Vfx>) -> bool {
    let providers = renderer.providers();
    if engine.is_generative() {
        return providers.get(Role::Clip).is_some();
    }
    let for_vfx = vfx
        .and_then(|v| Role::for_vfx(v.kind()))
        .is_some_and(|role| providers.get(role).is_some());
    for_vfx || (needs_depth(engine, vfx) && providers.get(Role::Depth).is_some())
}

impl Kind for Generate {
    const KIND: JobKind = GENERATE;

    /// `true`: the clip still needs rendering (queue its clip job).
    type Output = bool;

    /// A role's own time limit bounds each call (at most an hour); this only stops a run that
    /// outlives every limit.
    fn time_limit(&self, default: Duration) -> Duration {
        default.max(Duration::from_secs(3660))
    }

    async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<bool, Failure> {
        // The depth map is made inside `clip_work` (stored, and found again by the clip job).
        let Some(ClipWork { work, .. }) = clip_work(ctx, job, true).await? else {
            return Ok(false);
        };
        ctx.renderer
            .generate_input(&work, ctx.work_dir)
            .await
            .map_err(Failure::Job)?;
        Ok(true)
    }

    async fn record(
        &self,
        _: &mut Tx,
        _: &Services,
        job: &Job,
        needed: bool,
    ) -> Result<Settle, DbError> {
        Ok(match (needed, job.clip_index) {
            (true, Some(index)) => Settle::then([clip::job(job.video_id, index)]),
            _ => Settle::done(),
        })
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }
}
