//! Branding: renders the branded copy of a complete video (intro, outro, speed ramp) and
//! records it.

use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::{JobError, TemplateSlot};
use stillreel_render::{BrandJob, BrandMusic, BrandSlot, BrandedVideo, StoredMusic};
use uuid::Uuid;

use super::keys::token_prefix;
use super::pace::clip_pace;
use crate::db::{DbError, Tx};
use crate::queue::{ClaimRank, Job, JobKind, Makes, NewJob};
use crate::repo::graph;
use crate::repo::render::{self as records, RenderSource};
use crate::state::Services;
use crate::worker::failure::{Failure, render_failed};
use crate::worker::kind::{JobCtx, Kind, Settle};
use crate::worker::observer::{Target, observed};

#[derive(Debug, Clone, Copy)]
pub struct Branding;

/// Render the branded version of a completed video.
pub const BRANDING: JobKind =
    JobKind::new("branding", ClaimRank::Finishing).making(Makes::Branding);

/// The branded render of a complete video, when it asked for one and none is queued yet:
/// what follows a stitch or a combine that completed the video (or found it complete).
pub(super) async fn follow_up_in(tx: &mut Tx, video_id: Uuid) -> Result<Vec<NewJob>, DbError> {
    Ok(if graph::branding_due_in(tx, video_id).await? {
        vec![NewJob::new(video_id, BRANDING)]
    } else {
        Vec::new()
    })
}

impl Kind for Branding {
    const KIND: JobKind = BRANDING;

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
        // The branded render's own bar.
        let target = Target::Branding(input.video_id);
        let result = observed(ctx.db(), target, |observer| async move {
            ctx.renderer
                .render_branded(&work, ctx.work_dir, &observer)
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
