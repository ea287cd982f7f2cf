//! The branded render's I/O: fetch the template images, the main video and the music, then
//! run the [`BrandPlan`] by stream copy: without the ramp only the intro's span and the outro
//! card are encoded (`copy.rs`), with it also the spans around each cut the ramp changes
//! (`ramp_copy.rs`). When the main video's keyframes or parameter sets do not allow a copy,
//! one decode and encode of the whole video does it.
//!
//! Over 400 lines on purpose: the fetches, the runs and the one place a failed run is blamed
//! on the user's input (`render_branded`) share the work directory's names and are read
//! together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stillreel_core::types::TemplateValue;
use stillreel_effects::template::{FieldValue, Frame, intro_overlay, outro_card};

use super::copy;
use super::plan::{
    BrandImage, BrandJob, BrandLayer, BrandMusic, BrandPlan, BrandSlot, BrandedVideo, brand_command,
};
use crate::failure::JobFailure;
use crate::failure::blame::{Suspect, blame_async, check_decodes};
use crate::ffmpeg::blocking::run_blocking;
use crate::ffmpeg::command::{ConcatEntry, FfmpegArgs, MusicInput};
use crate::ffmpeg::runner::io_error;
use crate::ffmpeg::runner::{RenderError, Step};
use crate::job::StoredVideo;
use crate::media::keyframes::{self, VideoFacts};
use crate::media::probe::check_finished;
use crate::observer::RenderObserver;
use crate::observer::progress::Progress;
use crate::renderer::Renderer;
use crate::store::files::{get, make_dir, put, relative};
use stillreel_core::media::{MediaClass, MediaFormat};

impl Renderer {
    /// Renders the branded copy of a finished video (`job.main_key` in storage) in `work_dir`
    /// (created if missing; the caller removes it). Template images are fetched like other
    /// media (field `branding.intro.config.<key>.url`). Budget: the intro's span (3 to 4 s),
    /// the outro card and, with the ramp, 1.2 s around each cut encoded, the rest copied; one
    /// decode and encode of the whole video when the main video's keyframes do not allow it.
    pub async fn render_branded(
        &self,
        job: &BrandJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
    ) -> Result<BrandedVideo, JobFailure> {
        let mut suspects = Vec::new();
        match self
            .branded_with(job, work_dir, observer, &mut suspects)
            .await
        {
            Ok(video) => Ok(video),
            // The template images and the music are the user's inputs the runs read.
            Err(e) => Err(blame_async(&self.config.ffmpeg, work_dir, suspects, e).await),
        }
    }

    /// [`Renderer::render_branded`], keeping in `suspects` each input of the user's it fetched.
    async fn branded_with(
        &self,
        job: &BrandJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
        suspects: &mut Vec<Suspect>,
    ) -> Result<BrandedVideo, JobFailure> {
        let sink = |v: u8| observer.progress(v);
        let bar = Progress::new(&sink);
        make_dir(work_dir, Step::Prepare)?;
        let (width, height) = job.resolution.dimensions(job.orientation);
        let frame = Frame {
            width,
            height,
            fps: stillreel_core::limits::FPS,
        };

        let intro = match &job.intro {
            Some(slot) => Some(
                self.brand_slot(slot, "intro", frame, work_dir, suspects)
                    .await?,
            ),
            None => None,
        };
        let outro = match &job.outro {
            Some(slot) => Some(
                self.brand_slot(slot, "outro", frame, work_dir, suspects)
                    .await?,
            ),
            None => None,
        };
        // The stitch made the sound ahead when it could (`sound.rs`); then the music is not
        // needed unless the one-pass render below must lay it itself.
        let sound_ready = match &job.sound_key {
            Some(key) => self.ahead_sound(key, work_dir).await,
            None => false,
        };
        let mut music = match sound_ready {
            true => None,
            false => self.brand_music(job.music.as_ref(), work_dir).await?,
        };
        suspects.extend(music.iter().map(music_suspect));
        get(
            &self.storage,
            &job.main_key,
            &work_dir.join("main.mp4"),
            Step::Brand,
        )
        .await?;
        bar.report(5.0);

        let plan = BrandPlan::new(&job.clip_frames, frame, job.ramp_visible(), intro, outro)
            .map_paths(|p| relative(work_dir, p));
        let relative_music = |m: MusicInput| MusicInput {
            path: relative(work_dir, &m.path),
            format: m.format,
        };
        let sound = (!sound_ready).then(|| music.clone().map(relative_music));
        let copied = match plan.ramp {
            Some(_) => {
                self.brand_ramped(&plan, sound.as_ref(), work_dir, &bar)
                    .await?
            }
            None => {
                self.brand_by_copy(&plan, sound.as_ref(), work_dir, &bar)
                    .await?
            }
        };
        if !copied {
            if sound_ready {
                music = self.brand_music(job.music.as_ref(), work_dir).await?;
                suspects.extend(music.iter().map(music_suspect));
            }
            let music = music.map(relative_music);
            let cmd = brand_command(
                &plan,
                Path::new("main.mp4"),
                music.as_ref(),
                &self.config.encoding,
                Path::new("branded.mp4"),
            )
            .map_err(effect_error)?;
            self.brand_run(cmd, work_dir, &bar, (5.0, 99.0)).await?;
        }

        let key = format!("{}/branded.mp4", job.key_prefix);
        let finished = work_dir.join("branded.mp4");
        check_finished(&self.config.ffmpeg, finished.clone(), Step::Brand).await?;
        let url_path = put(&self.storage, finished, key.clone()).await?;
        bar.report(100.0);
        Ok(BrandedVideo {
            video: StoredVideo {
                key,
                url_path,
                seconds: plan.seconds(),
                clips: Vec::new(),
            },
            speed_ramp: plan.ramp.is_some(),
        })
    }

