//! The clip step: one clip rendered from its stored input (through the generative provider
//! first when its vfx needs one, or the clip role's model on the generative engine), checked
//! with ffprobe and stored under a lease-token key.

use std::path::Path;
use std::sync::Arc;

use stillreel_core::{Engine, Fit};

use super::framing::framed_canvas;
use super::generate::ClipSource;
use super::masks::{Follow, add_mask_input};
use super::{ClipJob, clip_key};
use crate::effect::EffectFilter;
use crate::failure::blame::{self, Suspect};
use crate::failure::{InputFault, JobFailure};
use crate::ffmpeg::blocking::run_blocking;
use crate::ffmpeg::command::{self, Encoding, StillInput, clip_caption};
use crate::ffmpeg::runner::io_error;
use crate::ffmpeg::runner::{RenderError, Runner, Step};
use crate::job::StoredClip;
use crate::media::fetch::FetchedMedia;
use crate::media::thumbnail;
use crate::observer::RenderObserver;
use crate::observer::progress::Progress;
use crate::plan::video_plan::clip_plan;
use crate::renderer::Renderer;
use crate::store::files::{get, make_dir, relative};
use crate::store::storage::Storage;
use stillreel_camera::depth::{DepthError, DepthField, DepthInput, DepthMap};
use stillreel_camera::draw::warp;
use stillreel_camera::geometry::clip_plan::ClipPlan;

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
        let (depth, depth_fallback) = match (&job.depth, &source) {
            (Some(input), ClipSource::Still(_)) if plan.engine == Engine::V25 => {
                match self.depth_map(job, input, work_dir).await? {
                    Ok(map) => (Some(map), None),
                    Err(unusable) => (None, Some(unusable.to_string())),
                }
            }
            _ => (None, None),
        };
        let depth_fallback = depth_fallback.or_else(|| {
            (plan.engine == Engine::V25 && matches!(source, ClipSource::Still(_)))
                .then(|| job.depth_note.clone())
                .flatten()
        });
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
            depth_fallback,
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

    /// The clip's depth map, fetched from storage and checked against the picture and for
    /// what it holds ([`DepthMap::check_usable`]); an unusable map is the inner `Err`: the
    /// clip is drawn with the flat camera and says why, the video does not fail for it.
    async fn depth_map(
        &self,
        job: &ClipJob,
        input: &DepthInput,
        work_dir: &Path,
    ) -> Result<Result<DepthMap, DepthError>, JobFailure> {
        let step = Step::Clip(job.index);
        let local = work_dir.join(format!("depth-{:03}.png", job.index));
        get(&self.storage, &input.key, &local, step).await?;
        let bytes = tokio::fs::read(&local)
            .await
            .map_err(|e| JobFailure::Render(io_error(step, e)))?;
        let upright = job.input.upright;
        let polarity = input.polarity;
        // Decoding a large map and sampling it are CPU work: off the async threads.
        let checked = tokio::task::spawn_blocking(move || {
            let map = DepthMap::from_png(&bytes)?;
            if let Some(upright) = upright {
                map.check_aspect(upright)?;
            }
            let map = map.with_polarity(polarity);
            map.check_usable()?;
            Ok(map)
        })
        .await
        .map_err(|e| JobFailure::Render(io_error(step, std::io::Error::other(e))))?;
        Ok(checked)
    }
}

/// A clip ready to render on a blocking thread.
struct ClipTask {
    index: usize,
    plan: ClipPlan,
    source: ClipSource,
    /// The clip's photo (the masks of a provider's clip are made from it).
    photo: StillInput,
    /// The checked depth map (v25 stills only).
    depth: Option<DepthMap>,
    /// Why a depth map the clip had was not used ([`StoredClip::depth_fallback`]).
    depth_fallback: Option<String>,
    effect: Option<EffectFilter>,
    /// Draw the disclosure caption (`command::add_caption`).
    caption: bool,
    /// Keyframes beyond the GOP's ([`crate::ffmpeg::clip_keys`]).
    keyframes: Vec<u32>,
    key: String,
    /// The request field of the clip's source: the photo's `image_url`, or the provider
    /// role's input when a model made the clip (named when that source does not decode).
    source_field: String,
    /// The ffmpeg binary, to decode a source on its own when the clip fails (`crate::failure::blame`).
    ffmpeg: std::path::PathBuf,
    /// How the photo fills the frame, and the clip's caption.
    look: super::ClipLook,
}

/// The job's failure for a canvas that could not be made. The canvas reads nothing but the
/// photo: when the photo does not decode alone either (checked without the run's memory limit,
/// which is ours), it is at fault.
fn canvas_failure(task: &ClipTask, still: &StillInput, dir: &Path, e: RenderError) -> JobFailure {
    let suspect = Suspect::picture(&task.source_field, &still.path, still.format);
    match e {
        RenderError::Failed { .. } => blame::blame(&task.ffmpeg, dir, &[suspect], e.into()),
        RenderError::Rejected { .. } => {
            blame::input_failure(&suspect, "no frame could be decoded from it", e)
        }
        other => other.into(),
    }
}

