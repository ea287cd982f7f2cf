//! Branding: renders the branded copy of a complete video (intro, outro, speed ramp) and
//! records it.

use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::{JobError, TemplateSlot};
use stillreel_render::{BrandJob, BrandMusic, BrandSlot, BrandedVideo, StoredMusic};

use super::{clip_pace, token_prefix};
use crate::db::{DbError, Tx};
use crate::queue::{Job, JobKind};
use crate::repo::graph;
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{DbObserver, Target};

#[derive(Debug, Clone, Copy)]
pub struct Branding;

impl Kind for Branding {
    const KIND: JobKind = JobKind::BRANDING;
    /// Of the branded render's own progress bar.
    const PROGRESS_SHARE: u8 = 100;

    /// `None`: nothing to brand (the video is gone or asked for no branding).
    type Output = Option<BrandedVideo>;

    async fn run(&self, ctx: &JobCtx<'_>, job: &Job) -> Result<Option<BrandedVideo>, Failure> {
        let Some(input) = records::render_input(ctx.db(), job.video_id).await? else {
            return Ok(None);
        };
        if input.branding.is_none() {
            return Ok(None);
        }
        let Some(main_key) = input.video_key.clone() else {
            return Err(Failure::Permanent(render_failed(
                "the main video is not complete, so it cannot be branded",
            )));
        };
        let Some(work) = brand_job(
            ctx,
            &input,
            (token_prefix(input.video_id, job), main_key),
            graph::stitch_input(ctx.db(), input.video_id).await?.1,
        )
        .await?
        else {
            return Ok(None);
        };
        records::start_branding(ctx.db(), input.video_id).await?;
        let observer = DbObserver::spawn(ctx.db().clone(), Target::Branding(input.video_id));
        let result = ctx
            .renderer
            .render_branded(&work, ctx.work_dir, &observer)
            .await;
        observer.finish().await;
        result.map(Some).map_err(Failure::Job)
    }

    async fn record(
        &self,
        tx: &mut Tx,
        _: &Services,
        job: &Job,
        output: Option<BrandedVideo>,
    ) -> Result<Settle, DbError> {
        if let Some(branded) = output {
            records::complete_branding_in(tx, job.video_id, &branded.video.key, branded.speed_ramp)
                .await?;
        }
        // The stored music and the sound the stitch left for the branded render have served
        // their purpose.
        Ok(Settle {
            remove: graph::branding_leftovers_in(tx, job.video_id).await?,
            ..Settle::done()
        })
    }

    /// The branded render fails; the main video stays complete. Its stored music and the
    /// sound made ahead go.
    async fn fail(&self, tx: &mut Tx, job: &Job, error: &JobError) -> Result<Vec<String>, DbError> {
        records::fail_branding_in(tx, job.video_id, error).await?;
        graph::branding_leftovers_in(tx, job.video_id).await
    }
}

/// The branded render of `input` as the renderer needs it, its result to go under
/// `key_prefix`; `None` when the video asks for no branding. `stored_music`: the copy of the
/// music the prepare step kept (`graph::stitch_input`), which the caller has read. The stitch
/// asks it too, for the sound it makes ahead ([`BrandJob::sound`]).
pub(super) async fn brand_job(
    ctx: &JobCtx<'_>,
    input: &records::RenderInput,
    (key_prefix, main_key): (String, String),
    stored_music: Option<StoredMusic>,
) -> Result<Option<BrandJob>, Failure> {
    let Some(branding) = &input.branding else {
        return Ok(None);
    };
    let resolve = |slot: &Option<TemplateSlot>| match slot {
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
    let (clip_count, audio_url, transition) = match &input.source {
        RenderSource::Create { clips, request } => {
            (clips.len(), &request.audio_url, request.transition)
        }
        RenderSource::Combine { clip_keys, request } => {
            (clip_keys.len(), &request.audio_url, request.transition)
        }
    };
    // A combined video's clips were paced by the videos they were made for: through their
    // ends only when each of those asked for the ramp too.
    let pace = match &input.source {
        RenderSource::Create { .. } => clip_pace(input),
        RenderSource::Combine { .. } => {
            if records::combined_clips_paced_through(ctx.db(), input.video_id).await? {
                Pace::Through
            } else {
                Pace::Engine
            }
        }
    };
    // The music runs on under the outro: the stored copy when the prepare step kept one,
    // else the request's URL again (a combine stores none).
    let music = match stored_music {
        Some(stored) => Some(BrandMusic::Stored(stored)),
        None => audio_url.clone().map(BrandMusic::Url),
    };
    Ok(Some(BrandJob {
        key_prefix,
        main_key,
        clip_frames: BrandJob::joined_clips(clip_count, transition),
        orientation: input.orientation,
        resolution: input.resolution,
        intro,
        outro,
        speed_ramp: branding.speed_ramp,
        clip_pace: pace,
        music,
        sound_key: Some(crate::storage::branded_sound_key(input.video_id)),
    }))
}
