//! The branded render's I/O: fetch the template images, fetch the main video, run the
//! [`BrandPlan`] and store the result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stillreel_core::types::TemplateValue;
use stillreel_effects::template::{FieldValue, Frame, intro_overlay, outro_card};

use super::plan::{
    BrandImage, BrandJob, BrandLayer, BrandPlan, BrandSlot, BrandedVideo, brand_command,
};
use crate::blocking::run_blocking;
use crate::failure::JobFailure;
use crate::fetch::{MediaClass, MediaFormat};
use crate::files::{get, make_dir, put, relative};
use crate::job::StoredVideo;
use crate::observer::RenderObserver;
use crate::progress::Progress;
use crate::renderer::Renderer;
use crate::runner::{RenderError, Step};

impl Renderer {
    /// Renders the branded copy of a finished video (`job.main_key` in storage) in `work_dir`
    /// (created if missing; the caller removes it). Template images are fetched like other
    /// media (field `branding.intro.config.<key>.url`). Budget: one decode and one encode of the
    /// video, about as long as stitching with a re-encode.
    pub async fn render_branded(
        &self,
        job: &BrandJob,
        work_dir: &Path,
        observer: &dyn RenderObserver,
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
            Some(slot) => Some(self.brand_slot(slot, "intro", frame, work_dir).await?),
            None => None,
        };
        let outro = match &job.outro {
            Some(slot) => Some(self.brand_slot(slot, "outro", frame, work_dir).await?),
            None => None,
        };
        get(
            &self.storage,
            &job.main_key,
            &work_dir.join("main.mp4"),
            Step::Brand,
        )
        .await?;
        bar.report(5.0);

        let plan = BrandPlan::new(&job.clip_frames, frame, job.speed_ramp, intro, outro)
            .map_paths(|p| relative(work_dir, p));
        let cmd = brand_command(
            &plan,
            Path::new("main.mp4"),
            &self.config.encoding,
            Path::new("branded.mp4"),
        )
        .map_err(|source| RenderError::Effect {
            step: Step::Brand,
            source,
        })?;
        let total = f64::from(plan.total_frames().max(1));
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg run below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        run_blocking(
            Step::Brand,
            move |frames| runner.run(Step::Brand, &cmd, &dir, frames),
            |frames| bar.report(5.0 + 94.0 * f64::from(frames) / total),
        )
        .await?;

        let key = format!("{}/branded.mp4", job.key_prefix);
        let url_path = put(&self.storage, work_dir.join("branded.mp4"), key.clone()).await?;
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

    /// Fetches a slot's images and builds its graph.
    async fn brand_slot(
        &self,
        slot: &BrandSlot,
        which: &str,
        frame: Frame,
        work_dir: &Path,
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
                        .map_err(|error| JobFailure::Media { field, error })?;
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
        .map_err(|source| RenderError::Effect {
            step: Step::Brand,
            source,
        })?;
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
