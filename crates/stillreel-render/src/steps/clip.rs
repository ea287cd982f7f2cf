//! The clip step: one clip rendered from its stored input (through the generative provider
//! first when its vfx needs one, or the clip role's model on the generative engine), checked
//! with ffprobe and stored under a lease-token key.

use std::path::Path;
use std::sync::Arc;

use stillreel_core::Engine;

use super::encode::{self, ClipTask};
use super::generate::ClipSource;
use super::{ClipJob, clip_key};
use crate::failure::JobFailure;
use crate::ffmpeg::blocking::run_blocking;
use crate::ffmpeg::command::{self, Encoding, StillInput};
use crate::ffmpeg::runner::io_error;
use crate::ffmpeg::runner::{RenderError, Runner, Step};
use crate::job::StoredClip;
use crate::media::fetch::FetchedMedia;
use crate::observer::RenderObserver;
use crate::observer::progress::Progress;
use crate::plan::video_plan::clip_plan;
use crate::renderer::Renderer;
use crate::store::files::{get, make_dir};
use crate::store::storage::Storage;
use stillreel_camera::depth::{DepthInput, DepthPolarity};

impl Renderer {
    /// The clip step: renders clip `job.index` from its stored input, without audio, checks
    /// it ([`crate::media::probe::check_clip`]) and stores it under [`clip_key`].
    pub async fn render_clip(
        &self,
        job: &ClipJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<StoredClip, JobFailure> {
        let step = Step::Clip(job.index);
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir, step)?;
        let local = work_dir.join(format!(
            "input-{:03}.{}",
            job.index,
            job.input.format.extension()
        ));
        get(&self.storage, &job.input.key, &local, step).await?;
        let plan = clip_plan(job.shape(), &job.picture()).with_pace(job.pace);
        let effect = match &job.effect {
            Some(stage) => Some(
                stage
                    .filter(&command::clip_context(&plan, job.index))
                    .map_err(|source| RenderError::Effect { step, source })?,
            ),
            None => None,
        };
        let photo = StillInput {
            path: local.clone(),
            format: job.input.format,
            orientation: job.input.orientation,
        };
        let media = FetchedMedia {
            path: local.clone(),
            format: job.input.format,
            bytes: 0,
            digest: job.input.digest,
            orientation: job.input.orientation,
            dimensions: None,
        };
        let source = match job.effect.as_ref().and_then(|s| s.generative()) {
            Some(vfx) => {
                self.generate(job, Some(vfx), &media, &plan, work_dir)
                    .await?
            }
            // The generative engine: the clip role's model makes the clip from the photo and
            // the camera motion; the procedural effect (if any) is drawn over it.
            None if job.engine.is_generative() => {
                self.generate(job, None, &media, &plan, work_dir).await?
            }
            None => ClipSource::Still(photo.clone()),
        };
        // The camera reads depth on v25 stills; the map is checked where the clip is made.
        let on_still = plan.engine == Engine::V25 && matches!(source, ClipSource::Still(_));
        let depth = match &job.depth {
            Some(input) if on_still => Some(self.depth_png(job, input, work_dir).await?),
            _ => None,
        };
        let depth_note = job.depth_note.clone().filter(|_| on_still);
        // Only a picture a model really made carries the caption.
        let caption = self.config.disclosure_caption
            && job
                .effect
                .as_ref()
                .and_then(|s| s.generative())
                .is_some_and(|v| command::needs_caption(v.kind()));
        let task = ClipTask {
            index: job.index,
            plan,
            source,
            photo,
            depth,
            depth_note,
            upright: job.input.upright,
            effect,
            caption,
            keyframes: crate::ffmpeg::clip_keys::clip_keyframes(
                job.index,
                plan.frames,
                plan.fps,
                job.usage,
            ),
            key: clip_key(&job.key_prefix, job.index, job.token.as_deref()),
            source_field: match job.effect.as_ref().and_then(|s| s.generative()) {
                Some(_) => format!("image_inputs[{}].vfx", job.index),
                None if job.engine.is_generative() => format!("image_inputs[{}]", job.index),
                None => format!("image_inputs[{}].image_url", job.index),
            },
            ffmpeg: self.config.ffmpeg.clone(),
            look: job.look.clone(),
            tap: self.config.frame_tap.clone(),
        };
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown, time limit) kills the ffmpeg run.
        let _give_up = runner.cancel.on_drop();
        let storage = Arc::clone(&self.storage);
        let encoding = self.config.encoding.clone();
        let ffprobe = crate::media::probe::ffprobe_beside(&self.config.ffmpeg);
        let dir = work_dir.to_path_buf();
        let planned = f64::from(plan.frames);
        let clip = run_blocking(
            step,
            move |frames| {
                render_checked(&task, &runner, &ffprobe, &*storage, &encoding, &dir, frames)
            },
            |frames| bar.report(99.0 * f64::from(frames) / planned),
        )
        .await?;
        bar.report(100.0);
        Ok(clip)
    }

    /// The clip's depth map, fetched from storage (checked where the clip is made:
    /// [`Clip::new`]).
    async fn depth_png(
        &self,
        job: &ClipJob,
        input: &DepthInput,
        work_dir: &Path,
    ) -> Result<(Vec<u8>, DepthPolarity), JobFailure> {
        let step = Step::Clip(job.index);
        let local = work_dir.join(format!("depth-{:03}.png", job.index));
        get(&self.storage, &input.key, &local, step).await?;
        let bytes = tokio::fs::read(&local)
            .await
            .map_err(|e| JobFailure::Render(io_error(step, e)))?;
        Ok((bytes, input.polarity))
    }
}

/// Renders a clip, checks it and stores it (blocking). Reports frames done to `frames`.
fn render_checked(
    task: &ClipTask,
    runner: &Runner,
    ffprobe: &Path,
    storage: &dyn Storage,
    encoding: &Encoding,
    dir: &Path,
    frames: &mut dyn FnMut(u32),
) -> Result<StoredClip, JobFailure> {
    let names = encode::Names::of(task.index);
    let encoded = match &task.source {
        ClipSource::Still(still) => {
            encode::encode_still(task, still, runner, encoding, dir, &names, frames)?
        }
        ClipSource::Video(video) => {
            encode::encode_model_clip(task, video, runner, encoding, dir, &names, frames)?
        }
    };
    let local = dir.join(&names.clip);
    crate::media::probe::probe_and_check(ffprobe, &local, &task.plan, Step::Clip(task.index))?;
    // A render given up meanwhile (lease lost, time limit) must not upload: nobody would
    // record the file, and this blocking thread outlives the dropped future.
    if runner.cancel.is_cancelled() {
        return Err(RenderError::Cancelled {
            step: Step::Clip(task.index),
        }
        .into());
    }
    // The still first: once the clip is stored (and recorded), its thumbnail is there too.
    if encoded.with_still {
        storage
            .put(
                &dir.join(&names.still),
                &crate::store::storage::still_key(&task.key),
            )
            .map_err(|e| io_error(Step::Store, e))?;
    }
    let url_path = storage
        .put(&local, &task.key)
        .map_err(|e| io_error(Step::Store, e))?;
    Ok(StoredClip {
        index: task.index,
        key: task.key.clone(),
        url_path,
        motion: Some(task.plan.motion),
        seconds: task.plan.seconds(),
        depth_fallback: encoded.depth_note.or_else(|| task.depth_note.clone()),
    })
}
