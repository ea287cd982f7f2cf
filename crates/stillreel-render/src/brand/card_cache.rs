//! The outro-card cache. An outro card depends only on the brand (template, texts, images),
//! the frame and the encoder settings, never on the video it ends: a realtor's card is the
//! same for every listing. So the branded render keys the encoded card by a digest of
//! everything that makes it (the card's whole ffmpeg argument list, which holds the texts,
//! layout, fonts, frame size, encoder and colour settings, and the bytes of its images), and
//! copies it from storage when that digest was encoded before.
//!
//! A cached card is used only when its parameter sets are the main video's (the same check
//! as for a freshly encoded part); anything else (no cache configured, a miss, a failed
//! download or upload) encodes the card as before. The digest is SHA-256, so a crafted brand
//! cannot collide with another account's card.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::plan::BrandPlan;
use crate::failure::JobFailure;
use crate::ffmpeg::command::FfmpegArgs;
use crate::ffmpeg::runner::Step;
use crate::ffmpeg::runner::io_error;
use crate::media::keyframes::VideoFacts;
use crate::renderer::Renderer;
use crate::store::files::{get, put};

/// The cache key of the card `cmd` makes from images whose bytes are `images`, under
/// `prefix`: `<prefix>/outro-<sha256>.mp4`.
pub fn card_key(prefix: &str, cmd: &FfmpegArgs, images: &[Vec<u8>]) -> String {
    let mut hash = Sha256::new();
    for arg in &cmd.args {
        // Lengths first, so no two argument lists hash the same bytes.
        hash.update((arg.len() as u64).to_le_bytes());
        hash.update(arg.as_bytes());
    }
    for image in images {
        hash.update((image.len() as u64).to_le_bytes());
        hash.update(image);
    }
    let digest = hash.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}/outro-{hex}.mp4", prefix.trim_end_matches('/'))
}

impl Renderer {
    /// The cache key of the plan's outro card made by `cmd`, when a cache is configured and
    /// the card's images can be read from `work_dir`.
    pub(super) fn card_cache_key(
        &self,
        plan: &BrandPlan,
        cmd: &FfmpegArgs,
        work_dir: &Path,
    ) -> Option<String> {
        let prefix = self.config.card_cache.as_deref()?;
        let (_, images) = plan.outro.as_ref()?;
        let bytes = images
            .iter()
            .map(|i| std::fs::read(work_dir.join(&i.path)))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        Some(card_key(prefix, cmd, &bytes))
    }

    /// The outro card as a part of the copied video ([`Renderer::brand_part`]'s answer): from
    /// the cache when this card was encoded before, else encoded by `cmd` (and cached).
    pub(super) async fn outro_part(
        &self,
        plan: &BrandPlan,
        cmd: Option<FfmpegArgs>,
        main: &VideoFacts,
        work_dir: &Path,
        bar: &crate::observer::progress::Progress<'_>,
        span: (f64, f64),
    ) -> Result<Result<Option<String>, ()>, JobFailure> {
        const NAME: &str = "outro.mp4";
        let Some(cmd) = cmd else {
            return Ok(Ok(None));
        };
        let key = self.card_cache_key(plan, &cmd, work_dir);
        if let Some(key) = &key
            && self.card_from_cache(key, NAME, main, work_dir).await?
        {
            return Ok(Ok(Some(NAME.to_owned())));
        }
        let made = self
            .brand_part(Some(cmd), NAME, main, work_dir, bar, span)
            .await?;
        if let (Some(key), Ok(Some(_))) = (key, &made) {
            self.card_to_cache(key, NAME, work_dir).await;
        }
        Ok(made)
    }

    /// Fetches the cached card at `key` into `name` in `work_dir`; `true` when it is there and
    /// joins the main video (`main`) by copy.
    pub(super) async fn card_from_cache(
        &self,
        key: &str,
        name: &str,
        main: &VideoFacts,
        work_dir: &Path,
    ) -> Result<bool, JobFailure> {
        if get(&self.storage, key, &work_dir.join(name), Step::Brand)
            .await
            .is_err()
        {
            return Ok(false);
        }
        // A cached file that does not read as a card is a miss: the card is encoded again and
        // the new one replaces it.
        Ok(self
            .brand_facts(work_dir, name)
            .await
            .is_ok_and(|facts| facts.same_parameter_sets(main)))
    }

    /// Stores the card just encoded as `name` in `work_dir` under `key`, for the next video of
    /// the brand. Best effort: a failure only means the next one encodes it again.
    pub(super) async fn card_to_cache(&self, key: String, name: &str, work_dir: &Path) {
        // `put` may move its file; the join still needs the card.
        let copy = work_dir.join(format!("cache-{name}"));
        let stored = match std::fs::copy(work_dir.join(name), &copy) {
            Ok(_) => put(&self.storage, copy, key).await.map(|_| ()),
            Err(e) => Err(io_error(Step::Brand, e)),
        };
        if let Err(e) = stored {
            tracing::warn!(error = %e, "the outro card was not cached");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(args: &[&str]) -> FfmpegArgs {
        FfmpegArgs {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            planned_frames: 90,
        }
    }

    #[test]
    fn the_key_changes_with_every_input_of_the_card() {
        let base = card_key("c", &cmd(&["text=Jane", "-crf", "20"]), &[b"face".to_vec()]);
        assert!(
            base.starts_with("c/outro-") && base.ends_with(".mp4"),
            "{base}"
        );
        assert_eq!(base.len(), "c/outro-".len() + 64 + ".mp4".len());
        assert_eq!(
            base,
            card_key(
                "c/",
                &cmd(&["text=Jane", "-crf", "20"]),
                &[b"face".to_vec()]
            ),
            "the same card, the same key"
        );
        for other in [
            card_key("c", &cmd(&["text=John", "-crf", "20"]), &[b"face".to_vec()]),
            card_key("c", &cmd(&["text=Jane", "-crf", "21"]), &[b"face".to_vec()]),
            card_key(
                "c",
                &cmd(&["text=Jane", "-crf", "20"]),
                &[b"face2".to_vec()],
            ),
            card_key("c", &cmd(&["text=Jane", "-crf", "20"]), &[]),
            // Argument boundaries count: "ab" + "c" is not "a" + "bc".
            card_key("c", &cmd(&["text=Jan", "e-crf", "20"]), &[b"face".to_vec()]),
        ] {
            assert_ne!(base, other);
        }
    }
}