/// The clip's own caption, then the disclosure caption over it, at the end of its graph.
fn add_captions(cmd: &mut command::FfmpegArgs, task: &ClipTask) {
    let plan = &task.plan;
    if let Some(caption) = &task.look.caption {
        let filters =
            clip_caption::caption_filters(caption, plan.width, plan.height, plan.seconds());
        command::append_to_graph(cmd, &filters);
    }
    if task.caption {
        command::add_caption(cmd, plan.height);
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
    let step = Step::Clip(task.index);
    let rendered = format!("render-{:03}.mp4", task.index);
    let still_name = format!("render-{:03}.jpg", task.index);
    // The thumbnail: the middle frame, split off the clip's own graph (no second decode).
    let middle = task.plan.frames / 2;
    let with_still = match &task.source {
        ClipSource::Still(still) => {
            let still = StillInput {
                path: relative(dir, &still.path),
                ..still.clone()
            };
            // Masks are an input file, so they and the canvas they come from are made before
            // ffmpeg starts (other clips make the canvas while the encoder loads).
            let mut effect = task.effect.clone();
            let mut early_canvas = None;
            if let Some(fx) = effect.as_mut().filter(|fx| fx.masks.is_some()) {
                let framed =
                    framed_canvas(&task.plan, &still, task.look.fit, task.index, runner, dir)
                        .map_err(|e| canvas_failure(task, &still, dir, e))?;
                add_mask_input(fx, &framed.0, &task.plan, Follow::Camera, task.index, dir)?;
                early_canvas = Some(framed);
            }
            let mut cmd =
                command::clip_command(&task.plan, effect.as_ref(), encoding, Path::new(&rendered));
            add_captions(&mut cmd, task);
            command::add_keyframes(&mut cmd, &task.keyframes);
            // A plain clip's thumbnail is the drawn frame, encoded here (`thumbnail`); one
            // with an effect or a caption takes it from the graph, after what ffmpeg draws.
            let in_process = task.effect.is_none() && !task.caption && task.look.caption.is_none();
            let with_still =
                in_process || command::add_still_output(&mut cmd, middle, Path::new(&still_name));
            let threads = warp::draw_threads();
            let plan = task.plan;
            // The encoder starts first and the canvas is made while it loads its libraries and
            // opens x264 (about 0.08 s of a clip that the two runs would otherwise spend one
            // after the other); its first frame arrives once the canvas is there.
            let mut canvas_failed: Option<RenderError> = None;
            let mut still_failed: Option<RenderError> = None;
            let encoded = runner.run_fed(step, &cmd, dir, frames, &mut |stdin| {
                let (canvas, placement) = match early_canvas.take() {
                    Some(framed) => framed,
                    None => framed_canvas(&plan, &still, task.look.fit, task.index, runner, dir)
                        .map_err(|e| {
                            let message = e.to_string();
                            canvas_failed = Some(e);
                            std::io::Error::other(message)
                        })?,
                };
                let field = task.depth.as_ref().map(|map| {
                    DepthField::prepare_placed(
                        map,
                        (plan.width, plan.height),
                        Some(&canvas.guide()),
                        placement.as_ref(),
                    )
                });
                if !in_process {
                    return warp::write_frames(&plan, &canvas, field.as_ref(), threads, stdin);
                }
                let frame_len = warp::frame_bytes(plan.width, plan.height);
                let mut keep = thumbnail::KeepFrame::new(stdin, middle, frame_len);
                warp::write_frames(&plan, &canvas, field.as_ref(), threads, &mut keep)?;
                // Encoded while x264 drains its lookahead; a failure fails the clip after
                // ffmpeg is done, rather than killing it.
                still_failed =
                    thumbnail::write_still(keep.frame(), &plan, &dir.join(&still_name), step);
                Ok(())
            });
            // The canvas's own error, not the encoder's view of it (killed for a failed feed).
            if let Some(e) = canvas_failed {
                return Err(canvas_failure(task, &still, dir, e));
            }
            encoded?;
            if let Some(e) = still_failed {
                return Err(e.into());
            }
            with_still
        }
        ClipSource::Video(video) => {
            let mut effect = task.effect.clone();
            if let Some(fx) = effect.as_mut().filter(|fx| fx.masks.is_some()) {
                let photo = StillInput {
                    path: relative(dir, &task.photo.path),
                    ..task.photo.clone()
                };
                // The model's clip is covered to the frame (`provider_clip_graph`): so is the
                // photo its masks come from.
                let (canvas, _) =
                    framed_canvas(&task.plan, &photo, Fit::Cover, task.index, runner, dir)
                        .map_err(|e| canvas_failure(task, &photo, dir, e))?;
                add_mask_input(fx, &canvas, &task.plan, Follow::Still, task.index, dir)?;
            }
            let mut cmd = command::provider_clip_command(
                &task.plan,
                &relative(dir, video),
                effect.as_ref(),
                encoding,
                Path::new(&rendered),
            );
            add_captions(&mut cmd, task);
            command::add_keyframes(&mut cmd, &task.keyframes);
            let with_still = command::add_still_output(&mut cmd, middle, Path::new(&still_name));
            if let Err(e) = runner.run(step, &cmd, dir, frames) {
                // The model's answer is the only input; the effect drawn over it is ours.
                let suspect = Suspect::video(&task.source_field, InputFault::ModelOutput, video);
                return Err(blame::blame(&task.ffmpeg, dir, &[suspect], e.into()));
            }
            with_still
        }
    };
    let local = dir.join(&rendered);
    crate::media::probe::probe_and_check(ffprobe, &local, &task.plan, step)?;
    // A render given up meanwhile (lease lost, time limit) must not upload: nobody would
    // record the file, and this blocking thread outlives the dropped future.
    if runner.cancel.is_cancelled() {
        return Err(RenderError::Cancelled { step }.into());
    }
    // The still first: once the clip is stored (and recorded), its thumbnail is there too.
    if with_still {
        storage
            .put(
                &dir.join(&still_name),
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
        depth_fallback: task.depth_fallback.clone(),
    })
}
