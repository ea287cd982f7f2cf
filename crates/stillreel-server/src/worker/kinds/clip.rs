//! Clip: renders one clip of a `create_video` video from its prepared input; records it, and
//! queues the stitch when it was the last clip.

use stillreel_core::{Engine, GeneratedContent, JobError, Transition, Vfx};
use stillreel_providers::Role;
use stillreel_render::store::storage::still_key;
use stillreel_render::ffmpeg::command::clip_caption::{self, ClipCaption};
use stillreel_render::{ClipJob, ClipLook, ClipUse, MadeDepth, Renderer, StoredClip, vfx_stage};
use uuid::Uuid;

use super::keys::key_prefix;
use super::pace::clip_pace;
use super::stitch;
use super::video_failure::fail_video;
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Makes, NewJob};
use crate::repo::graph::{self, ClipRecorded};
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{Target, observed};

#[derive(Debug, Clone, Copy)]
pub struct Clip;

/// Render one clip (its index in `Job::clip_index`) from its stored input.
pub const CLIP: JobKind = JobKind::new("clip", ClaimRank::Middle).making(Makes::Video);

/// The job of clip `index` of `video_id` (queued by prepare, or by the clip's generate job).
pub(super) fn job(video_id: Uuid, index: usize) -> NewJob {
    NewJob::new(video_id, CLIP).for_clip(index)
}

/// A rendered clip and the id of the clip row it belongs to.
#[derive(Debug)]
pub struct RenderedClip {
    pub clip_id: Uuid,
    pub clip: StoredClip,
    /// What of it a model made (the clip record's `generated`).
    pub generated: Vec<GeneratedContent>,
    /// The renderer's notes (the clip record's `notes`).
    pub notes: Vec<String>,
}

impl Kind for Clip {
    const KIND: JobKind = CLIP;

    /// `None`: nothing to render (the video is gone, or an earlier attempt recorded the clip).
    type Output = Option<RenderedClip>;

    async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<Option<RenderedClip>, Failure> {
        let Some(ClipWork {
            video_id,
            clip_id,
            work,
        }) = clip_work(ctx, job, true).await?
        else {
            return Ok(None);
        };
        // Its own progress; the video's is raised from every clip's
        // (`graph::set_clip_progress`, over the clips' share of the bar).
        let target = Target::Clip {
            video: video_id,
            clip: clip_id,
        };
        let rendering = &work;
        let result = observed(ctx.db(), target, |observer| async move {
            ctx.renderer
                .render_clip(rendering, ctx.work_dir, &observer)
                .await
        })
        .await;
        let clip = result.map_err(Failure::Job)?;
        Ok(Some(RenderedClip {
            clip_id,
            generated: provenance(ctx.renderer, &work, &clip),
            notes: notes(&clip),
            clip,
        }))
    }

    async fn record(
        &self,
        tx: &mut Tx,
        _: &Services,
        job: &Job,
        output: Option<RenderedClip>,
    ) -> Result<Settle, DbError> {
        let Some(RenderedClip {
            clip_id,
            clip,
            generated,
            notes,
        }) = output
        else {
            return Ok(Settle::done());
        };
        let motion = clip.motion.map(|m| m.as_camera_motion());
        Ok(
            match graph::record_clip_in(tx, job.video_id, clip_id, &clip.key, motion, (&generated, &notes))
                .await?
            {
                // The last clip recorded queues the stitch.
                ClipRecorded::Recorded { last: true } => Settle::then([stitch::job(job.video_id)]),
                ClipRecorded::Recorded { last: false } => Settle::done(),
                // Its file is the one recorded first; this upload is an orphan.
                ClipRecorded::AlreadyRecorded => Settle {
                    remove: vec![clip.key],
                    ..Settle::done()
                },
            },
        )
    }

    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        fail_video(tx, job.video_id, error).await
    }

    /// The clip and its thumbnail (stored beside it, before it).
    fn uploads(&self, output: &Option<RenderedClip>) -> Vec<String> {
        output
            .iter()
            .flat_map(|c| [c.clip.key.clone(), still_key(&c.clip.key)])
            .collect()
    }
}

/// What a clip job (or the model-call job before it) works on.
pub(super) struct ClipWork {
    pub video_id: Uuid,
    pub clip_id: Uuid,
    pub work: ClipJob,
}

