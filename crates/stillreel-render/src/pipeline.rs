//! A whole job: fetch the media, render each clip, store it, stitch the video, store that.
//!
//! Downloads run on the async runtime; ffmpeg runs on a blocking thread (clips in parallel up
//! to [`RenderConfig::clip_parallelism`]), reporting back over a channel so the observer is
//! only ever called from the job's own task.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use tokio::sync::mpsc;

use crate::command::{self, Encoding, MusicInput, StillInput};
use crate::effect::{EffectFilter, EffectStage};
use crate::error::{JobFailure, RenderError, Step};
use crate::fetch::{ExifOrientation, FetchRequest, FetchedMedia, Fetcher, MediaClass};
use crate::plan::{ClipPlan, Motion, resolve_motion};
use crate::progress::{self, Progress};
use crate::provider::{OutputSpec, Provider, ProviderError, ProviderOutput};
use crate::runner::Runner;
use crate::storage::Storage;

/// Default memory limit of one ffmpeg run: a 49.8-megapixel photo rendered at 1080p needs
/// between 512 and 768 MiB of data segment (381 MiB resident); 1.5 GiB leaves room for
/// effects and branding without letting one file take the machine.
pub const DEFAULT_FFMPEG_MEMORY_LIMIT: u64 = 1536 * 1024 * 1024;

/// How renders run.
#[derive(Debug, Clone)]
pub struct RenderConfig {
    /// `STILLREEL_FFMPEG`.
    pub ffmpeg: PathBuf,
    /// Wall time one ffmpeg run may take before it is killed.
    pub step_time_limit: Duration,
    pub encoding: Encoding,
    /// Clips of one job rendered at once. 2 uses both cores of a small machine
    /// (`perspective` computes its sampling map on one thread).
    pub clip_parallelism: usize,
    /// Memory limit of each ffmpeg run in bytes (`STILLREEL_FFMPEG_MAX_MEMORY`; `None`: none).
    pub ffmpeg_memory_limit: Option<u64>,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            ffmpeg: PathBuf::from("ffmpeg"),
            step_time_limit: Duration::from_secs(300),
            encoding: Encoding::default(),
            clip_parallelism: 2,
            ffmpeg_memory_limit: Some(DEFAULT_FFMPEG_MEMORY_LIMIT),
        }
    }
}

/// One image of a video job.
#[derive(Debug, Clone)]
pub struct ClipRequest {
    pub image_url: String,
    pub camera_motion: CameraMotion,
    /// The vfx of this image, from `stillreel-effects`.
    pub effect: Option<Arc<dyn EffectStage>>,
}

/// `create_video`, as the renderer needs it.
#[derive(Debug, Clone)]
pub struct VideoJob {
    /// Storage key prefix of this video's files (e.g. `videos/<uuid>`).
    pub key_prefix: String,
    pub clips: Vec<ClipRequest>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
    pub audio_url: Option<String>,
}

/// `combine_video_clips`, as the renderer needs it.
#[derive(Debug, Clone)]
pub struct CombineJob {
    pub key_prefix: String,
    /// Storage keys of the clips, in order (a key may repeat). Every clip is a standard clip
    /// of the request's orientation, resolution and one engine (checked by the caller).
    pub clip_keys: Vec<String>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub audio_url: Option<String>,
}

/// A stored clip.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredClip {
    pub index: usize,
    pub key: String,
    pub url_path: String,
    /// The motion really used (`auto` decided); `None` when the clip was already stored.
    pub motion: Option<Motion>,
    pub seconds: f64,
}

/// A stored video.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVideo {
    pub key: String,
    pub url_path: String,
    pub seconds: f64,
    pub clips: Vec<StoredClip>,
}

/// What the job runner learns while a video renders.
pub trait RenderObserver: Send + Sync {
    /// Overall progress, 0 to 100, never decreasing.
    fn progress(&self, _percent: u8) {}
    /// A clip has been stored (so `video_clips` can list it at once).
    fn clip_stored(&self, _clip: &StoredClip) {}
    /// The storage key of clip `index` if an earlier attempt already stored it: it is reused,
    /// not rendered again.
    fn existing_clip(&self, _index: usize) -> Option<String> {
        None
    }
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;
impl RenderObserver for NoObserver {}

/// Renders videos.
#[derive(Debug, Clone)]
pub struct Renderer {
    pub(crate) config: RenderConfig,
    pub(crate) fetcher: Fetcher,
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) provider: Option<Provider>,
}