    /// The copy path (`copy.rs`): `false` when the main video cannot be joined by copy (no
    /// keyframe after the intro, or parts whose parameter sets differ from the main video's),
    /// and the one-pass render must do it. `sound`: `None` when `sound.m4a` is already there
    /// (made ahead by the stitch), else the music to make it from (`Some(None)`: silence).
    async fn brand_by_copy(
        &self,
        plan: &BrandPlan,
        sound: Option<&Option<MusicInput>>,
        work_dir: &Path,
        bar: &Progress<'_>,
    ) -> Result<bool, JobFailure> {
        let main = self.brand_facts(work_dir, "main.mp4").await?;
        let Some(copy_plan) = plan.copy_plan(&main) else {
            return Ok(false);
        };
        let encoding = &self.config.encoding;
        let head = copy::head_command(
            plan,
            &copy_plan,
            Path::new("main.mp4"),
            encoding,
            &main.color_args,
            Path::new("head.mp4"),
        )
        .map_err(effect_error)?;
        let outro = copy::outro_command(plan, encoding, &main.color_args, Path::new("outro.mp4"))
            .map_err(effect_error)?;
        let sound = sound.map(|music| {
            crate::plan::sound::sound_command(&plan.sound(), music.as_ref(), Path::new("sound.m4a"))
        });
        let sound = async {
            match sound {
                Some(cmd) => self.brand_run(cmd, work_dir, bar, (5.0, 90.0)).await,
                None => Ok(()),
            }
        };
        // Head, outro and sound are independent: encoded at the same time, like clips.
        let (head_name, outro_name, ()) = tokio::try_join!(
            self.brand_part(head, "head.mp4", &main, work_dir, bar, (5.0, 90.0)),
            self.outro_part(plan, outro, &main, work_dir, bar, (5.0, 90.0)),
            sound,
        )?;
        let (Ok(head_name), Ok(outro_name)) = (head_name, outro_name) else {
            return Ok(false);
        };
        let entries = copy::join_entries(
            &copy_plan,
            head_name.as_deref(),
            "main.mp4",
            outro_name.as_deref(),
        );
        self.brand_join(plan, &entries, work_dir, bar).await?;
        Ok(true)
    }

    /// Writes the concat list of `entries` and copies it and the sound into `branded.mp4`.
    pub(super) async fn brand_join(
        &self,
        plan: &BrandPlan,
        entries: &[ConcatEntry],
        work_dir: &Path,
        bar: &Progress<'_>,
    ) -> Result<(), JobFailure> {
        let list = crate::ffmpeg::concat::concat_video_list_from(entries)
            .map_err(|e| io_error(Step::Brand, e))?;
        std::fs::write(work_dir.join("join.ffconcat"), list)
            .map_err(|e| io_error(Step::Brand, e))?;
        let join = copy::join_command(
            plan,
            Path::new("join.ffconcat"),
            Path::new("sound.m4a"),
            Path::new("branded.mp4"),
        );
        self.brand_run(join, work_dir, bar, (90.0, 99.0)).await
    }

    /// Encodes one part of the copied video; `Ok(Err(()))` when its parameter sets differ from
    /// the main video's (it would not join by copy). `Ok(Ok(None))`: no such part.
    pub(super) async fn brand_part(
        &self,
        cmd: Option<FfmpegArgs>,
        name: impl Into<String>,
        main: &VideoFacts,
        work_dir: &Path,
        bar: &Progress<'_>,
        span: (f64, f64),
    ) -> Result<Result<Option<String>, ()>, JobFailure> {
        let Some(cmd) = cmd else {
            return Ok(Ok(None));
        };
        let name = name.into();
        self.brand_run(cmd, work_dir, bar, span).await?;
        let facts = self.brand_facts(work_dir, &name).await?;
        Ok(if facts.same_parameter_sets(main) {
            Ok(Some(name))
        } else {
            Err(())
        })
    }