/// The clip `job` names, ready for the renderer; `None` when there is nothing to do (the
/// video is gone, or an earlier attempt recorded the clip). With `depth`, the depth role's
/// map of the photo is made (or found stored) for a v25 photo clip.
pub(super) async fn clip_work(
    ctx: &JobCtx<'_>,
    job: &Job,
    depth: bool,
) -> Result<Option<ClipWork>, Failure> {
    let missing = |what: &str| Failure::Permanent(render_failed(what));
    let Some(input) = records::render_input(ctx.db(), job.video_id).await? else {
        return Ok(None);
    };
    let index = job
        .clip_index
        .ok_or_else(|| missing("a clip job without a clip"))?;
    let RenderSource::Create { clips, request } = &input.source else {
        return Err(missing("a combined video has no clip jobs"));
    };
    let wanted = clips
        .iter()
        .find(|c| c.position == index)
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    let stored = graph::clip_input(ctx.db(), input.video_id, index)
        .await?
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    if stored.clip_key.is_some() {
        // Recorded by an attempt whose completion was lost: nothing left to do.
        return Ok(None);
    }
    let prepared = stored
        .input
        .ok_or_else(|| missing("the clip's input was not prepared"))?;
    let made = if depth && needs_depth(input.engine, wanted.clip.vfx.as_ref()) {
        ctx.renderer
            .generate_depth(&prepared, index, ctx.work_dir)
            .await
            .map_err(Failure::Job)?
    } else {
        MadeDepth::NoRole
    };
    let (depth, depth_note) = match made {
        MadeDepth::NoRole => (None, None),
        MadeDepth::Map(map) => (Some(map), None),
        MadeDepth::Refused(why) => (None, Some(why)),
    };
    Ok(Some(ClipWork {
        video_id: input.video_id,
        clip_id: stored.clip_id,
        work: ClipJob {
            key_prefix: key_prefix(input.video_id),
            index,
            token: Some(job.token.clone()),
            input: prepared,
            camera_motion: wanted.clip.camera_motion,
            effect: wanted.clip.vfx.as_ref().map(vfx_stage),
            orientation: input.orientation,
            resolution: input.resolution,
            engine: input.engine,
            depth,
            depth_note,
            pace: clip_pace(&input),
            usage: clip_usage(&input, request.transition),
            look: clip_look(&input, request, index, ctx.state.templates),
        },
    }))
}

/// The clip's `fit` and `caption` from the request, the caption's plate in the brand's colour
/// (the background of the video's intro template, else its outro's) and at the top of the
/// frame on the clip the intro's lower third is drawn over (the first, when there is an intro).
fn clip_look(
    input: &records::RenderInput,
    request: &stillreel_core::CreateVideoRequest,
    index: usize,
    templates: &[stillreel_core::Template],
) -> ClipLook {
    let Some(image) = request.image_inputs.get(index) else {
        return ClipLook::default();
    };
    let slots = input.branding.as_ref().map(|b| &b.templates);
    let intro = slots.and_then(|t| t.intro.as_ref());
    let brand = intro
        .into_iter()
        .chain(slots.and_then(|t| t.outro.as_ref()))
        .filter_map(|slot| templates.iter().find(|t| t.id == slot.template))
        .find_map(|t| t.style.as_ref().map(|s| s.background.clone()));
    ClipLook {
        fit: image.fit,
        caption: image.caption.as_ref().map(|c| ClipCaption {
            text: c.text.clone(),
            style: c.style,
            plate: brand.unwrap_or_else(|| clip_caption::DEFAULT_PLATE.to_owned()),
            at_top: index == 0 && intro.is_some(),
        }),
    }
}

/// What the video does with its clips, which decides where they get keyframes beyond their GOP
/// (`stillreel_render::ffmpeg::clip_keys`): its transition, and a branded copy made by stream copy
/// from where its intro ends and between the spans its speed ramp changes.
fn clip_usage(input: &records::RenderInput, transition: Transition) -> ClipUse {
    let branding = input.branding.as_ref();
    ClipUse {
        transition,
        branded_intro: branding.is_some_and(|b| b.templates.intro.is_some()),
        ramp: clip_pace(input) == stillreel_camera::geometry::clip_plan::Pace::Through,
    }
}

/// Whether a clip uses the depth role's map: the v25 camera over the photo itself (a
/// generated still or clip is not the picture the map was made of).
pub(super) fn needs_depth(engine: Engine, vfx: Option<&Vfx>) -> bool {
    engine == Engine::V25 && !vfx.is_some_and(|v| v.kind().is_generative())
}

/// What of a rendered clip a model made: its vfx's role, or the clip role on the generative
/// engine (the clip step fails rather than render either without its answer), and the depth
/// role when the camera used its map (not when it fell back to the flat camera).
fn provenance(renderer: &Renderer, work: &ClipJob, clip: &StoredClip) -> Vec<GeneratedContent> {
    let vfx_role = work
        .effect
        .as_ref()
        .and_then(|s| s.generative())
        .and_then(|v| Role::for_vfx(v.kind()))
        .or_else(|| work.engine.is_generative().then_some(Role::Clip));
    let depth_role = (work.depth.is_some() && clip.depth_fallback.is_none()).then_some(Role::Depth);
    vfx_role
        .into_iter()
        .chain(depth_role)
        .filter_map(|role| renderer.providers().get(role))
        .map(|client| GeneratedContent {
            role: client.config().role.as_str().to_owned(),
            model: client.config().model_label(),
        })
        .collect()
}

/// The clip record's notes: why the flat camera drew a clip that had a depth map.
fn notes(clip: &StoredClip) -> Vec<String> {
    clip.depth_fallback
        .iter()
        .map(|why| format!("{why}; the clip was drawn with the flat camera"))
        .collect()
}
