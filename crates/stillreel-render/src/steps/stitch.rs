//! The stitch step: stored clips joined by stream copy in the order given, with the music or
//! silence mixed once over the whole video ([`StitchPlan`]). Combine uses the same join. A
//! blended transition first encodes its seams ([`crate::plan::transition`]) and copies the rest;
//! clips whose keyframes or parameter sets do not allow that are blended in one re-encode.

use std::path::Path;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use stillreel_core::Transition;

use super::StitchJob;
use crate::failure::JobFailure;
use crate::failure::blame::{Suspect, blame_async};
use crate::ffmpeg::blocking::run_blocking;
use crate::ffmpeg::command::{self, FfmpegArgs, MusicInput};
use crate::ffmpeg::runner::Step;
use crate::ffmpeg::runner::io_error;
use crate::job::StoredVideo;
use crate::media::keyframes::{self, VideoFacts};
use crate::media::probe::check_finished;
use crate::observer::RenderObserver;
use crate::observer::progress::Progress;
use crate::plan::sound::AheadSound;
use crate::plan::transition::{self, SeamPlan};
use crate::plan::video_plan::StitchPlan;
use crate::renderer::Renderer;
use crate::store::files::{get, make_dir, put, relative};

impl Renderer {
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
            get(&self.storage, key, &work_dir.join(&name), Step::Stitch).await?;
            names.push(name);
        }
        let music = match &job.music {
            Some(stored) => {
                let path = work_dir.join(format!("music.{}", stored.format.extension()));
                get(&self.storage, &stored.key, &path, Step::Stitch).await?;
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
        let ahead = match (&job.branded_sound, &music) {
            (Some(ahead), Some(music)) => Some(self.branded_sound(ahead, music, work_dir)),
            (Some(ahead), None) => {
                // A silent video: nothing to make ahead, and nothing an earlier render of the
                // same key left may be taken for this video's sound.
                let storage = std::sync::Arc::clone(&self.storage);
                let stale = ahead.key.clone();
                let _ = tokio::task::spawn_blocking(move || storage.delete(&stale)).await;
                None
            }
            (None, _) => None,
        };
        let stitch = self.stitch(
            Step::Stitch,
            &names,
            job.transition,
            music.clone(),
            work_dir,
            &key,
            &bar,
            0.0,
        );
        // The branded sound runs beside the join: the join's audio chain holds one core.
        let (video, ()) = match ahead {
            Some(ahead) => tokio::join!(stitch, ahead),
            None => (stitch.await, ()),
        };
        // The clips are ours; the music is the one input of the user's a failed join read.
        let suspects: Vec<Suspect> = music
            .iter()
            .map(|m| Suspect::music("audio_url", &m.path, m.format))
            .collect();
        let video = match video {
            Ok(video) => video,
            Err(e) => {
                return Err(blame_async(&self.config.ffmpeg, work_dir, suspects, e).await);
            }
        };
        self.poster(Step::Stitch, job.clip_keys.first(), work_dir, &key)
            .await?;
        bar.report(100.0);
        Ok(video)
    }

    /// Makes the branded render's sound from the video's `music` and stores it at
    /// `ahead.key`. Best effort: the main video does not depend on it, and without it the
    /// branded render makes the sound itself, so a failure is only logged.
    async fn branded_sound(&self, ahead: &AheadSound, music: &MusicInput, work_dir: &Path) {
        let name = "branded-sound.m4a";
        let music = MusicInput {
            path: relative(work_dir, &music.path),
            format: music.format,
        };
        let cmd = crate::plan::sound::sound_command(&ahead.sound, Some(&music), Path::new(name));
        let quiet = Progress::new(&|_| {});
        let made = match self
            .stitch_run(Step::Stitch, cmd, work_dir, &quiet, (0.0, 0.0))
            .await
        {
            Ok(()) => put(&self.storage, work_dir.join(name), ahead.key.clone())
                .await
                .map(|_| ())
                .map_err(JobFailure::from),
            Err(e) => Err(e),
        };
        if let Err(e) = made {
            tracing::warn!(error = %e, "the branded sound was not made ahead; the branded render will make it");
        }
    }

    /// Stores the poster of the video stored at `key` (in `work_dir` as `video.mp4` until
    /// stored): a copy of its first clip's thumbnail, or, for a clip rendered before
    /// thumbnails existed, the video's first frame (one frame decoded).
    pub(crate) async fn poster(
        &self,
        step: Step,
        first_clip: Option<&String>,
        work_dir: &Path,
        key: &str,
    ) -> Result<(), JobFailure> {
        let local = work_dir.join("poster.jpg");
        let poster_key = crate::store::storage::still_key(key);
        if let Some(clip) = first_clip
            && get(
                &self.storage,
                &crate::store::storage::still_key(clip),
                &local,
                step,
            )
            .await
            .is_ok()
        {
            put(&self.storage, local, poster_key).await?;
            return Ok(());
        }
        let part = work_dir.join("part-000.mp4");
        let clip = work_dir.join("clip-000.mp4");
        let source = if part.is_file() { part } else { clip };
        let cmd = command::first_frame_still_command(
            Path::new(source.file_name().unwrap_or_default()),
            Path::new("poster.jpg"),
        );
        let runner = self.runner();
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        run_blocking(
            step,
            move |frames| runner.run(step, &cmd, &dir, frames),
            |_| {},
        )
        .await?;
        put(&self.storage, local, poster_key).await?;
        Ok(())
    }

    /// Joins the clips `names` (files in `work_dir`) meeting by `transition`, with `music`,
    /// and stores the result under `key`; progress goes on `bar` from `from_percent` to
    /// (almost) 100.
    #[expect(
        clippy::too_many_arguments,
        reason = "one private call site per job kind"
    )]
    pub(crate) async fn stitch(
        &self,
        step: Step,
        names: &[String],
        transition: Transition,
        music: Option<MusicInput>,
        work_dir: &Path,
        key: &str,
        bar: &Progress<'_>,
        from_percent: f64,
    ) -> Result<StoredVideo, JobFailure> {
        let plan = StitchPlan::standard(names.len(), music.is_some()).with_transition(transition);
        let mut from_percent = from_percent;
        let entries = if plan.overlap() > 0 && names.len() > 1 {
            let seams_end = from_percent + (100.0 - from_percent) * 0.8;
            let entries = self
                .blend(step, &plan, names, work_dir, bar, (from_percent, seams_end))
                .await?;
            from_percent = seams_end;
            entries
        } else {
            names
                .iter()
                .map(|n| command::ConcatEntry::whole(n))
                .collect()
        };
        let list = command::concat_list_from(&entries).map_err(|e| io_error(step, e))?;
        std::fs::write(work_dir.join("clips.ffconcat"), list).map_err(|e| io_error(step, e))?;
        // ffmpeg runs in `work_dir`: the music is named from there, like the clips, so a path
        // relative to the server's own folder cannot reach it.
        let music = music.map(|m| MusicInput {
            path: relative(work_dir, &m.path),
            format: m.format,
        });
        let cmd = plan.command(
            Path::new("clips.ffconcat"),
            music.as_ref(),
            Path::new("video.mp4"),
        );
        self.stitch_run(step, cmd, work_dir, bar, (from_percent, 99.0))
            .await?;
        let finished = work_dir.join("video.mp4");
        check_finished(&self.config.ffmpeg, finished.clone(), step).await?;
        let url_path = put(&self.storage, finished, key.to_owned()).await?;
        Ok(StoredVideo {
            key: key.to_owned(),
            url_path,
            seconds: plan.seconds(),
            clips: Vec::new(),
        })
    }

    /// Encodes the seams of a blended transition and answers the concat list that copies the
    /// rest; when the clips' keyframes or parameter sets do not allow it, the whole video
    /// blended in one re-encode (`blended.mp4`) instead. The seams are encoded in batches
    /// ([`SeamPlan::batches`]; one for clips that share their parameter sets, as a video's
    /// clips do), each one ffmpeg run into `seams-NNN.mp4` whose facts are read once;
    /// batches run `clip_parallelism` at a time.
    async fn blend(
        &self,
        step: Step,
        plan: &StitchPlan,
        names: &[String],
        work_dir: &Path,
        bar: &Progress<'_>,
        span: (f64, f64),
    ) -> Result<Vec<command::ConcatEntry>, JobFailure> {
        let parallel = self.config.clip_parallelism.max(1);
        // Collected first: a stream over a closure taking `&String` would make this future
        // not `Send` (the worker spawns it).
        let probes: Vec<_> = names
            .iter()
            .map(|name| self.video_facts(step, work_dir, name))
            .collect();
        let facts: Vec<VideoFacts> = stream::iter(probes)
            .buffered(parallel)
            .try_collect()
            .await?;
        let clip_frames = vec![plan.clip_frames; names.len()];
        let size = match facts.first() {
            Some(f) if f.size.0 > 0 && f.size.1 > 0 => f.size,
            _ => self.clip_size(step, work_dir, &names[0]).await?,
        };
        let encoding = &self.config.encoding;
        if let Some(seams) = SeamPlan::new(plan.transition, plan.fps, &clip_frames, &facts) {
            let batches = seams.batches(&facts);
            let total: u32 = (0..seams.seams.len()).map(|j| seams.seam_frames(j)).sum();
            let mut at = span.0;
            let mut runs = Vec::with_capacity(batches.len());
            for (b, batch) in batches.iter().enumerate() {
                let frames: u32 = batch.clone().map(|j| seams.seam_frames(j)).sum();
                let part = (span.1 - span.0) * f64::from(frames) / f64::from(total.max(1));
                let (tails, heads) = (
                    format!("tails-{b:03}.ffconcat"),
                    format!("heads-{b:03}.ffconcat"),
                );
                for (list, entries) in [
                    (&tails, seams.tail_entries(names, batch.clone())),
                    (&heads, seams.head_entries(names, batch.clone())),
                ] {
                    let text =
                        command::concat_list_from(&entries).map_err(|e| io_error(step, e))?;
                    std::fs::write(work_dir.join(list), text).map_err(|e| io_error(step, e))?;
                }
                let name = format!("seams-{b:03}.mp4");
                let left = &facts[batch.start];
                let cmd = transition::seams_command(
                    &seams,
                    batch.clone(),
                    (Path::new(&tails), Path::new(&heads)),
                    size,
                    (encoding, &left.color_args),
                    Path::new(&name),
                );
                let from = at;
                at += part;
                let seams = &seams;
                let batch = batch.clone();
                runs.push(async move {
                    self.stitch_run(step, cmd, work_dir, bar, (from, from + part))
                        .await?;
                    let made = self.video_facts(step, work_dir, &name).await?;
                    // The file must carry its left clips' parameter sets to be copied beside
                    // them (clips differ among themselves only in their colour description,
                    // as in any stitch: the video keeps the first clip's), and a keyframe
                    // where each seam starts.
                    Ok::<_, JobFailure>(
                        made.same_parameter_sets(left)
                            .then(|| seams.seam_entries(batch, &name, &made))
                            .flatten(),
                    )
                });
            }
            let made: Vec<Option<Vec<command::ConcatEntry>>> =
                stream::iter(runs).buffered(parallel).try_collect().await?;
            if let Some(parts) = made.into_iter().collect::<Option<Vec<_>>>() {
                let parts: Vec<command::ConcatEntry> = parts.into_iter().flatten().collect();
                return Ok(seams.entries(names, &parts));
            }
        }
        let cmd = transition::blend_all_command(
            plan.transition,
            plan.fps,
            &clip_frames,
            names,
            size,
            encoding,
            Path::new("blended.mp4"),
        );
        self.stitch_run(step, cmd, work_dir, bar, span).await?;
        Ok(vec![command::ConcatEntry::whole("blended.mp4")])
    }

    /// ffprobe's keyframes and parameter sets of `name` in `work_dir`.
    async fn video_facts(
        &self,
        step: Step,
        work_dir: &Path,
        name: &str,
    ) -> Result<VideoFacts, JobFailure> {
        let ffprobe = crate::media::probe::ffprobe_beside(&self.config.ffmpeg);
        let dir = work_dir.to_path_buf();
        let name = name.to_owned();
        let facts = tokio::task::spawn_blocking(move || {
            keyframes::probe_facts(&ffprobe, &dir, &name, step)
        })
        .await
        .map_err(|e| io_error(step, e))??;
        Ok(facts)
    }

    /// The frame size of the clip `name` (every clip of a video has the same).
    async fn clip_size(
        &self,
        step: Step,
        work_dir: &Path,
        name: &str,
    ) -> Result<(u32, u32), JobFailure> {
        let ffprobe = crate::media::probe::ffprobe_beside(&self.config.ffmpeg);
        let path = work_dir.join(name);
        let facts = tokio::task::spawn_blocking(move || {
            crate::media::probe::run_ffprobe(&ffprobe, &path, step)
        })
        .await
        .map_err(|e| io_error(step, e))??;
        Ok((facts.width, facts.height))
    }

    /// Runs one ffmpeg command of the stitch, its progress from `span.0` to `span.1`.
    async fn stitch_run(
        &self,
        step: Step,
        cmd: FfmpegArgs,
        work_dir: &Path,
        bar: &Progress<'_>,
        span: (f64, f64),
    ) -> Result<(), JobFailure> {
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg run below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        let total = f64::from(cmd.planned_frames.max(1));
        run_blocking(
            step,
            move |frames| runner.run(step, &cmd, &dir, frames),
            |frames| bar.report(span.0 + (span.1 - span.0) * f64::from(frames) / total),
        )
        .await?;
        Ok(())
    }
}