    /// Runs one ffmpeg command of the branded render, its progress from `span.0` to `span.1`.
    pub(super) async fn brand_run(
        &self,
        cmd: FfmpegArgs,
        work_dir: &Path,
        bar: &Progress<'_>,
        span: (f64, f64),
    ) -> Result<(), JobFailure> {
        let total = f64::from(cmd.planned_frames.max(1));
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg run below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        run_blocking(
            Step::Brand,
            move |frames| runner.run(Step::Brand, &cmd, &dir, frames),
            |frames| bar.report(span.0 + (span.1 - span.0) * f64::from(frames) / total),
        )
        .await?;
        Ok(())
    }

    /// ffprobe's keyframes and extradata of `name` in `work_dir`.
    pub(super) async fn brand_facts(
        &self,
        work_dir: &Path,
        name: &str,
    ) -> Result<VideoFacts, JobFailure> {
        let ffprobe = crate::media::probe::ffprobe_beside(&self.config.ffmpeg);
        let dir = work_dir.to_path_buf();
        let name = name.to_owned();
        let facts = tokio::task::spawn_blocking(move || {
            keyframes::probe_facts(&ffprobe, &dir, &name, Step::Brand)
        })
        .await
        .map_err(|e| io_error(Step::Brand, e))??;
        Ok(facts)
    }

    /// Fetches the branded sound the stitch made ahead (at `key`) into `sound.m4a`; `false`
    /// when there is none (a silent video, a video stitched before the stitch made it, or it
    /// failed there), and the branded render makes it.
    async fn ahead_sound(&self, key: &str, work_dir: &Path) -> bool {
        get(&self.storage, key, &work_dir.join("sound.m4a"), Step::Brand)
            .await
            .is_ok()
    }

    /// The video's music in the work directory, when it has some.
    async fn brand_music(
        &self,
        music: Option<&BrandMusic>,
        work_dir: &Path,
    ) -> Result<Option<MusicInput>, JobFailure> {
        Ok(match music {
            None => None,
            Some(BrandMusic::Stored(stored)) => {
                let path = work_dir.join(format!("music.{}", stored.format.extension()));
                get(&self.storage, &stored.key, &path, Step::Brand).await?;
                Some(MusicInput {
                    path,
                    format: stored.format,
                })
            }
            Some(BrandMusic::Url(url)) => {
                let field = "audio_url".to_owned();
                let media = self
                    .fetcher
                    .fetch_as(url, MediaClass::Audio, work_dir, "music", &field)
                    .await
                    .map_err(|error| JobFailure::Media { field, error })?;
                Some(MusicInput {
                    path: media.path,
                    format: media.format,
                })
            }
        })
    }

    /// Fetches a slot's images and builds its graph.
    async fn brand_slot(
        &self,
        slot: &BrandSlot,
        which: &str,
        frame: Frame,
        work_dir: &Path,
        suspects: &mut Vec<Suspect>,
    ) -> Result<BrandLayer, JobFailure> {
        let mut values = BTreeMap::new();
        let mut fetched = BTreeMap::new();
        for (key, value) in &slot.values {
            match value {
                TemplateValue::Text { value } => {
                    values.insert(key.clone(), FieldValue::Text(value.clone()));
                }
                TemplateValue::Image { url } => {
                    let field = format!("branding.{which}.config.{key}.url");
                    let safe: String = key
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .take(40)
                        .collect();
                    let media = self
                        .fetcher
                        .fetch_as(
                            url,
                            MediaClass::Image,
                            work_dir,
                            &format!("{which}-{safe}"),
                            &field,
                        )
                        .await
                        .map_err(|error| JobFailure::Media {
                            field: field.clone(),
                            error,
                        })?;
                    let suspect = Suspect::picture(field, &media.path, media.format);
                    // ffmpeg draws a template without an image it cannot decode, and succeeds.
                    check_decodes(&self.config.ffmpeg, work_dir, suspect.clone(), Step::Brand)
                        .await?;
                    suspects.push(suspect);
                    values.insert(
                        key.clone(),
                        FieldValue::Image {
                            path: media.path.to_string_lossy().into_owned(),
                            upright: media.orientation.filter().map(str::to_owned),
                        },
                    );
                    fetched.insert(media.path.to_string_lossy().into_owned(), media.format);
                }
            }
        }
        let built = match which {
            "intro" => intro_overlay(&slot.template, &values, frame),
            _ => outro_card(&slot.template, &values, frame),
        }
        .map_err(effect_error)?;
        let images = built
            .extra_inputs
            .iter()
            .map(|x| BrandImage {
                path: PathBuf::from(&x.path),
                format: fetched.get(&x.path).copied().unwrap_or(MediaFormat::Png),
            })
            .collect();
        Ok((built, images))
    }
}

/// The video's music as a suspect of a failed run.
fn music_suspect(music: &MusicInput) -> Suspect {
    Suspect::music("audio_url", &music.path, music.format)
}

pub(super) fn effect_error(source: stillreel_effects::EffectError) -> JobFailure {
    RenderError::Effect {
        step: Step::Brand,
        source,
    }
    .into()
}
