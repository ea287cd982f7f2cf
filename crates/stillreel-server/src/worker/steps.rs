//! The work of a job, dispatched on its kind: the steps of a `create_video` video's graph
//! (prepare, clip, stitch), a combine, a branded render, and (in `webhook.rs`) a webhook
//! delivery. Each step reads its inputs from the database and storage, runs the renderer
//! with progress reported to the database, and leaves its output in storage: what it did is
//! recorded afterwards, under the lease, by `settle.rs`.

use stillreel_render::{
    BrandJob, BrandSlot, ClipJob, CombineJob, PrepareJob, StitchJob, vfx_stage,
};
use uuid::Uuid;

use super::Ctx;
use super::job::{Done, Failure, Outcome, render_failed};
use super::observer::{self, DbObserver};
use super::webhook;
use crate::queue::{Job, JobKind};
use crate::repo::graph;
use crate::repo::render::{self as repo, RenderInput, RenderSource};

/// Does the job's work, dispatched on its kind. Never writes the final status:
/// [`settle`](super::settle::settle) does, under the lease.
pub(super) async fn process(ctx: &Ctx, job: &Job, work_dir: &std::path::Path) -> Outcome {
    if matches!(job.kind, JobKind::VideoWebhook | JobKind::BrandingWebhook) {
        let public_url = &ctx.state.config.public_url;
        return match webhook::attempt(&ctx.db, &ctx.webhooks, public_url, job).await {
            Ok(result) => Outcome::Webhook(result),
            Err(err) => Outcome::Failed(Failure::Db(err)),
        };
    }
    let input = match repo::render_input(&ctx.db, job.video_id).await {
        Ok(Some(input)) => input,
        // The video is gone: nothing to do.
        Ok(None) => return Outcome::Done(Done::Nothing { branding: false }),
        Err(err) => return Outcome::Failed(Failure::Db(err)),
    };
    let result = match job.kind {
        // A `render` job queued before the job graph existed starts the graph.
        JobKind::Render | JobKind::Prepare => prepare(ctx, &input, work_dir).await,
        JobKind::Clip => clip(ctx, job, &input, work_dir).await,
        JobKind::Stitch => stitch(ctx, job, &input, work_dir).await,
        JobKind::Combine => combine(ctx, &input, work_dir).await,
        JobKind::Branding => branded(ctx, &input, work_dir).await,
        JobKind::VideoWebhook | JobKind::BrandingWebhook => Ok(Done::Nothing { branding: false }),
    };
    match result {
        Ok(done) => Outcome::Done(done),
        Err(failure) => Outcome::Failed(failure),
    }
}

fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// The prepare step: fetches and checks every input not rendered yet, once.
async fn prepare(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let RenderSource::Create { request, clips } = &input.source else {
        return Err(Failure::Permanent(render_failed(
            "a combined video has no prepare step",
        )));
    };
    repo::start_video(&ctx.db, input.video_id).await?;
    let job = PrepareJob {
        key_prefix: key_prefix(input.video_id),
        images: clips
            .iter()
            .filter(|c| c.clip.clip_key.is_none())
            .map(|c| (c.position, c.clip.image_url.clone()))
            .collect(),
        audio_url: request.audio_url.clone(),
    };
    let target = observer::Target::Video {
        video: input.video_id,
        from: 0,
        span: graph::PREPARE_SHARE,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx.renderer.prepare(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Prepared).map_err(Failure::Job)
}

/// The clip step: renders clip `job.clip_index` from its stored input.
async fn clip(
    ctx: &Ctx,
    job: &Job,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    let missing = |what: &str| Failure::Permanent(render_failed(what));
    let index = job
        .clip_index
        .ok_or_else(|| missing("a clip job without a clip"))?;
    let RenderSource::Create { clips, .. } = &input.source else {
        return Err(missing("a combined video has no clip jobs"));
    };
    let wanted = clips
        .iter()
        .find(|c| c.position == index)
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    let stored = graph::clip_input(&ctx.db, input.video_id, index)
        .await?
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    if stored.clip_key.is_some() {
        // Recorded by an attempt whose completion was lost: nothing left to do.
        return Ok(Done::Nothing { branding: false });
    }
    let prepared = stored
        .input
        .ok_or_else(|| missing("the clip's input was not prepared"))?;
    let clip_job = ClipJob {
        key_prefix: key_prefix(input.video_id),
        index,
        token: Some(job.token.clone()),
        input: prepared,
        camera_motion: wanted.clip.camera_motion,
        effect: wanted.clip.vfx.as_ref().map(vfx_stage),
        orientation: input.orientation,
        resolution: input.resolution,
        engine: input.engine,
        // Depth maps come with the depth provider role (not yet made by the server).
        depth: None,
    };
    let target = observer::Target::Clip {
        video: input.video_id,
        clip: stored.clip_id,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx
        .renderer
        .render_clip(&clip_job, work_dir, &observer)
        .await;
    drop(observer);
    let _ = writer.await;
    let clip = result.map_err(Failure::Job)?;
    Ok(Done::Clip {
        clip_id: stored.clip_id,
        clip,
    })
}

/// The stitch step: joins the recorded clips in the database's order.
async fn stitch(
    ctx: &Ctx,
    job: &Job,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let (keys, music) = graph::stitch_input(&ctx.db, input.video_id).await?;
    let clip_keys = keys
        .into_iter()
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| Failure::Permanent(render_failed("a clip of the video is missing")))?;
    let stitch_job = StitchJob {
        key_prefix: key_prefix(input.video_id),
        token: Some(job.token.clone()),
        clip_keys,
        music,
    };
    let target = observer::Target::Video {
        video: input.video_id,
        from: graph::STITCH_FROM,
        span: 4,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx
        .renderer
        .stitch_clips(&stitch_job, work_dir, &observer)
        .await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Stitched).map_err(Failure::Job)
}

/// Combines existing clips into the main video (one job).
async fn combine(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let RenderSource::Combine { request, clip_keys } = &input.source else {
        return Err(Failure::Permanent(render_failed(
            "a created video is not combined",
        )));
    };
    repo::start_video(&ctx.db, input.video_id).await?;
    let target = observer::Target::Video {
        video: input.video_id,
        from: 0,
        span: 100,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let job = CombineJob {
        key_prefix: key_prefix(input.video_id),
        clip_keys: clip_keys.clone(),
        orientation: input.orientation,
        resolution: input.resolution,
        audio_url: request.audio_url.clone(),
    };
    let result = ctx.renderer.combine(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Combined).map_err(Failure::Job)
}

/// Renders the branded copy of a complete video.
async fn branded(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    let Some(branding) = &input.branding else {
        return Ok(Done::Nothing { branding: false });
    };
    let Some(main_key) = input.video_key.clone() else {
        return Err(Failure::Permanent(render_failed(
            "the main video is not complete, so it cannot be branded",
        )));
    };
    let resolve = |slot: &Option<stillreel_core::TemplateSlot>| match slot {
        None => Ok(None),
        Some(slot) => BrandSlot::resolve(slot, ctx.state.templates)
            .map(Some)
            .ok_or_else(|| {
                Failure::Permanent(render_failed(&format!(
                    "template {:?} is not in this server's catalog",
                    slot.template
                )))
            }),
    };
    let intro = resolve(&branding.templates.intro)?;
    let outro = resolve(&branding.templates.outro)?;
    let clip_count = match &input.source {
        RenderSource::Create { clips, .. } => clips.len(),
        RenderSource::Combine { clip_keys, .. } => clip_keys.len(),
    };
    repo::start_branding(&ctx.db, input.video_id).await?;
    let job = BrandJob {
        key_prefix: key_prefix(input.video_id),
        main_key,
        clip_frames: BrandJob::standard_clips(clip_count),
        orientation: input.orientation,
        resolution: input.resolution,
        intro,
        outro,
        speed_ramp: branding.speed_ramp,
    };
    let (observer, writer) =
        DbObserver::spawn(ctx.db.clone(), observer::Target::Branding(input.video_id));
    let result = ctx.renderer.render_branded(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(|b| Done::Branded(b.video)).map_err(Failure::Job)
}
