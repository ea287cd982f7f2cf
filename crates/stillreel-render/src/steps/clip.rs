//! The clip step: one clip rendered from its stored input (through the generative provider
//! first when its vfx needs one, or the clip role's model on the generative engine), checked
//! with ffprobe and stored under a lease-token key.

use std::path::Path;
use std::sync::Arc;

use stillreel_core::{Engine, Fit};

use super::framing::FfmpegStill;
use super::generate::ClipSource;
use super::masks::{Follow, add_mask_input};
use super::tap::Tap;
use super::{ClipJob, clip_key};
use crate::config::FrameTap;
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
use stillreel_camera::clip::{Clip, ClipError, DepthPng, Photo};
use stillreel_camera::depth::{DepthInput, DepthPolarity};
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

/// A clip ready to render on a blocking thread.
struct ClipTask {
    index: usize,
    plan: ClipPlan,
    source: ClipSource,
    /// The clip's photo (the masks of a provider's clip are made from it).
    photo: StillInput,
    /// The depth map's PNG and polarity (v25 stills only).
    depth: Option<(Vec<u8>, DepthPolarity)>,
    /// Why the clip has no depth map to read, when a v25 still was to have one
    /// ([`ClipJob::depth_note`]).
    depth_note: Option<String>,
    /// The photo's upright size, as the fetch step read it.
    upright: Option<(u32, u32)>,
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
    /// Where the clip's frames are also handed, before the encoder (the reference frames).
    tap: Option<FrameTap>,
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

/// The clip of `still` (a path relative to `dir`) framed by `fit`, through the camera's one
/// call ([`Clip::new`]); ffmpeg makes the canvas of what the camera does not decode.
fn make_clip(
    task: &ClipTask,
    still: &StillInput,
    fit: Fit,
    depth: bool,
    runner: &Runner,
    dir: &Path,
) -> Result<Clip, RenderError> {
    let step = Step::Clip(task.index);
    let bytes = std::fs::read(dir.join(&still.path)).map_err(|e| io_error(step, e))?;
    let photo = Photo {
        bytes: &bytes,
        format: still.format,
        orientation: still.orientation,
        upright: task.upright,
    };
    let depth = task
        .depth
        .as_ref()
        .filter(|_| depth)
        .map(|(png, polarity)| DepthPng {
            png,
            polarity: *polarity,
        });
    let mut ffmpeg = FfmpegStill {
        plan: &task.plan,
        still,
        index: task.index,
        runner,
        dir,
    };
    Clip::new(&photo, fit, task.plan, depth, &mut ffmpeg).map_err(|e| match e {
        ClipError::Decoder(e) => e,
        // ffmpeg may exit 0 having decoded no frame of a broken picture: the picture's fault.
        no_frame @ ClipError::NoFrame(_) => RenderError::Rejected {
            step,
            message: no_frame.to_string(),
        },
    })
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
    let names = Names::of(task.index);
    let encoded = match &task.source {
        ClipSource::Still(still) => {
            encode_still(task, still, runner, encoding, dir, &names, frames)?
        }
        ClipSource::Video(video) => {
            encode_model_clip(task, video, runner, encoding, dir, &names, frames)?
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

/// The files one clip's run writes in its folder.
struct Names {
    clip: String,
    still: String,
}

impl Names {
    fn of(index: usize) -> Self {
        Names {
            clip: format!("render-{index:03}.mp4"),
            still: format!("render-{index:03}.jpg"),
        }
    }
}

/// What encoding a clip left beside its file.
struct Encoded {
    /// Its thumbnail was written (`Names::still`).
    with_still: bool,
    /// Why the depth map given was not used.
    depth_note: Option<String>,
}

/// Encodes the camera's clip of a still: the clip made (before ffmpeg starts when an effect
/// needs its masks, else while the encoder loads), its frames fed to the encoder, the
/// thumbnail kept from the middle frame.
fn encode_still(
    task: &ClipTask,
    still: &StillInput,
    runner: &Runner,
    encoding: &Encoding,
    dir: &Path,
    names: &Names,
    frames: &mut dyn FnMut(u32),
) -> Result<Encoded, JobFailure> {
    let step = Step::Clip(task.index);
    let still = StillInput {
        path: relative(dir, &still.path),
        ..still.clone()
    };
    let fit = task.look.fit;
    // Masks are an input file, so they and the clip they come from are made before ffmpeg
    // starts.
    let mut effect = task.effect.clone();
    let mut early = None;
    if let Some(fx) = effect.as_mut().filter(|fx| fx.masks.is_some()) {
        let clip = make_clip(task, &still, fit, true, runner, dir)
            .map_err(|e| canvas_failure(task, &still, dir, e))?;
        add_mask_input(
            fx,
            clip.canvas(),
            &task.plan,
            Follow::Camera,
            task.index,
            dir,
        )?;
        early = Some(clip);
    }
    let mut cmd = command::clip_command(
        &task.plan,
        effect.as_ref(),
        encoding,
        Path::new(&names.clip),
    );
    add_captions(&mut cmd, task);
    command::add_keyframes(&mut cmd, &task.keyframes);
    // A plain clip's thumbnail is the drawn frame, encoded here (`thumbnail`); one with an
    // effect or a caption takes it from the graph, after what ffmpeg draws.
    let middle = task.plan.frames / 2;
    let in_process = task.effect.is_none() && !task.caption && task.look.caption.is_none();
    let with_still =
        in_process || command::add_still_output(&mut cmd, middle, Path::new(&names.still));
    let threads = warp::draw_threads();
    // The encoder starts first and the clip is made while it loads its libraries and opens
    // x264 (about 0.08 s of a clip that the two runs would otherwise spend one after the
    // other); its first frame arrives once the canvas is there.
    let mut canvas_failed: Option<RenderError> = None;
    let mut still_failed: Option<RenderError> = None;
    let mut depth_note = None;
    let encoded = runner.run_fed(step, &cmd, dir, frames, &mut |stdin| {
        let clip = match early.take() {
            Some(clip) => clip,
            None => make_clip(task, &still, fit, true, runner, dir).map_err(|e| {
                let message = e.to_string();
                canvas_failed = Some(e);
                std::io::Error::other(message)
            })?,
        };
        depth_note = clip.depth_note();
        let mut out = Tap::new(stdin, task.tap.as_ref(), task.index, &task.plan);
        if !in_process {
            return clip.write_frames(threads, &mut out);
        }
        let kept = clip.write_frames_keeping(threads, middle, &mut out)?;
        // Encoded while x264 drains its lookahead; a failure fails the clip after ffmpeg is
        // done, rather than killing it.
        still_failed =
            thumbnail::write_still(Some(&kept), &task.plan, &dir.join(&names.still), step);
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
    Ok(Encoded {
        with_still,
        depth_note,
    })
}

/// Encodes a clip a model made (`video`), the procedural effect and captions drawn over it.
fn encode_model_clip(
    task: &ClipTask,
    video: &Path,
    runner: &Runner,
    encoding: &Encoding,
    dir: &Path,
    names: &Names,
    frames: &mut dyn FnMut(u32),
) -> Result<Encoded, JobFailure> {
    let mut effect = task.effect.clone();
    if let Some(fx) = effect.as_mut().filter(|fx| fx.masks.is_some()) {
        let photo = StillInput {
            path: relative(dir, &task.photo.path),
            ..task.photo.clone()
        };
        // The model's clip is covered to the frame (`provider_clip_graph`): so is the photo
        // its masks come from.
        let clip = make_clip(task, &photo, Fit::Cover, false, runner, dir)
            .map_err(|e| canvas_failure(task, &photo, dir, e))?;
        add_mask_input(
            fx,
            clip.canvas(),
            &task.plan,
            Follow::Still,
            task.index,
            dir,
        )?;
    }
    let mut cmd = command::provider_clip_command(
        &task.plan,
        &relative(dir, video),
        effect.as_ref(),
        encoding,
        Path::new(&names.clip),
    );
    add_captions(&mut cmd, task);
    command::add_keyframes(&mut cmd, &task.keyframes);
    let middle = task.plan.frames / 2;
    let with_still = command::add_still_output(&mut cmd, middle, Path::new(&names.still));
    if let Err(e) = runner.run(Step::Clip(task.index), &cmd, dir, frames) {
        // The model's answer is the only input; the effect drawn over it is ours.
        let suspect = Suspect::video(&task.source_field, InputFault::ModelOutput, video);
        return Err(blame::blame(&task.ffmpeg, dir, &[suspect], e.into()));
    }
    Ok(Encoded {
        with_still,
        depth_note: None,
    })
}
