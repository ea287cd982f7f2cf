//! The steps of a video, one function per job of the job graph, each taking one job's inputs
//! from storage and leaving its outputs there, so each can run on any machine:
//!
//! ```text
//! prepare ──► clip 0 ─┐
//!         ├─► clip 1 ─┼─► stitch ──► (branding, brand.rs)
//!         └─► clip n ─┘
//! ```
//!
//! - [`Renderer::prepare`] fetches every input once, under one deadline, checks it, and
//!   stores the checked copy under the video's key prefix with the facts a clip needs.
//! - [`Renderer::render_clip`] renders one clip, silent, from its stored input, checks the
//!   result with ffprobe ([`crate::probe`]) and stores it under a key that carries the job's
//!   lease token, so a late upload of a worker that lost its lease never replaces a clip.
//! - [`Renderer::stitch_clips`] joins stored clips in the order it is given (the database's)
//!   by stream copy and mixes the music, or silence, once.
//!
//! Each step reports its own progress, 0 to 100, to its observer.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use tokio::sync::mpsc;

use crate::command::{self, Encoding, MusicInput, StillInput};
use crate::effect::{EffectFilter, EffectStage};
use crate::failure::JobFailure;
use crate::fetch::{ExifOrientation, FetchRequest, FetchedMedia, MediaClass, MediaFormat};
use crate::pipeline::{ClipSource, RenderObserver, Renderer, StoredClip, StoredVideo};
use crate::plan::{ClipPlan, resolve_motion};
use crate::progress::Progress;
use crate::runner::Runner;
use crate::runner::{RenderError, Step};
use crate::storage::Storage;

/// What [`Renderer::prepare`] fetches.
#[derive(Debug, Clone)]
pub struct PrepareJob {
    /// Storage key prefix of the video's files (`videos/<uuid>`).
    pub key_prefix: String,
    /// `(index in image_inputs, image_url)` of every clip still to render.
    pub images: Vec<(usize, String)>,
    pub audio_url: Option<String>,
}

/// A checked input in storage, with what its clip needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredInput {
    pub index: usize,
    pub key: String,
    pub format: MediaFormat,
    /// Pixel size as displayed (after the EXIF orientation), when known.
    pub upright: Option<(u32, u32)>,
    pub orientation: ExifOrientation,
    /// FNV-1a of the bytes: the `auto` motion rule's fingerprint.
    pub digest: u64,
}

/// The checked music in storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMusic {
    pub key: String,
    pub format: MediaFormat,
}

/// What [`Renderer::prepare`] stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub inputs: Vec<StoredInput>,
    pub music: Option<StoredMusic>,
}

/// One clip to render from its stored input.
#[derive(Debug, Clone)]
pub struct ClipJob {
    pub key_prefix: String,
    pub index: usize,
    /// The lease token of the job: part of the stored clip's key, so two attempts at one clip
    /// never write the same object. `None`: `clip-<index>.mp4` (one process, no leases).
    pub token: Option<String>,
    pub input: StoredInput,
    pub camera_motion: CameraMotion,
    pub effect: Option<Arc<dyn EffectStage>>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
}

/// The clips to join, in order, and the music.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StitchJob {
    pub key_prefix: String,
    /// The lease token of the job, part of the video's key like a clip's (see [`ClipJob`]).
    pub token: Option<String>,
    /// Storage keys of the clips in video order (as recorded in the database).
    pub clip_keys: Vec<String>,
    pub music: Option<StoredMusic>,
}

/// The storage key of a clip.
pub fn clip_key(prefix: &str, index: usize, token: Option<&str>) -> String {
    match token {
        Some(token) => format!("{prefix}/clip-{index:03}-{token}.mp4"),
        None => format!("{prefix}/clip-{index:03}.mp4"),
    }
}

/// The storage key of the checked copy of input `index`.
pub fn input_key(prefix: &str, index: usize, format: MediaFormat) -> String {
    format!("{prefix}/input-{index:03}.{}", format.extension())
}

fn io(step: Step) -> impl Fn(String) -> RenderError {
    move |message| RenderError::Io { step, message }
}

