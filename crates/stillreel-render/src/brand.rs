//! The branded render (CONTRACT §8): after the main video is complete, one ffmpeg run makes the
//! branded copy: speed ramp across the cuts (two or more clips), the intro template drawn over
//! the first 3 s, the outro card appended for 3 s (with silence, since the music has already
//! faded out), re-encoded with the clips' settings and `+faststart`.
//!
//! ```text
//! [0:v] select(ramp), setpts ─→ intro overlay ─┐
//! [0:a] asplit → atrim/atempo/apad per step → concat ─┐ │
//! outro card (lavfi, images) ──────────────────────────┼─┴→ concat (v+a) → encoder
//! anullsrc 3 s ────────────────────────────────────────┘
//! ```
//!
//! Template drawing and the ramp plan are pure functions of `stillreel-effects`; this module
//! fetches the template images, builds the command (pure, tested as text) and runs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use stillreel_core::types::{Template, TemplateSlot, TemplateValue};
use stillreel_core::{Orientation, Resolution};
use stillreel_effects::ramp::RampPlan;
use stillreel_effects::template::{FieldValue, Frame, OUTRO_SECONDS, intro_overlay, outro_card};
use stillreel_effects::{EffectError, EffectGraph, Pads};

use crate::command::{self, Encoding, FfmpegArgs, SAMPLE_RATE};
use crate::failure::JobFailure;
use crate::fetch::{MediaClass, MediaFormat};
use crate::pipeline::{RenderObserver, Renderer, StoredVideo};
use crate::progress::Progress;
use crate::runner::{RenderError, Step};

/// An intro or outro as the renderer needs it: the template (with its layout) and the values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandSlot {
    pub template: Template,
    pub values: BTreeMap<String, TemplateValue>,
}

impl BrandSlot {
    /// Looks the request's template up in `templates` (e.g.
    /// `stillreel_core::catalog::builtin_templates()`); `None` for an unknown id (validation
    /// refuses those first).
    pub fn resolve(slot: &TemplateSlot, templates: &[Template]) -> Option<BrandSlot> {
        templates
            .iter()
            .find(|t| t.id == slot.template)
            .map(|template| BrandSlot {
                template: template.clone(),
                values: slot.config.clone(),
            })
    }
}

/// The branded render of a finished video.
#[derive(Debug, Clone)]
pub struct BrandJob {
    /// Key prefix of the video's files; the result is `<prefix>/branded.mp4`.
    pub key_prefix: String,
    /// Storage key of the finished main video (`StoredVideo::key`).
    pub main_key: String,
    /// Frames of each clip of the main video, in order (150 each for standard clips; see
    /// [`BrandJob::standard_clips`]).
    pub clip_frames: Vec<u32>,
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub intro: Option<BrandSlot>,
    pub outro: Option<BrandSlot>,
    pub speed_ramp: bool,
}

impl BrandJob {
    /// Frame counts of `count` standard 5 s clips.
    pub fn standard_clips(count: usize) -> Vec<u32> {
        vec![stillreel_core::limits::CLIP_SECONDS * stillreel_core::limits::FPS; count]
    }
}

/// A stored branded video.
#[derive(Debug, Clone, PartialEq)]
pub struct BrandedVideo {
    pub video: StoredVideo,
    /// Whether the speed ramp took effect (requested and two or more clips): the record's
    /// `branding.speed_ramp`.
    pub speed_ramp: bool,
}

/// A template image, fetched, as an ffmpeg input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandImage {
    pub path: PathBuf,
    pub format: MediaFormat,
}

/// Everything the branded command is made of (pure data).
#[derive(Debug, Clone)]
pub struct BrandPlan {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    /// Frames of the main video.
    pub main_frames: u32,
    pub ramp: Option<RampPlan>,
    /// Intro graph and its images (in the graph's `extra` order).
    pub intro: Option<(EffectGraph, Vec<BrandImage>)>,
    pub outro: Option<(EffectGraph, Vec<BrandImage>)>,
}

