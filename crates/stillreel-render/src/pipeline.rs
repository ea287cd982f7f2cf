//! The renderer, and a whole video in one process: [`Renderer::render_video`] runs the steps
//! of the job graph ([`crate::steps`]: prepare, the clips, stitch) in a row, clips in parallel
//! up to [`RenderConfig::clip_parallelism`]. The server runs the same steps as separate jobs.
//!
//! Downloads run on the async runtime; ffmpeg runs on blocking threads, reporting back over a
//! channel so the observer is only ever called from the job's own task.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};

use crate::command::{self, Encoding, MusicInput, StillInput};
use crate::effect::EffectStage;
use crate::failure::JobFailure;
use crate::fetch::{ExifOrientation, FetchRequest, FetchedMedia, Fetcher, MediaClass};
use crate::plan::{ClipPlan, Motion};
use crate::progress::{self, Progress};
use crate::provider::{OutputSpec, Provider, ProviderError, ProviderOutput};
use crate::runner::Runner;
use crate::runner::{RenderError, Step};
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
pub(crate) enum ClipSource {
    /// A still (the fetched picture, or the provider's processed one).
    Still(StillInput),
    /// A clip made by the generative provider (MP4 in the work dir).
    Video(PathBuf),
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

    /// Renders `job` in `work_dir` (created if missing; the caller removes it afterwards):
    /// the graph's steps in a row in this process. Clips an earlier attempt stored
    /// ([`RenderObserver::existing_clip`]) are reused, not fetched or rendered again.
    pub async fn render_video(
        &self,
        job: &VideoJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<StoredVideo, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir)?;
        let count = job.clips.len();
        let mut keys: Vec<Option<String>> = (0..count).map(|i| observer.existing_clip(i)).collect();
        let images: Vec<(usize, String)> = job
            .clips
            .iter()
            .enumerate()
            .filter(|(i, _)| keys[*i].is_none())
            .map(|(i, clip)| (i, clip.image_url.clone()))
            .collect();
        let prepared = self
            .prepare(
                &crate::steps::PrepareJob {
                    key_prefix: job.key_prefix.clone(),
                    images,
                    audio_url: job.audio_url.clone(),
                },
                &work_dir.join("prepare"),
                &Share {
                    bar: &bar,
                    from: 0.0,
                    span: progress::FETCH_SHARE,
                },
            )
            .await?;

        // Per-clip progress; the bar shows their mean over the clip phase.
        let per_clip: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(
            keys.iter()
                .map(|k| if k.is_some() { 100 } else { 0 })
                .collect(),
        );
        let clip_jobs: Vec<crate::steps::ClipJob> = prepared
            .inputs
            .iter()
            .map(|input| {
                let clip = &job.clips[input.index];
                crate::steps::ClipJob {
                    key_prefix: job.key_prefix.clone(),
                    index: input.index,
                    token: None,
                    input: input.clone(),
                    camera_motion: clip.camera_motion,
                    effect: clip.effect.clone(),
                    orientation: job.orientation,
                    resolution: job.resolution,
                    engine: job.engine,
                }
            })
            .collect();
        let parallelism = self.config.clip_parallelism.max(1);
        let mut rendered = Vec::new();
        {
            use futures_util::stream::{self, StreamExt};
            let mut runs = stream::iter(clip_jobs.iter().map(|clip| {
                let share = ClipShare {
                    bar: &bar,
                    per_clip: &per_clip,
                    index: clip.index,
                };
                let dir = work_dir.join(format!("clip-{:03}", clip.index));
                async move { self.render_clip(clip, &dir, &share).await }
            }))
            .buffer_unordered(parallelism);
            while let Some(result) = runs.next().await {
                let clip = result?;
                observer.clip_stored(&clip);
                rendered.push(clip);
            }
        }
        let mut clips = Vec::with_capacity(count);
        for (index, key) in keys.iter().enumerate() {
            if let Some(key) = key {
                clips.push(StoredClip {
                    index,
                    key: key.clone(),
                    url_path: self.storage.url_path(key),
                    motion: None,
                    seconds: clip_seconds(),
                });
            }
        }
        for clip in rendered {
            keys[clip.index] = Some(clip.key.clone());
            clips.push(clip);
        }
        clips.sort_by_key(|c| c.index);
        let clip_keys = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                k.ok_or_else(|| {
                    JobFailure::Render(RenderError::Io {
                        step: Step::Clip(i),
                        message: "clip missing after rendering".to_owned(),
                    })
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let from = progress::clip_phase(1, 1);
        let video = self
            .stitch_clips(
                &crate::steps::StitchJob {
                    key_prefix: job.key_prefix.clone(),
                    token: None,
                    clip_keys,
                    music: prepared.music.clone(),
                },
                &work_dir.join("stitch"),
                &Share {
                    bar: &bar,
                    from,
                    span: 100.0 - from,
                },
            )
            .await?;
        // Prepare's checked copies are read by nothing once the video is stitched.
        let leftovers: Vec<String> = prepared
            .inputs
            .iter()
            .map(|i| i.key.clone())
            .chain(prepared.music.map(|m| m.key))
            .collect();
        let storage = Arc::clone(&self.storage);
        let _ = tokio::task::spawn_blocking(move || {
            for key in leftovers {
                let _ = storage.delete(&key);
            }
        })
        .await;
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
    pub(crate) async fn generate(
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
    pub(crate) async fn stitch(
        &self,
        step: Step,
        names: &[String],
        music: Option<MusicInput>,
        work_dir: &Path,
        key: &str,
        bar: &Progress<'_>,
        from_percent: f64,
    ) -> Result<StoredVideo, JobFailure> {
        let list = command::concat_list(names).map_err(|e| RenderError::Io {
            step,
            message: e.to_string(),
        })?;
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

pub(crate) fn music_request(url: &str) -> FetchRequest {
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

/// Maps one step's progress (0 to 100) onto `span` percent of the bar, from `from`.
struct Share<'a> {
    bar: &'a Progress<'a>,
    from: f64,
    span: f64,
}

impl RenderObserver for Share<'_> {
    fn progress(&self, percent: u8) {
        self.bar
            .report(self.from + self.span * f64::from(percent) / 100.0);
    }
}

/// One clip's progress: the bar shows the mean of all clips over the clip phase.
struct ClipShare<'a> {
    bar: &'a Progress<'a>,
    per_clip: &'a std::sync::Mutex<Vec<u8>>,
    index: usize,
}

impl RenderObserver for ClipShare<'_> {
    fn progress(&self, percent: u8) {
        let mut all = self
            .per_clip
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(slot) = all.get_mut(self.index) {
            *slot = (*slot).max(percent);
        }
        let done: u64 = all.iter().map(|p| u64::from(*p)).sum();
        let total = 100 * all.len() as u64;
        drop(all);
        self.bar.report(progress::clip_phase(done, total));
    }
}