/// What a clip is made from.
#[derive(Debug, Clone)]
enum ClipSource {
    /// A still (the fetched picture, or the provider's processed one).
    Still(StillInput),
    /// A clip made by the generative provider (MP4 in the work dir).
    Video(PathBuf),
}

/// Messages from the blocking render thread.
enum Note {
    Frames(u64),
    Stored(StoredClip),
}

/// A clip ready to render on a blocking thread.
struct ClipTask {
    index: usize,
    plan: ClipPlan,
    source: ClipSource,
    effect: Option<EffectFilter>,
    key: String,
}

impl Renderer {
    pub fn new(config: RenderConfig, fetcher: Fetcher, storage: Arc<dyn Storage>) -> Self {
        Renderer {
            config,
            fetcher,
            storage,
            provider: None,
        }
    }

    /// Uses `provider` for generative vfx (`virtual-staging`, `lifestyle`, `spin-ceiling-fan`).
    /// Without one, a clip asking for them fails (the server should have refused the request
    /// with `vfx_unavailable` already; see [`crate::provider::available_vfx`]).
    pub fn with_provider(mut self, provider: Option<Provider>) -> Self {
        self.provider = provider;
        self
    }

    /// The vfx types this renderer can draw (procedural ones, plus generative ones with a
    /// provider).
    pub fn available_vfx(&self) -> Vec<stillreel_core::VfxType> {
        crate::provider::available_vfx(self.provider.as_ref().map(Provider::config))
    }

    /// How this renderer runs ffmpeg.
    pub fn config(&self) -> &RenderConfig {
        &self.config
    }

    pub(crate) fn runner(&self) -> Runner {
        Runner::new(&self.config.ffmpeg, self.config.step_time_limit)
            .with_memory_limit(self.config.ffmpeg_memory_limit)
    }

    /// Renders `job` in `work_dir` (created if missing; the caller removes it afterwards).
    pub async fn render_video(
        &self,
        job: &VideoJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<StoredVideo, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir)?;
        let frame = job.resolution.dimensions(job.orientation);

        // Downloads first, all together under one deadline: a bad picture fails the job
        // before any CPU is spent, and slow sources cost one deadline, not one each.
        let mut reused = Vec::new();
        let mut requests = Vec::new();
        let mut wanted = Vec::new();
        let count = job.clips.len();
        for (index, clip) in job.clips.iter().enumerate() {
            if let Some(existing) = observer.existing_clip(index) {
                reused.push((index, existing));
                continue;
            }
            wanted.push(index);
            requests.push(FetchRequest {
                url: clip.image_url.clone(),
                class: MediaClass::Image,
                stem: format!("image-{index:03}"),
                field: format!("image_inputs[{index}].image_url"),
            });
        }
        if let Some(url) = &job.audio_url {
            requests.push(music_request(url));
        }
        let total = requests.len().max(1) as f64;
        let mut fetched = self
            .fetcher
            .fetch_all(&requests, work_dir, &mut |n| {
                bar.report(progress::FETCH_SHARE * 0.5 * n as f64 / total);
            })
            .await
            .map_err(|(i, error)| JobFailure::Media {
                field: requests[i].field.clone(),
                error,
            })?;
        let music = job
            .audio_url
            .as_ref()
            .and_then(|_| fetched.pop())
            .map(|m| MusicInput {
                path: m.path,
                format: m.format,
            });
        let mut tasks = Vec::new();
        for (done, (index, media)) in wanted.into_iter().zip(fetched).enumerate() {
            let clip = &job.clips[index];
            let key = format!("{}/clip-{index:03}.mp4", job.key_prefix);
            let upright = media.upright_dimensions().unwrap_or(frame);
            let motion =
                resolve_motion(clip.camera_motion, job.engine, upright, frame, media.digest);
            let plan = ClipPlan::new(job.orientation, job.resolution, job.engine, motion);
            let effect = match &clip.effect {
                Some(stage) => Some(stage.filter(&command::clip_context(&plan, index)).map_err(
                    |message| RenderError::Effect {
                        step: Step::Clip(index),
                        message,
                    },
                )?),
                None => None,
            };
            let generative = clip.effect.as_ref().and_then(|s| s.generative());
            let source = match generative {
                Some(vfx) => self.generate(vfx, &media, index, &plan, work_dir).await?,
                None => ClipSource::Still(StillInput {
                    path: media.path,
                    format: media.format,
                    orientation: media.orientation,
                }),
            };
            tasks.push(ClipTask {
                index,
                plan,
                source,
                effect,
                key,
            });
            // The second half of the fetch share: provider calls, when there are any.
            bar.report(progress::FETCH_SHARE * (0.5 + 0.5 * (done + 1) as f64 / total));
        }
        bar.report(progress::FETCH_SHARE);