impl BrandPlan {
    /// Frames of the main part after the ramp.
    pub fn body_frames(&self) -> u32 {
        self.ramp
            .as_ref()
            .map_or(self.main_frames, RampPlan::output_frames)
    }

    /// Frames of the branded video.
    pub fn total_frames(&self) -> u32 {
        self.body_frames() + self.outro.as_ref().map_or(0, |_| OUTRO_SECONDS * self.fps)
    }
}

/// The filtergraph of the branded render: main video at input 0, template images after it.
pub fn brand_graph(plan: &BrandPlan) -> Result<String, EffectError> {
    let fps = plan.fps;
    let body = plan.body_frames();
    let body_samples = u64::from(body) * u64::from(SAMPLE_RATE) / u64::from(fps);
    let mut g = String::new();
    // Video body.
    let select = plan
        .ramp
        .as_ref()
        .map(|r| format!("{},", r.video_filter()))
        .unwrap_or_default();
    g.push_str(&format!(
        "[0:v]{select}setpts=N/{fps}/TB,format=yuv420p,setsar=1[b_rv];"
    ));
    // Audio body: exact length whatever the source's rounding.
    match &plan.ramp {
        Some(ramp) => {
            g.push_str(&ramp.audio_graph("0:a", "b_ra0", SAMPLE_RATE, "b_"));
            g.push(';');
        }
        None => g.push_str(&format!(
            "[0:a]aresample={SAMPLE_RATE},asetpts=N/SR/TB[b_ra0];"
        )),
    }
    g.push_str(&format!(
        "[b_ra0]aformat=sample_fmts=fltp:channel_layouts=stereo,\
         apad=whole_len={body_samples},atrim=end_sample={body_samples}[b_ra];"
    ));
    let mut next_input = 1;
    let mut specs = |n: usize| {
        let s: Vec<String> = (next_input..next_input + n)
            .map(|i| format!("{i}:v"))
            .collect();
        next_input += n;
        s
    };
    let video = match &plan.intro {
        Some((graph, images)) => {
            let extra = specs(images.len());
            let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
            let text = graph.render(&Pads {
                input: "b_rv",
                output: "b_iv",
                prefix: "in_",
                extra: &refs,
            })?;
            g.push_str(&text);
            g.push(';');
            "b_iv"
        }
        None => "b_rv",
    };
    match &plan.outro {
        Some((graph, images)) => {
            let extra = specs(images.len());
            let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
            let text = graph.render(&Pads {
                input: "b_none",
                output: "b_ov",
                prefix: "out_",
                extra: &refs,
            })?;
            let samples = u64::from(OUTRO_SECONDS) * u64::from(SAMPLE_RATE);
            g.push_str(&text);
            g.push_str(&format!(
                ";anullsrc=r={SAMPLE_RATE}:cl=stereo,atrim=end_sample={samples},\
                 aformat=sample_fmts=fltp:channel_layouts=stereo[b_oa];\
                 [{video}][b_ra][b_ov][b_oa]concat=n=2:v=1:a=1[b_v][b_a]"
            ));
        }
        None => g.push_str(&format!("[{video}]null[b_v];[b_ra]anull[b_a]")),
    }
    Ok(g)
}