fn make_dir(dir: &Path, step: Step) -> Result<(), RenderError> {
    std::fs::create_dir_all(dir).map_err(|e| io(step)(e.to_string()))
}

/// Stores `local` under `key` from a blocking thread; returns the URL path.
async fn put(
    storage: &Arc<dyn Storage>,
    local: PathBuf,
    key: String,
) -> Result<String, RenderError> {
    let storage = Arc::clone(storage);
    tokio::task::spawn_blocking(move || storage.put(&local, &key))
        .await
        .map_err(|e| io(Step::Store)(e.to_string()))?
        .map_err(|e| io(Step::Store)(e.to_string()))
}

impl Renderer {
    /// The prepare step: downloads every image (and the music) together under one deadline,
    /// so a bad picture fails the video before any CPU is spent, and stores the checked
    /// copies under the video's prefix.
    pub async fn prepare(
        &self,
        job: &PrepareJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<Prepared, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir, Step::Prepare)?;
        let mut requests: Vec<FetchRequest> = job
            .images
            .iter()
            .map(|(index, url)| FetchRequest {
                url: url.clone(),
                class: MediaClass::Image,
                stem: format!("image-{index:03}"),
                field: format!("image_inputs[{index}].image_url"),
            })
            .collect();
        if let Some(url) = &job.audio_url {
            requests.push(crate::pipeline::music_request(url));
        }
        let total = requests.len().max(1) as f64;
        let mut fetched = self
            .fetcher
            .fetch_all(&requests, work_dir, &mut |n| {
                bar.report(80.0 * n as f64 / total);
            })
            .await
            .map_err(|(i, error)| JobFailure::Media {
                field: requests[i].field.clone(),
                error,
            })?;
        let music_media = job.audio_url.as_ref().and_then(|_| fetched.pop());
        let mut inputs = Vec::with_capacity(fetched.len());
        for ((index, _), media) in job.images.iter().zip(fetched) {
            let key = input_key(&job.key_prefix, *index, media.format);
            let stored = StoredInput {
                index: *index,
                key: key.clone(),
                format: media.format,
                upright: media.upright_dimensions(),
                orientation: media.orientation,
                digest: media.digest,
            };
            put(&self.storage, media.path, key).await?;
            inputs.push(stored);
            bar.report(80.0 + 20.0 * inputs.len() as f64 / total);
        }
        let music = match music_media {
            Some(media) => {
                let key = format!("{}/music.{}", job.key_prefix, media.format.extension());
                put(&self.storage, media.path, key.clone()).await?;
                Some(StoredMusic {
                    key,
                    format: media.format,
                })
            }
            None => None,
        };
        bar.report(100.0);
        Ok(Prepared { inputs, music })
    }

    /// The clip step: renders clip `job.index` from its stored input, without audio, checks
    /// it ([`crate::probe::check_clip`]) and stores it under [`clip_key`].
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
        crate::storage::get_async(&self.storage, &job.input.key, &local)
            .await
            .map_err(|e| io(step)(e.to_string()))?;
        let frame = job.resolution.dimensions(job.orientation);
        let upright = job.input.upright.unwrap_or(frame);
        let motion = resolve_motion(
            job.camera_motion,
            job.engine,
            upright,
            frame,
            job.input.digest,
        );
        let plan = ClipPlan::new(job.orientation, job.resolution, job.engine, motion);
        let effect = match &job.effect {
            Some(stage) => Some(
                stage
                    .filter(&command::clip_context(&plan, job.index))
                    .map_err(|source| RenderError::Effect { step, source })?,
            ),
            None => None,
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
                self.generate(vfx, &media, job.index, &plan, work_dir)
                    .await?
            }
            None => ClipSource::Still(StillInput {
                path: local,
                format: job.input.format,
                orientation: job.input.orientation,
            }),
        };
        let task = ClipTask {
            index: job.index,
            plan,
            source,
            effect,
            key: clip_key(&job.key_prefix, job.index, job.token.as_deref()),
        };
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown, time limit) kills the ffmpeg run.
        let _give_up = runner.cancel.on_drop();
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        let storage = Arc::clone(&self.storage);
        let encoding = self.config.encoding.clone();
        let ffprobe = crate::probe::ffprobe_beside(&self.config.ffmpeg);
        let dir = work_dir.to_path_buf();
        let mut handle = tokio::task::spawn_blocking(move || {
            render_checked(&task, &runner, &ffprobe, &*storage, &encoding, &dir, &tx)
        });
        let planned = f64::from(stillreel_core::limits::CLIP_SECONDS * stillreel_core::limits::FPS);
        let result = loop {
            tokio::select! {
                Some(frames) = rx.recv() => bar.report(99.0 * f64::from(frames) / planned),
                result = &mut handle => break result,
            }
        };
        let clip = result.map_err(|e| io(step)(e.to_string()))??;
        bar.report(100.0);
        Ok(clip)
    }

    /// The stitch step: joins the stored clips in the given order by stream copy, with the
    /// music or silence, and stores `video.mp4`.
    pub async fn stitch_clips(
        &self,
        job: &StitchJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<StoredVideo, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir, Step::Stitch)?;
        let mut names = Vec::with_capacity(job.clip_keys.len());
        for (position, key) in job.clip_keys.iter().enumerate() {
            let name = format!("part-{position:03}.mp4");
            crate::storage::get_async(&self.storage, key, &work_dir.join(&name))
                .await
                .map_err(|e| io(Step::Stitch)(e.to_string()))?;
            names.push(name);
        }
        let music = match &job.music {
            Some(stored) => {
                let path = work_dir.join(format!("music.{}", stored.format.extension()));
                crate::storage::get_async(&self.storage, &stored.key, &path)
                    .await
                    .map_err(|e| io(Step::Stitch)(e.to_string()))?;
                Some(MusicInput {
                    path,
                    format: stored.format,
                })
            }
            None => None,
        };
        let key = match &job.token {
            Some(token) => format!("{}/video-{token}.mp4", job.key_prefix),
            None => format!("{}/video.mp4", job.key_prefix),
        };
        let video = self
            .stitch(Step::Stitch, &names, music, work_dir, &key, &bar, 0.0)
            .await?;
        bar.report(100.0);
        Ok(video)
    }
}