        // Clips stored by an earlier attempt are linked into the work dir, not re-rendered.
        let mut clips = Vec::new();
        for (index, key) in reused {
            let local = work_dir.join(clip_name(index));
            crate::storage::get_async(&self.storage, &key, &local)
                .await
                .map_err(|e| RenderError::Io {
                    step: Step::Clip(index),
                    message: e.to_string(),
                })?;
            let url_path = self.storage.url_path(&key);
            clips.push(StoredClip {
                index,
                key,
                url_path,
                motion: None,
                seconds: clip_seconds(),
            });
        }

        let total_frames: u64 = (count as u64) * u64::from(clip_frames());
        let done_before: u64 = (clips.len() as u64) * u64::from(clip_frames());
        let (tx, mut rx) = mpsc::unbounded_channel::<Note>();
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg runs below.
        let _give_up = runner.cancel.on_drop();
        let storage = Arc::clone(&self.storage);
        let parallelism = self.config.clip_parallelism.max(1);
        let encoding = self.config.encoding.clone();
        let dir = work_dir.to_path_buf();
        let mut handle = tokio::task::spawn_blocking(move || {
            render_clips(tasks, &runner, &*storage, &encoding, &dir, parallelism, &tx)
        });
        let mut frames_done = done_before;
        let rendered = loop {
            tokio::select! {
                Some(note) = rx.recv() => match note {
                    Note::Frames(n) => {
                        frames_done += n;
                        bar.report(progress::clip_phase(frames_done, total_frames));
                    }
                    Note::Stored(clip) => observer.clip_stored(&clip),
                },
                result = &mut handle => break result,
            }
        };
        // Deliver notes sent just before the thread finished.
        while let Ok(note) = rx.try_recv() {
            if let Note::Stored(clip) = note {
                observer.clip_stored(&clip);
            }
        }
        let rendered = rendered.map_err(|e| RenderError::Io {
            step: Step::Prepare,
            message: e.to_string(),
        })??;
        clips.extend(rendered);
        clips.sort_by_key(|c| c.index);
        bar.report(progress::clip_phase(total_frames, total_frames));