/// The branded command: `main` (the finished video, MP4) → `output`.
pub fn brand_command(
    plan: &BrandPlan,
    main: &Path,
    encoding: &Encoding,
    output: &Path,
) -> Result<FfmpegArgs, EffectError> {
    let total = plan.total_frames();
    let mut cmd = FfmpegArgs::new(total);
    cmd.input("mov", main, &[]);
    let images = plan
        .intro
        .iter()
        .chain(plan.outro.iter())
        .flat_map(|(_, images)| images.iter());
    for image in images {
        cmd.input(image.format.ffmpeg_demuxer(), &image.path, &[]);
    }
    let graph = brand_graph(plan)?;
    command::push(
        &mut cmd.args,
        ["-filter_complex", &graph, "-map", "[b_v]", "-map", "[b_a]"],
    );
    command::push(&mut cmd.args, ["-frames:v", &total.to_string()]);
    command::encode_args(&mut cmd.args, plan.width, plan.height, plan.fps, encoding);
    command::push(&mut cmd.args, ["-movflags", "+faststart", "-f", "mp4"]);
    cmd.args.push(command::local_arg(output));
    Ok(cmd)
}

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
        let io = |step: Step, e: String| JobFailure::Render(RenderError::Io { step, message: e });
        std::fs::create_dir_all(work_dir).map_err(|e| io(Step::Prepare, e.to_string()))?;
        let (width, height) = job.resolution.dimensions(job.orientation);
        let fps = stillreel_core::limits::FPS;
        let frame = Frame { width, height, fps };

        let intro = match &job.intro {
            Some(slot) => Some(self.brand_slot(slot, "intro", frame, work_dir).await?),
            None => None,
        };
        let outro = match &job.outro {
            Some(slot) => Some(self.brand_slot(slot, "outro", frame, work_dir).await?),
            None => None,
        };
        let main = work_dir.join("main.mp4");
        crate::storage::get_async(&self.storage, &job.main_key, &main)
            .await
            .map_err(|e| io(Step::Brand, e.to_string()))?;
        bar.report(5.0);

        let ramp = if job.speed_ramp {
            RampPlan::new(&job.clip_frames, fps)
        } else {
            None
        };
        let speed_ramp = ramp.is_some();
        let plan = BrandPlan {
            width,
            height,
            fps,
            main_frames: job.clip_frames.iter().sum(),
            ramp,
            intro,
            outro,
        };
        let relative = |p: &Path| {
            p.strip_prefix(work_dir)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| p.to_path_buf())
        };
        let rel_plan = BrandPlan {
            intro: plan.intro.clone().map(|(g, imgs)| {
                (
                    g,
                    imgs.into_iter()
                        .map(|i| BrandImage {
                            path: relative(&i.path),
                            ..i
                        })
                        .collect(),
                )
            }),
            outro: plan.outro.clone().map(|(g, imgs)| {
                (
                    g,
                    imgs.into_iter()
                        .map(|i| BrandImage {
                            path: relative(&i.path),
                            ..i
                        })
                        .collect(),
                )
            }),
            ..plan.clone()
        };
        let cmd = brand_command(
            &rel_plan,
            Path::new("main.mp4"),
            &self.config.encoding,
            Path::new("branded.mp4"),
        )
        .map_err(|source| RenderError::Effect {
            step: Step::Brand,
            source,
        })?;
        let total = cmd.planned_frames;
        let runner = self.runner();
        // Dropping this future (lease lost, shutdown) kills the ffmpeg runs below.
        let _give_up = runner.cancel.on_drop();
        let dir = work_dir.to_path_buf();
        let (tx, rx) = std_mpsc::channel::<u32>();
        let handle = tokio::task::spawn_blocking(move || {
            runner.run(Step::Brand, &cmd, &dir, &mut |f| {
                let _ = tx.send(f);
            })
        });
        let result = loop {
            if handle.is_finished() {
                break handle.await;
            }
            while let Ok(frames) = rx.try_recv() {
                bar.report(5.0 + 94.0 * f64::from(frames) / f64::from(total.max(1)));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        result.map_err(|e| io(Step::Brand, e.to_string()))??;

        let key = format!("{}/branded.mp4", job.key_prefix);
        let storage = Arc::clone(&self.storage);
        let output = work_dir.join("branded.mp4");
        let key_owned = key.clone();
        let url_path = tokio::task::spawn_blocking(move || storage.put(&output, &key_owned))
            .await
            .map_err(|e| io(Step::Store, e.to_string()))?
            .map_err(|e| io(Step::Store, e.to_string()))?;
        bar.report(100.0);
        Ok(BrandedVideo {
            video: StoredVideo {
                key,
                url_path,
                seconds: f64::from(total) / f64::from(fps),
                clips: Vec::new(),
            },
            speed_ramp,
        })
    }

    /// Fetches a slot's images and builds its graph.
    async fn brand_slot(
        &self,
        slot: &BrandSlot,
        which: &str,
        frame: Frame,
        work_dir: &Path,
    ) -> Result<(EffectGraph, Vec<BrandImage>), JobFailure> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::catalog::builtin_templates;

    fn slot(id: &str, pairs: &[(&str, &str)]) -> BrandSlot {
        let t = builtin_templates()
            .iter()
            .find(|t| t.id == id)
            .expect("template");
        BrandSlot {
            template: t.clone(),
            values: pairs
                .iter()
                .map(|(k, v)| {
                    (
                        (*k).to_owned(),
                        TemplateValue::Text {
                            value: (*v).to_owned(),
                        },
                    )
                })
                .collect(),
        }
    }

    fn plan(ramp: bool) -> BrandPlan {
        let frame = Frame {
            width: 1280,
            height: 720,
            fps: 30,
        };
        let intro = slot("intro-title-card", &[("headline", "Just listed")]);
        let outro = slot("outro-minimal", &[("brokerage", "Acme")]);
        let values = |s: &BrandSlot| {
            s.values
                .iter()
                .map(|(k, v)| match v {
                    TemplateValue::Text { value } => (k.clone(), FieldValue::Text(value.clone())),
                    TemplateValue::Image { url } => (k.clone(), FieldValue::Text(url.clone())),
                })
                .collect::<BTreeMap<_, _>>()
        };
        BrandPlan {
            width: 1280,
            height: 720,
            fps: 30,
            main_frames: 600,
            ramp: if ramp {
                RampPlan::new(&[150; 4], 30)
            } else {
                None
            },
            intro: Some((
                intro_overlay(&intro.template, &values(&intro), frame).expect("intro"),
                vec![],
            )),
            outro: Some((
                outro_card(&outro.template, &values(&outro), frame).expect("outro"),
                vec![],
            )),
        }
    }

    #[test]
    fn frames_add_up() {
        assert_eq!(plan(false).total_frames(), 600 + 90);
        assert_eq!(plan(true).total_frames(), 600 - 3 * 36 + 90);
    }

    #[test]
    fn command_maps_both_streams_and_forces_input_formats() {
        let cmd = brand_command(
            &plan(true),
            Path::new("main.mp4"),
            &Encoding::default(),
            Path::new("b.mp4"),
        )
        .expect("command");
        let a = cmd.args.join(" ");
        assert!(
            a.contains("-protocol_whitelist file -f mov -i ./main.mp4"),
            "{a}"
        );
        assert!(a.contains("-map [b_v] -map [b_a]"));
        assert!(a.contains("-frames:v 582"));
        assert!(a.contains("+faststart"));
        let g = brand_graph(&plan(true)).expect("graph");
        assert!(g.contains("concat=n=2:v=1:a=1[b_v][b_a]"));
        assert!(g.contains("[b_rv]") && g.contains("[b_iv]"));
        assert!(!g.contains("[in]") && !g.contains("[out]"));
    }

    #[test]
    fn slots_resolve_from_the_catalog() {
        let s = TemplateSlot {
            template: "outro-minimal".into(),
            config: BTreeMap::new(),
        };
        assert!(BrandSlot::resolve(&s, builtin_templates()).is_some());
        let bad = TemplateSlot {
            template: "nope".into(),
            config: BTreeMap::new(),
        };
        assert!(BrandSlot::resolve(&bad, builtin_templates()).is_none());
    }
}
