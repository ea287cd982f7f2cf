//! A whole video in one process: [`Renderer::render_video`] runs the steps of the job graph
//! ([`crate::steps`]: prepare, the clips, stitch) in a row, clips in parallel up to
//! [`crate::RenderConfig::clip_parallelism`]; [`Renderer::combine`] joins stored clips. The
//! server runs the same steps as separate jobs.

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::stream::{self, StreamExt};

use crate::failure::blame::{self, Suspect, blame_async};
use crate::failure::{InputFault, JobFailure};
use crate::ffmpeg::runner::{RenderError, Step};
use crate::job::{CombineJob, StoredClip, StoredVideo, VideoJob};
use crate::observer::progress::{self, Progress};
use crate::observer::{ClipShare, RenderObserver, Share};
use crate::renderer::Renderer;
use crate::steps::{ClipJob, PrepareJob, StitchJob, music_request};
use crate::store::files::{get, make_dir};

impl Renderer {
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
        make_dir(work_dir, Step::Prepare)?;
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
                &PrepareJob {
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
        let per_clip: Mutex<Vec<u8>> = Mutex::new(
            keys.iter()
                .map(|k| if k.is_some() { 100 } else { 0 })
                .collect(),
        );
        let clip_jobs: Vec<ClipJob> = prepared
            .inputs
            .iter()
            .map(|input| {
                let clip = &job.clips[input.index];
                ClipJob {
                    key_prefix: job.key_prefix.clone(),
                    index: input.index,
                    token: None,
                    input: input.clone(),
                    camera_motion: clip.camera_motion,
                    effect: clip.effect.clone(),
                    orientation: job.orientation,
                    resolution: job.resolution,
                    engine: job.engine,
                    depth: clip.depth.clone(),
                    depth_note: None,
                    pace: job.pace,
                    usage: crate::ffmpeg::clip_keys::ClipUse {
                        transition: job.transition,
                        branded_intro: job.branded_intro,
                        // Clips are paced through their ends only for the ramp.
                        ramp: job.pace == stillreel_camera::geometry::clip_plan::Pace::Through,
                    },
                    // The one-process path has no captions; its photos fill the frame `auto`.
                    look: crate::steps::ClipLook::default(),
                }
            })
            .collect();
        let parallelism = self.config.clip_parallelism.max(1);
        let mut rendered = Vec::new();
        {
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
                    seconds: f64::from(stillreel_core::limits::CLIP_SECONDS),
                    depth_fallback: None,
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
                &StitchJob {
                    key_prefix: job.key_prefix.clone(),
                    token: None,
                    clip_keys,
                    music: prepared.music.clone(),
                    transition: job.transition,
                    branded_sound: job.branded_sound.clone(),
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
        make_dir(work_dir, Step::Prepare)?;
        let mut names = Vec::new();
        let mut suspects = Vec::new();
        for (index, key) in job.clip_keys.iter().enumerate() {
            let name = format!("clip-{index:03}.mp4");
            let field = format!("video_clip_uuids[{index}]");
            let suspect = Suspect::video(field, InputFault::Clip, &name);
            if let Err(e) = get(&self.storage, key, &work_dir.join(&name), Step::Combine).await {
                // A file that is not there is the clip's fault, for good; a store that did
                // not answer is ours, and retried.
                return Err(match self.stored_size(key).await {
                    Ok(None) => blame::input_failure(&suspect, "its stored file is gone", e),
                    _ => e.into(),
                });
            }
            // A clip ffmpeg cannot open is skipped by the join, which still succeeds: the
            // combined video would silently lack it.
            self.check_clip(&suspect, work_dir).await?;
            names.push(name);
            suspects.push(suspect);
        }
        let music = match job.audio_url.as_deref() {
            Some(url) => {
                let request = music_request(url);
                let media = self
                    .fetcher
                    .fetch_as(url, request.class, work_dir, &request.stem, &request.field)
                    .await
                    .map_err(|error| JobFailure::Media {
                        field: request.field,
                        error,
                    })?;
                suspects.push(Suspect::music("audio_url", &media.path, media.format));
                Some(crate::ffmpeg::command::MusicInput {
                    path: media.path,
                    format: media.format,
                })
            }
            None => None,
        };
        bar.report(progress::FETCH_SHARE);
        let key = format!("{}/video.mp4", job.key_prefix);
        let joined = self
            .stitch(
                Step::Combine,
                &names,
                job.transition,
                music,
                work_dir,
                &key,
                &bar,
                progress::FETCH_SHARE,
            )
            .await;
        // Another video's clips and the music are what a combine reads of the user's.
        let video = match joined {
            Ok(video) => video,
            Err(e) => return Err(blame_async(&self.config.ffmpeg, work_dir, suspects, e).await),
        };
        self.poster(Step::Combine, job.clip_keys.first(), work_dir, &key)
            .await?;
        bar.report(100.0);
        Ok(video)
    }

    /// Fails unless the combined clip `suspect` (in `work_dir`) reads as a video: its MP4
    /// boxes read in process (a clip this service rendered), else ffprobe, whose failure names
    /// the clip.
    async fn check_clip(&self, suspect: &Suspect, work_dir: &Path) -> Result<(), JobFailure> {
        let ffprobe = crate::media::probe::ffprobe_beside(&self.config.ffmpeg);
        let path = work_dir.join(&suspect.path);
        let probed = tokio::task::spawn_blocking(move || {
            crate::media::probe::read_facts(&ffprobe, &path, Step::Combine)
        })
        .await
        .map_err(|e| JobFailure::Render(crate::ffmpeg::runner::io_error(Step::Combine, e)))?;
        match probed {
            Ok(_) => Ok(()),
            Err(e @ (RenderError::Spawn { .. } | RenderError::Cancelled { .. })) => Err(e.into()),
            Err(e) => {
                let reason = blame::reason_of(&e, &work_dir.join(&suspect.path));
                Err(blame::input_failure(suspect, &reason, e))
            }
        }
    }

    /// The size of stored `key`, `None` when it is not there.
    async fn stored_size(
        &self,
        key: &str,
    ) -> Result<Option<u64>, crate::store::storage::StorageError> {
        let (storage, key) = (Arc::clone(&self.storage), key.to_owned());
        tokio::task::spawn_blocking(move || storage.size(&key))
            .await
            .map_err(|e| crate::store::storage::StorageError(format!("storage task failed: {e}")))?
    }
}
