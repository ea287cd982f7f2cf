//! The stitch step: stored clips joined by stream copy in the order given, with the music or
//! silence mixed once over the whole video ([`StitchPlan`]). Combine uses the same join.

use std::path::Path;

use super::StitchJob;
use crate::blocking::run_blocking;
use crate::command::{self, MusicInput};
use crate::failure::JobFailure;
use crate::files::{get, io_error, make_dir, put};
use crate::job::StoredVideo;
use crate::observer::RenderObserver;
use crate::progress::Progress;
use crate::renderer::Renderer;
use crate::runner::Step;
use crate::video_plan::StitchPlan;

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
        let video = self
            .stitch(Step::Stitch, &names, music, work_dir, &key, &bar, 0.0)
            .await?;
        self.poster(Step::Stitch, job.clip_keys.first(), work_dir, &key)
            .await?;
        bar.report(100.0);
        Ok(video)
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
        let poster_key = crate::storage::still_key(key);
        if let Some(clip) = first_clip
            && get(
                &self.storage,
                &crate::storage::still_key(clip),
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

    /// Joins the clips `names` (files in `work_dir`) with `music` and stores the result under
    /// `key`; progress goes on `bar` from `from_percent` to (almost) 100.
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
        let plan = StitchPlan::standard(names.len(), music.is_some());
        let list = command::concat_list(names).map_err(|e| io_error(step, e))?;
        std::fs::write(work_dir.join("clips.ffconcat"), list).map_err(|e| io_error(step, e))?;
        let cmd = plan.command(
            Path::new("clips.ffconcat"),
            music.as_ref(),
            Path::new("video.mp4"),
        );
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg run below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        let total = f64::from(plan.total_frames().max(1));
        run_blocking(
            step,
            move |frames| runner.run(step, &cmd, &dir, frames),
            |frames| {
                let share = f64::from(frames) / total;
                bar.report(from_percent + (100.0 - from_percent) * share * 0.99);
            },
        )
        .await?;
        let url_path = put(&self.storage, work_dir.join("video.mp4"), key.to_owned()).await?;
        Ok(StoredVideo {
            key: key.to_owned(),
            url_path,
            seconds: plan.seconds(),
            clips: Vec::new(),
        })
    }
}
