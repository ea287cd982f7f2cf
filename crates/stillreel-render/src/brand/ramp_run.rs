//! The ramped branded render's I/O (`ramp_copy.rs` plans it): the encoded parts, the outro
//! card and the sound run a few at a time, then the join copies them and the main video's
//! normal-speed stretches into one file.

use std::path::Path;

use futures_util::stream::{self, StreamExt};

use super::copy;
use super::plan::BrandPlan;
use super::ramp_copy::{self, Part};
use super::run::effect_error;
use crate::failure::JobFailure;
use crate::ffmpeg::command::MusicInput;
use crate::observer::progress::Progress;
use crate::renderer::Renderer;

impl Renderer {
    /// The ramped copy path (`ramp_copy.rs`): the intro's span, the ramped span around each
    /// cut, the outro card and the sound encoded (as many at once as clips are), the main
    /// video's normal-speed stretches copied between them. `false` when its keyframes leave
    /// nothing to copy or a part would not join by copy: the one-pass render does it.
    /// `sound` as for `brand_by_copy` (`None`: made ahead by the stitch).
    pub(super) async fn brand_ramped(
        &self,
        plan: &BrandPlan,
        sound: Option<&Option<MusicInput>>,
        work_dir: &Path,
        bar: &Progress<'_>,
    ) -> Result<bool, JobFailure> {
        let main = self.brand_facts(work_dir, "main.mp4").await?;
        let Some(parts) = plan.parts_plan(&main) else {
            return Ok(false);
        };
        let encoding = &self.config.encoding;
        let mut tasks = Vec::new();
        for part in parts
            .parts
            .iter()
            .filter(|p| matches!(p, Part::Encode { .. }))
        {
            let name = format!("part-{:03}.mp4", tasks.len());
            let cmd = ramp_copy::part_command(
                plan,
                part,
                Path::new("main.mp4"),
                encoding,
                &main.color_args,
                Path::new(&name),
            )
            .map_err(effect_error)?;
            tasks.push((cmd, Some(name)));
        }
        let encoded = tasks.len();
        let outro = copy::outro_command(plan, encoding, &main.color_args, Path::new("outro.mp4"))
            .map_err(effect_error)?;
        let outro_at = tasks.len();
        tasks.push((outro, Some("outro.mp4".to_owned())));
        // `None`: the stitch made the sound ahead.
        if let Some(music) = sound {
            let cmd = crate::plan::sound::sound_command(
                &plan.sound(),
                music.as_ref(),
                Path::new("sound.m4a"),
            );
            tasks.push((Some(cmd), None));
        }
        // The parts are independent: encoded as clips are, a few at a time.
        let share = 85.0 / tasks.len() as f64;
        let main = &main;
        let names: Vec<_> = stream::iter(tasks.into_iter().enumerate().map(
            |(i, (cmd, name))| async move {
                let span = (5.0 + share * i as f64, 5.0 + share * (i + 1) as f64);
                match name {
                    Some(_) if i == outro_at => {
                        self.outro_part(plan, cmd, main, work_dir, bar, span).await
                    }
                    Some(name) => self.brand_part(cmd, name, main, work_dir, bar, span).await,
                    None => match cmd {
                        Some(cmd) => self
                            .brand_run(cmd, work_dir, bar, span)
                            .await
                            .map(|()| Ok(None)),
                        None => Ok(Ok(None)),
                    },
                }
            },
        ))
        .buffered(self.config.clip_parallelism.max(1))
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
        let Ok(names) = names.into_iter().collect::<Result<Vec<_>, ()>>() else {
            return Ok(false);
        };
        let encoded: Vec<String> = names[..encoded].iter().flatten().cloned().collect();
        let outro_name = names.get(encoded.len()).cloned().flatten();
        let entries =
            ramp_copy::parts_entries(plan, &parts, &encoded, "main.mp4", outro_name.as_deref());
        self.brand_join(plan, &entries, work_dir, bar).await?;
        Ok(true)
    }
}
