//! The two arms of a clip's render: the camera's own clip of a still ([`encode_still`]: the
//! clip made by the camera's one call, its frames fed to the encoder) and a clip a model made
//! ([`encode_model_clip`]: the procedural effect and captions drawn over it).

use std::path::Path;

use stillreel_camera::clip::{Clip, ClipError, DepthPng, Photo};
use stillreel_camera::depth::DepthPolarity;
use stillreel_camera::draw::warp;
use stillreel_camera::geometry::clip_plan::ClipPlan;
use stillreel_core::Fit;

use super::framing::FfmpegStill;
use super::generate::ClipSource;
use super::masks::{Follow, add_mask_input};
use super::tap::Tap;
use crate::config::FrameTap;
use crate::effect::EffectFilter;
use crate::failure::blame::{self, Suspect};
use crate::failure::{InputFault, JobFailure};
use crate::ffmpeg::command::{self, Encoding, StillInput, clip_caption};
use crate::ffmpeg::runner::{RenderError, Runner, Step, io_error};
use crate::media::thumbnail;
use crate::store::files::relative;

/// A clip ready to render on a blocking thread.
pub(super) struct ClipTask {
    pub(super) index: usize,
    pub(super) plan: ClipPlan,
    pub(super) source: ClipSource,
    /// The clip's photo (the masks of a provider's clip are made from it).
    pub(super) photo: StillInput,
    /// The depth map's PNG and polarity (v25 stills only).
    pub(super) depth: Option<(Vec<u8>, DepthPolarity)>,
    /// Why the clip has no depth map to read, when a v25 still was to have one
    /// ([`ClipJob::depth_note`]).
    pub(super) depth_note: Option<String>,
    /// The photo's upright size, as the fetch step read it.
    pub(super) upright: Option<(u32, u32)>,
    pub(super) effect: Option<EffectFilter>,
    /// Draw the disclosure caption (`command::add_caption`).
    pub(super) caption: bool,
    /// Keyframes beyond the GOP's ([`crate::ffmpeg::clip_keys`]).
    pub(super) keyframes: Vec<u32>,
    pub(super) key: String,
    /// The request field of the clip's source: the photo's `image_url`, or the provider
    /// role's input when a model made the clip (named when that source does not decode).
    pub(super) source_field: String,
    /// The ffmpeg binary, to decode a source on its own when the clip fails (`crate::failure::blame`).
    pub(super) ffmpeg: std::path::PathBuf,
    /// How the photo fills the frame, and the clip's caption.
    pub(super) look: super::ClipLook,
    /// Where the clip's frames are also handed, before the encoder (the reference frames).
    pub(super) tap: Option<FrameTap>,
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

/// The end every clip's command shares: its captions, its keyframes and, when `still`, the
/// thumbnail taken from the graph's middle frame. Whether that thumbnail is written.
fn finish_command(
    cmd: &mut command::FfmpegArgs,
    task: &ClipTask,
    names: &Names,
    still: bool,
) -> bool {
    add_captions(cmd, task);
    command::add_keyframes(cmd, &task.keyframes);
    still && command::add_still_output(cmd, task.plan.frames / 2, Path::new(&names.still))
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

/// The files one clip's run writes in its folder.
pub(super) struct Names {
    pub(super) clip: String,
    pub(super) still: String,
}

impl Names {
    pub(super) fn of(index: usize) -> Self {
        Names {
            clip: format!("render-{index:03}.mp4"),
            still: format!("render-{index:03}.jpg"),
        }
    }
}

/// What encoding a clip left beside its file.
pub(super) struct Encoded {
    /// Its thumbnail was written (`Names::still`).
    pub(super) with_still: bool,
    /// Why the depth map given was not used.
    pub(super) depth_note: Option<String>,
}

/// Encodes the camera's clip of a still: the clip made (before ffmpeg starts when an effect
/// needs its masks, else while the encoder loads), its frames fed to the encoder, the
/// thumbnail kept from the middle frame.
pub(super) fn encode_still(
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
    // A plain clip's thumbnail is the drawn frame, encoded here (`thumbnail`); one with an
    // effect or a caption takes it from the graph, after what ffmpeg draws.
    let middle = task.plan.frames / 2;
    let in_process = task.effect.is_none() && !task.caption && task.look.caption.is_none();
    let with_still = finish_command(&mut cmd, task, names, !in_process) || in_process;
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
pub(super) fn encode_model_clip(
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
    let with_still = finish_command(&mut cmd, task, names, true);
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
