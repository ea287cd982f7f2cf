//! The prepare step: every input of a video fetched under one deadline, checked, and stored
//! with the facts its clip needs.

use std::path::Path;

use super::{PrepareJob, Prepared, StoredInput, StoredMusic, input_key, music_request};
use crate::failure::JobFailure;
use crate::ffmpeg::runner::Step;
use crate::media::fetch::FetchRequest;
use crate::observer::RenderObserver;
use crate::observer::progress::Progress;
use crate::renderer::Renderer;
use crate::store::files::{make_dir, put};
use stillreel_core::media::MediaClass;

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
            requests.push(music_request(url));
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
}