        let names: Vec<String> = (0..count).map(clip_name).collect();
        let key = format!("{}/video.mp4", job.key_prefix);
        let video = self
            .stitch(
                Step::Stitch,
                &names,
                music,
                work_dir,
                &key,
                &bar,
                progress::clip_phase(total_frames, total_frames),
            )
            .await?;
        bar.report(100.0);
        Ok(StoredVideo { clips, ..video })
    }

    /// Joins stored clips (and music) into a new video.
    pub async fn combine(
        &self,
        job: &CombineJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<StoredVideo, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir)?;
        let mut names = Vec::new();
        for (index, key) in job.clip_keys.iter().enumerate() {
            let name = clip_name(index);
            crate::storage::get_async(&self.storage, key, &work_dir.join(&name))
                .await
                .map_err(|e| RenderError::Io {
                    step: Step::Combine,
                    message: e.to_string(),
                })?;
            names.push(name);
        }
        let music = self.fetch_music(job.audio_url.as_deref(), work_dir).await?;
        bar.report(progress::FETCH_SHARE);
        let key = format!("{}/video.mp4", job.key_prefix);
        let video = self
            .stitch(
                Step::Combine,
                &names,
                music,
                work_dir,
                &key,
                &bar,
                progress::FETCH_SHARE,
            )
            .await?;
        bar.report(100.0);
        Ok(video)
    }

    /// Sends clip `index`'s picture to the provider and keeps what it made in the work dir.
    async fn generate(
        &self,
        vfx: &stillreel_core::Vfx,
        media: &FetchedMedia,
        index: usize,
        plan: &ClipPlan,
        work_dir: &Path,
    ) -> Result<ClipSource, JobFailure> {
        let field = format!("image_inputs[{index}].vfx");
        let fail = |error: ProviderError| JobFailure::Provider {
            field: field.clone(),
            error,
        };
        let provider = self
            .provider
            .as_ref()
            .ok_or_else(|| fail(ProviderError::NotConfigured(vfx.kind())))?;
        let io = |e: std::io::Error| {
            JobFailure::Render(RenderError::Io {
                step: Step::Clip(index),
                message: e.to_string(),
            })
        };
        let bytes = tokio::fs::read(&media.path).await.map_err(io)?;
        let spec = OutputSpec {
            width: plan.width,
            height: plan.height,
            fps: plan.fps,
            seconds: stillreel_core::limits::CLIP_SECONDS,
        };
        let made = provider
            .process(vfx, &bytes, media.format, spec)
            .await
            .map_err(fail)?;
        match made {
            ProviderOutput::Image { bytes, format } => {
                let path = work_dir.join(format!("provider-{index:03}.{}", format.extension()));
                tokio::fs::write(&path, &bytes).await.map_err(io)?;
                Ok(ClipSource::Still(StillInput {
                    path,
                    format,
                    orientation: ExifOrientation::read(&bytes),
                }))
            }
            ProviderOutput::Clip { bytes } => {
                let path = work_dir.join(format!("provider-{index:03}.mp4"));
                tokio::fs::write(&path, &bytes).await.map_err(io)?;
                Ok(ClipSource::Video(path))
            }
        }
    }

    async fn fetch_music(
        &self,
        url: Option<&str>,
        dir: &Path,
    ) -> Result<Option<MusicInput>, JobFailure> {
        let Some(url) = url else { return Ok(None) };
        let request = music_request(url);
        let media = self
            .fetcher
            .fetch_as(url, request.class, dir, &request.stem, &request.field)
            .await
            .map_err(|error| JobFailure::Media {
                field: request.field,
                error,
            })?;
        Ok(Some(MusicInput {
            path: media.path,
            format: media.format,
        }))
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one private call site per job kind"
    )]
    async fn stitch(
        &self,
        step: Step,
        names: &[String],
        music: Option<MusicInput>,
        work_dir: &Path,
        key: &str,
        bar: &Progress<'_>,
        from_percent: f64,
    ) -> Result<StoredVideo, JobFailure> {
        let list =
            command::concat_list(names).map_err(|message| RenderError::Io { step, message })?;
        let list_path = work_dir.join("clips.ffconcat");
        std::fs::write(&list_path, list).map_err(|e| RenderError::Io {
            step,
            message: e.to_string(),
        })?;
        let total_frames = names.len() as u32 * clip_frames();
        let output = work_dir.join("video.mp4");
        let cmd = command::stitch_command(
            Path::new("clips.ffconcat"),
            total_frames,
            stillreel_core::limits::FPS,
            music.as_ref(),
            Path::new("video.mp4"),
        );
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg runs below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        let (tx, rx) = std_mpsc::channel::<u32>();
        let handle = tokio::task::spawn_blocking(move || {
            runner.run(step, &cmd, &dir, &mut |f| {
                let _ = tx.send(f);
            })
        });
        let result = loop {
            if handle.is_finished() {
                break handle.await;
            }
            while let Ok(frames) = rx.try_recv() {
                let share = f64::from(frames) / f64::from(total_frames.max(1));
                bar.report(from_percent + (100.0 - from_percent) * share * 0.99);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        result.map_err(|e| RenderError::Io {
            step,
            message: e.to_string(),
        })??;
        let storage = Arc::clone(&self.storage);
        let key_owned = key.to_owned();
        let url_path = tokio::task::spawn_blocking(move || storage.put(&output, &key_owned))
            .await
            .map_err(|e| RenderError::Io {
                step: Step::Store,
                message: e.to_string(),
            })?
            .map_err(|e| RenderError::Io {
                step: Step::Store,
                message: e.to_string(),
            })?;
        Ok(StoredVideo {
            key: key.to_owned(),
            url_path,
            seconds: f64::from(total_frames) / f64::from(stillreel_core::limits::FPS),
            clips: Vec::new(),
        })
    }
}

fn music_request(url: &str) -> FetchRequest {
    FetchRequest {
        url: url.to_owned(),
        class: MediaClass::Audio,
        stem: "music".to_owned(),
        field: "audio_url".to_owned(),
    }
}

fn clip_frames() -> u32 {
    stillreel_core::limits::CLIP_SECONDS * stillreel_core::limits::FPS
}

fn clip_seconds() -> f64 {
    f64::from(stillreel_core::limits::CLIP_SECONDS)
}

/// Name of clip `index` in the work dir: what the concat list refers to.
fn clip_name(index: usize) -> String {
    format!("clip-{index:03}.mp4")
}

fn make_dir(dir: &Path) -> Result<(), JobFailure> {
    std::fs::create_dir_all(dir).map_err(|e| {
        JobFailure::Render(RenderError::Io {
            step: Step::Prepare,
            message: e.to_string(),
        })
    })
}

/// Renders and stores clips on this (blocking) thread, `parallelism` at a time.
fn render_clips(
    tasks: Vec<ClipTask>,
    runner: &Runner,
    storage: &dyn Storage,
    encoding: &Encoding,
    dir: &Path,
    parallelism: usize,
    tx: &mpsc::UnboundedSender<Note>,
) -> Result<Vec<StoredClip>, RenderError> {
    let next = AtomicU64::new(0);
    let tasks = &tasks;
    let results: Vec<Result<Vec<StoredClip>, RenderError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..parallelism.min(tasks.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst) as usize;
                        let Some(task) = tasks.get(i) else { break };
                        done.push(render_one(task, runner, storage, encoding, dir, tx)?);
                    }
                    Ok(done)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(RenderError::Io {
                        step: Step::Prepare,
                        message: "render thread panicked".to_owned(),
                    })
                })
            })
            .collect()
    });
    let mut clips = Vec::new();
    for result in results {
        clips.extend(result?);
    }
    Ok(clips)
}

fn render_one(
    task: &ClipTask,
    runner: &Runner,
    storage: &dyn Storage,
    encoding: &Encoding,
    dir: &Path,
    tx: &mpsc::UnboundedSender<Note>,
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
    let mut last = 0u32;
    runner.run(step, &cmd, dir, &mut |frames| {
        let _ = tx.send(Note::Frames(u64::from(frames - last)));
        last = frames;
    })?;
    // Keep a link for the concat list; storage may move the rendered file away.
    let local = dir.join(&rendered);
    let linked = dir.join(clip_name(task.index));
    let _ = std::fs::remove_file(&linked);
    if std::fs::hard_link(&local, &linked).is_err() {
        std::fs::copy(&local, &linked).map_err(|e| RenderError::Io {
            step,
            message: e.to_string(),
        })?;
    }
    let url_path = storage
        .put(&local, &task.key)
        .map_err(|e| RenderError::Io {
            step: Step::Store,
            message: e.to_string(),
        })?;
    let clip = StoredClip {
        index: task.index,
        key: task.key.clone(),
        url_path,
        motion: Some(task.plan.motion),
        seconds: task.plan.seconds(),
    };
    let _ = tx.send(Note::Stored(clip.clone()));
    Ok(clip)
}