/// A clip ready to render on a blocking thread.
struct ClipTask {
    index: usize,
    plan: ClipPlan,
    source: ClipSource,
    effect: Option<EffectFilter>,
    key: String,
}

/// Renders a clip, checks it and stores it (blocking). Sends frames done on `tx`.
fn render_checked(
    task: &ClipTask,
    runner: &Runner,
    ffprobe: &Path,
    storage: &dyn Storage,
    encoding: &Encoding,
    dir: &Path,
    tx: &mpsc::UnboundedSender<u32>,
) -> Result<StoredClip, RenderError> {
    let step = Step::Clip(task.index);
    let rendered = format!("render-{:03}.mp4", task.index);
    let relative = |path: &Path| {
        path.strip_prefix(dir)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let cmd = match &task.source {
        ClipSource::Still(still) => command::clip_command(
            &task.plan,
            &StillInput {
                path: relative(&still.path),
                ..still.clone()
            },
            task.effect.as_ref(),
            encoding,
            Path::new(&rendered),
        ),
        ClipSource::Video(video) => command::provider_clip_command(
            &task.plan,
            &relative(video),
            task.effect.as_ref(),
            encoding,
            Path::new(&rendered),
        ),
    };
    runner.run(step, &cmd, dir, &mut |frames| {
        let _ = tx.send(frames);
    })?;
    let local = dir.join(&rendered);
    crate::probe::probe_and_check(ffprobe, &local, &task.plan, step)?;
    // A render given up meanwhile (lease lost, time limit) must not upload: nobody would
    // record the file, and this blocking thread outlives the dropped future.
    if runner.cancel.is_cancelled() {
        return Err(RenderError::Cancelled { step });
    }
    let url_path = storage
        .put(&local, &task.key)
        .map_err(|e| io(Step::Store)(e.to_string()))?;
    Ok(StoredClip {
        index: task.index,
        key: task.key.clone(),
        url_path,
        motion: Some(task.plan.motion),
        seconds: task.plan.seconds(),
    })
}
