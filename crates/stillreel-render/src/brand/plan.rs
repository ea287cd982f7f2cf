//! The branded render as a pure plan: which frames of the main video survive the ramp, where
//! the cuts land, how long the intro overlays and where the outro starts, and the one ffmpeg
//! command that makes it when it cannot be made by copy (`copy.rs`, `ramp_copy.rs`). No I/O:
//! template images arrive as paths already fetched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stillreel_core::types::{Template, TemplateSlot, TemplateValue};
use stillreel_core::{Orientation, Resolution, Transition};
use stillreel_effects::ramp::RampPlan;
use stillreel_effects::template::{Frame, INTRO_SECONDS};
use stillreel_effects::{EffectError, EffectGraph, Pads};

use crate::ffmpeg::command::{self, Encoding, FfmpegArgs, MusicInput};
use crate::job::StoredMusic;
use crate::job::StoredVideo;
use crate::plan::sound::BrandSound;
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::media::MediaFormat;

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
    /// How the main video's clips were paced. The ramp is applied only over
    /// [`Pace::Through`] clips: over eased clips the camera is nearly still where the ramp
    /// speeds time up, so the ramp would not show (docs/EFFECTS.md, "Speed ramp").
    pub clip_pace: Pace,
    /// The video's music, laid again under the whole branded video so it runs through the
    /// outro card and fades out with it; `None`: the main video is silent, and so is this one.
    pub music: Option<BrandMusic>,
    /// Where the stitch left the branded sound it made ahead ([`super::AheadSound`]), if it
    /// was asked to; the branded render makes the sound itself when nothing is there.
    pub sound_key: Option<String>,
}

/// Where the branded render finds the video's music.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrandMusic {
    /// The checked copy the prepare step stored (`create_video`).
    Stored(StoredMusic),
    /// The request's `audio_url`, fetched again (a combined video stores no music).
    Url(String),
}

impl BrandJob {
    /// Frame counts of `count` standard 5 s clips.
    pub fn standard_clips(count: usize) -> Vec<u32> {
        vec![stillreel_core::limits::CLIP_SECONDS * stillreel_core::limits::FPS; count]
    }

    /// Whether the ramp is to be applied: asked for, over clips that keep moving through their
    /// ends (two or more clips is [`RampPlan::new`]'s rule).
    pub fn ramp_visible(&self) -> bool {
        self.speed_ramp && self.clip_pace == Pace::Through
    }

    /// Frames each of `count` standard clips spans in a main video joined by `transition`:
    /// a blended join overlaps two clips, so every clip but the last ends where its blend into
    /// the next begins (the ramp's cut is there).
    pub fn joined_clips(count: usize, transition: Transition) -> Vec<u32> {
        let mut frames = Self::standard_clips(count);
        let last = frames.len().saturating_sub(1);
        for f in frames.iter_mut().take(last) {
            *f -= transition.overlap_frames();
        }
        frames
    }
}

impl BrandJob {
    /// The sound this job's branded video will have: the same as its plan's
    /// ([`BrandPlan::sound`]), decided without the templates' graphs, so the stitch can
    /// make it before the branded render starts.
    pub fn sound(&self) -> BrandSound {
        let fps = stillreel_core::limits::FPS;
        let main: u32 = self.clip_frames.iter().sum();
        let body = if self.ramp_visible() {
            RampPlan::new(&self.clip_frames, fps).map_or(main, |r| r.output_frames())
        } else {
            main
        };
        BrandSound::new(body, fps, self.outro.is_some())
    }
}

/// A stored branded video.
#[derive(Debug, Clone, PartialEq)]
pub struct BrandedVideo {
    pub video: StoredVideo,
    /// Whether the speed ramp took effect (requested, two or more clips, and the clips paced
    /// [`Pace::Through`]): the record's `branding.speed_ramp`.
    pub speed_ramp: bool,
}

/// A template image, fetched, as an ffmpeg input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandImage {
    pub path: PathBuf,
    pub format: MediaFormat,
}

/// A template's graph and its images (in the graph's `extra` order).
pub type BrandLayer = (EffectGraph, Vec<BrandImage>);

/// Everything the branded command is made of (pure data).
#[derive(Debug, Clone)]
pub struct BrandPlan {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    /// Frames of each clip of the main video, in order.
    pub clip_frames: Vec<u32>,
    /// The speed ramp, when asked for and possible (two or more clips long enough for it).
    pub ramp: Option<RampPlan>,
    pub intro: Option<BrandLayer>,
    pub outro: Option<BrandLayer>,
}

impl BrandPlan {
    /// The plan for a main video of `clip_frames` at `frame`: the ramp is planned when
    /// `speed_ramp` asks for it and the clips allow it ([`RampPlan::new`]).
    pub fn new(
        clip_frames: &[u32],
        frame: Frame,
        speed_ramp: bool,
        intro: Option<BrandLayer>,
        outro: Option<BrandLayer>,
    ) -> Self {
        let ramp = if speed_ramp {
            RampPlan::new(clip_frames, frame.fps)
        } else {
            None
        };
        BrandPlan {
            width: frame.width,
            height: frame.height,
            fps: frame.fps,
            clip_frames: clip_frames.to_vec(),
            ramp,
            intro,
            outro,
        }
    }

    /// Frames of the main video.
    pub fn main_frames(&self) -> u32 {
        self.clip_frames.iter().sum()
    }

    /// Frames of the main part after the ramp.
    pub fn body_frames(&self) -> u32 {
        self.ramp
            .as_ref()
            .map_or(self.main_frames(), RampPlan::output_frames)
    }

    /// The output frame at which source frame `source` of the main video is shown (frames the
    /// ramp drops before it no longer count).
    pub fn output_frame(&self, source: u32) -> u32 {
        let Some(ramp) = &self.ramp else {
            return source;
        };
        ramp.segments
            .iter()
            .filter(|s| s.start < source)
            .map(|s| {
                if s.start + s.frames <= source {
                    s.out_frames()
                } else {
                    (s.start..source).filter(|&n| s.keeps(n)).count() as u32
                }
            })
            .sum()
    }

    /// Output frames of the cuts between clips (where clip `i + 1` starts).
    pub fn cut_frames(&self) -> Vec<u32> {
        let mut source = 0;
        let mut cuts = Vec::new();
        for frames in self
            .clip_frames
            .iter()
            .take(self.clip_frames.len().saturating_sub(1))
        {
            source += frames;
            cuts.push(self.output_frame(source));
        }
        cuts
    }

    /// Frames the intro is drawn over, from frame 0 (none without an intro).
    pub fn intro_frames(&self) -> u32 {
        self.intro
            .as_ref()
            .map_or(0, |_| (INTRO_SECONDS * self.fps).min(self.body_frames()))
    }

    /// First frame of the outro card, when there is one.
    pub fn outro_start(&self) -> Option<u32> {
        self.outro.as_ref().map(|_| self.body_frames())
    }

    /// Frames of the branded video.
    pub fn total_frames(&self) -> u32 {
        self.sound().frames
    }

    /// Length of the branded video in seconds.
    pub fn seconds(&self) -> f64 {
        self.sound().seconds()
    }

    /// The branded video's sound: as long as the video, the music fading out over the whole
    /// outro card when there is one (it runs under it), else over the last second like the
    /// main video's.
    pub fn sound(&self) -> BrandSound {
        BrandSound::new(self.body_frames(), self.fps, self.outro.is_some())
    }

    /// Where the music fades out, `(start, seconds)` ([`BrandPlan::sound`]).
    pub fn music_fade(&self) -> (f64, f64) {
        self.sound().fade()
    }

    /// The sound of the branded video, from input pad `music` (e.g. `3:a`, looped by the
    /// demuxer) or silence, to `[output]`: exactly [`BrandPlan::total_frames`] long.
    pub fn audio_graph(&self, music: Option<&str>, output: &str) -> String {
        self.sound().graph(music, output)
    }

    /// The same plan with every image path made relative by `relative` (ffmpeg runs in the
    /// work directory).
    pub fn map_paths(&self, relative: impl Fn(&Path) -> PathBuf) -> BrandPlan {
        let map = |layer: &Option<BrandLayer>| {
            layer.as_ref().map(|(graph, images)| {
                let images = images
                    .iter()
                    .map(|i| BrandImage {
                        path: relative(&i.path),
                        format: i.format,
                    })
                    .collect();
                (graph.clone(), images)
            })
        };
        BrandPlan {
            intro: map(&self.intro),
            outro: map(&self.outro),
            ..self.clone()
        }
    }
}

/// The filtergraph of the branded render in one pass: main video at input 0, template images
/// after it, the music (when `music` names its pad) last. The main video's own sound is not
/// read: it is the music (faded at its end) or silence, and the music is laid again whole.
pub fn brand_graph(plan: &BrandPlan, music: Option<&str>) -> Result<String, EffectError> {
    let fps = plan.fps;
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
    let mut next_input = 1;
    let video = match &plan.intro {
        Some((graph, images)) => {
            let text = layer_text(graph, images.len(), &mut next_input, "b_rv", "b_iv", "in_")?;
            g.push_str(&text);
            g.push(';');
            "b_iv"
        }
        None => "b_rv",
    };
    match &plan.outro {
        Some((graph, images)) => {
            let text = layer_text(
                graph,
                images.len(),
                &mut next_input,
                "b_none",
                "b_ov",
                "out_",
            )?;
            g.push_str(&text);
            g.push_str(&format!(";[{video}][b_ov]concat=n=2:v=1:a=0[b_v];"));
        }
        None => g.push_str(&format!("[{video}]null[b_v];")),
    }
    g.push_str(&plan.audio_graph(music, "b_a"));
    Ok(g)
}

/// A template's graph between `input` and `output`, its images taken from the inputs from
/// `*next_input` on (advanced past them).
pub(crate) fn layer_text(
    graph: &EffectGraph,
    images: usize,
    next_input: &mut usize,
    input: &str,
    output: &str,
    prefix: &str,
) -> Result<String, EffectError> {
    let extra: Vec<String> = (*next_input..*next_input + images)
        .map(|i| format!("{i}:v"))
        .collect();
    *next_input += images;
    let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
    graph.render(&Pads {
        input,
        output,
        prefix,
        extra: &refs,
    })
}

/// The branded command: `main` (the finished video, MP4) → `output`.
pub fn brand_command(
    plan: &BrandPlan,
    main: &Path,
    music: Option<&MusicInput>,
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
    let mut inputs = 1;
    for image in images {
        cmd.input(image.format.ffmpeg_demuxer(), &image.path, &[]);
        inputs += 1;
    }
    let pad = format!("{inputs}:a");
    if let Some(music) = music {
        cmd.input(
            music.format.ffmpeg_demuxer(),
            &music.path,
            &["-stream_loop", "-1"],
        );
    }
    let graph = brand_graph(plan, music.map(|_| pad.as_str()))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::catalog::builtin_templates;
    use stillreel_effects::template::{FieldValue, intro_overlay, outro_card};

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

    const FRAME: Frame = Frame {
        width: 1280,
        height: 720,
        fps: 30,
    };

    fn layer(slot: &BrandSlot, intro: bool) -> BrandLayer {
        let values = slot
            .values
            .iter()
            .map(|(k, v)| match v {
                TemplateValue::Text { value } => (k.clone(), FieldValue::Text(value.clone())),
                TemplateValue::Image { url } => (k.clone(), FieldValue::Text(url.clone())),
            })
            .collect::<BTreeMap<_, _>>();
        let graph = if intro {
            intro_overlay(&slot.template, &values, FRAME)
        } else {
            outro_card(&slot.template, &values, FRAME)
        };
        (graph.expect("template graph"), vec![])
    }

    fn intro() -> Option<BrandLayer> {
        Some(layer(
            &slot("intro-title-card", &[("headline", "Just listed")]),
            true,
        ))
    }

    fn outro() -> Option<BrandLayer> {
        Some(layer(
            &slot("outro-minimal", &[("brokerage", "Acme")]),
            false,
        ))
    }

    /// Four standard clips, intro and outro.
    fn plan(ramp: bool) -> BrandPlan {
        BrandPlan::new(&[150; 4], FRAME, ramp, intro(), outro())
    }

    #[test]
    fn frames_add_up() {
        assert_eq!(plan(false).total_frames(), 600 + 90);
        assert_eq!(plan(true).total_frames(), 600 - 3 * 36 + 90);
    }

    #[test]
    fn without_the_ramp_every_frame_keeps_its_place() {
        let p = plan(false);
        assert!(p.ramp.is_none());
        assert_eq!(p.body_frames(), 600);
        assert_eq!(p.cut_frames(), [150, 300, 450]);
        assert_eq!(p.intro_frames(), 90);
        assert_eq!(p.outro_start(), Some(600));
        assert!((p.seconds() - 23.0).abs() < 1e-9);
    }

    #[test]
    fn the_ramp_moves_each_cut_by_the_frames_it_saves() {
        // Each side of a cut turns 36 source frames (12 at 1.5x, 2x, 3x) into 18.
        let p = plan(true);
        assert_eq!(p.main_frames(), 600);
        assert_eq!(p.body_frames(), 492);
        assert_eq!(p.cut_frames(), [132, 246, 360]);
        assert_eq!(p.output_frame(0), 0);
        assert_eq!(
            p.output_frame(114),
            114,
            "ramp into the first cut starts here"
        );
        assert_eq!(p.output_frame(126), 122, "12 frames at 1.5x are 8");
        assert_eq!(p.intro_frames(), 90);
        assert_eq!(p.outro_start(), Some(492));
        assert_eq!(p.total_frames(), 582);
        assert!((p.seconds() - 19.4).abs() < 1e-9);
    }

    #[test]
    fn one_clip_or_short_clips_get_no_ramp() {
        assert!(
            BrandPlan::new(&[150], FRAME, true, None, None)
                .ramp
                .is_none()
        );
        assert!(
            BrandPlan::new(&[150, 60], FRAME, true, None, None)
                .ramp
                .is_none()
        );
        let bare = BrandPlan::new(&[150, 150], FRAME, false, None, None);
        assert_eq!(bare.total_frames(), 300);
        assert_eq!((bare.intro_frames(), bare.outro_start()), (0, None));
    }

    #[test]
    fn a_blended_main_video_is_shorter_by_its_overlaps() {
        let frames = BrandJob::joined_clips(3, Transition::Crossfade);
        assert_eq!(frames, [135, 135, 150]);
        assert_eq!(frames.iter().sum::<u32>(), 450 - 2 * 15);
        assert_eq!(BrandJob::joined_clips(3, Transition::Cut), [150; 3]);
        assert!(BrandJob::joined_clips(0, Transition::Crossfade).is_empty());
    }

    #[test]
    fn a_short_body_limits_the_intro() {
        let p = BrandPlan::new(&[60], FRAME, false, intro(), None);
        assert_eq!(p.intro_frames(), 60);
    }

    #[test]
    fn image_paths_are_mapped_and_nothing_else() {
        let mut p = BrandPlan::new(&[150; 2], FRAME, true, None, None);
        p.outro = Some((
            outro().expect("outro").0,
            vec![BrandImage {
                path: PathBuf::from("/work/job/outro-logo.png"),
                format: MediaFormat::Png,
            }],
        ));
        let mapped = p.map_paths(|path| path.strip_prefix("/work/job").expect("in dir").into());
        let images = &mapped.outro.as_ref().expect("outro").1;
        assert_eq!(images[0].path, Path::new("outro-logo.png"));
        assert_eq!(images[0].format, MediaFormat::Png);
        assert_eq!(mapped.total_frames(), p.total_frames());
        assert_eq!(mapped.ramp, p.ramp);
    }

    #[test]
    fn command_is_this_list() {
        let p = plan(true);
        let cmd = brand_command(
            &p,
            Path::new("main.mp4"),
            None,
            &Encoding::default(),
            Path::new("b.mp4"),
        )
        .expect("command");
        let graph = brand_graph(&p, None).expect("graph");
        let expected: Vec<&str> = vec![
            "-nostdin",
            "-hide_banner",
            "-y",
            "-stats_period",
            "0.1",
            "-filter_complex_threads",
            "1",
            "-protocol_whitelist",
            "file",
            "-f",
            "mov",
            "-i",
            "./main.mp4",
            "-filter_complex",
            &graph,
            "-map",
            "[b_v]",
            "-map",
            "[b_a]",
            "-frames:v",
            "582",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            "20",
            "-profile:v",
            "high",
            "-level:v",
            "3.1",
            "-pix_fmt",
            "yuv420p",
            "-r",
            "30",
            "-g",
            "60",
            "-video_track_timescale",
            "15360",
            "-c:a",
            "aac",
            "-b:a",
            "128k",
            "-ar",
            "48000",
            "-ac",
            "2",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
            "./b.mp4",
        ];
        assert_eq!(cmd.args, expected);
        assert_eq!(cmd.planned_frames, 582);
    }

    #[test]
    fn graph_ramps_overlays_and_appends_the_outro() {
        let g = brand_graph(&plan(true), None).expect("graph");
        assert!(g.starts_with("[0:v]select="), "{g}");
        // Silence for the whole 582 frames (19.4 s at 48 kHz), outro included.
        assert!(
            g.ends_with(
                "atrim=end_sample=931200,aformat=sample_fmts=fltp:channel_layouts=stereo[b_a]"
            ),
            "{g}"
        );
        assert!(!g.contains("0:a"), "the main video's sound is not read");
        assert!(g.contains("[b_iv][b_ov]concat=n=2:v=1:a=0[b_v]"));
        assert!(!g.contains("[in]") && !g.contains("[out]"));
        let plain =
            brand_graph(&BrandPlan::new(&[150; 2], FRAME, false, None, None), None).expect("graph");
        assert!(plain.starts_with("[0:v]setpts=N/30/TB"), "{plain}");
        assert!(plain.contains("[b_rv]null[b_v];anullsrc"), "{plain}");
    }

    #[test]
    fn music_runs_under_the_outro_and_fades_out_with_it() {
        let p = plan(false);
        assert_eq!(p.music_fade(), (20.0, 3.0), "outro from 20 s to 23 s");
        let g = brand_graph(&p, Some("1:a")).expect("graph");
        assert!(
            g.contains("[1:a]atrim=duration=23.000,")
                && g.contains("afade=t=out:st=20.000:d=3[b_a]"),
            "{g}"
        );
        let bare = BrandPlan::new(&[150; 2], FRAME, false, intro(), None);
        assert_eq!(bare.music_fade(), (9.0, 1.0), "no outro: the last second");
        let music = MusicInput {
            path: "music.ogg".into(),
            format: MediaFormat::Ogg,
        };
        let cmd = brand_command(
            &p,
            Path::new("main.mp4"),
            Some(&music),
            &Encoding::default(),
            Path::new("b.mp4"),
        )
        .expect("command");
        let i = cmd
            .args
            .iter()
            .position(|a| a == "./music.ogg")
            .expect("music input");
        assert_eq!(cmd.args[i - 3..i - 1], ["-stream_loop", "-1"]);
        assert!(
            cmd.args.iter().any(|a| a.contains("[1:a]atrim")),
            "no images: music is input 1"
        );
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

    fn job(clips: usize, ramp: bool, outro: bool) -> BrandJob {
        let slot = |id: &str| {
            let t = builtin_templates().iter().find(|t| t.id == id).expect(id);
            BrandSlot {
                template: t.clone(),
                values: Default::default(),
            }
        };
        BrandJob {
            key_prefix: "v".into(),
            main_key: "v/video.mp4".into(),
            clip_frames: BrandJob::standard_clips(clips),
            orientation: Orientation::Landscape,
            resolution: Resolution::P720,
            intro: None,
            outro: outro.then(|| slot("outro-minimal")),
            speed_ramp: ramp,
            clip_pace: Pace::Through,
            music: None,
            sound_key: None,
        }
    }

    #[test]
    fn the_job_decides_the_same_sound_as_the_plan() {
        let outro = || {
            let t = builtin_templates()
                .iter()
                .find(|t| t.id == "outro-minimal")
                .expect("template");
            let g = outro_card(t, &Default::default(), FRAME).expect("graph");
            Some((g, vec![]))
        };
        for clips in [1, 2, 6] {
            for ramp in [false, true] {
                for with_outro in [false, true] {
                    let j = job(clips, ramp, with_outro);
                    let plan = BrandPlan::new(
                        &j.clip_frames,
                        FRAME,
                        j.ramp_visible(),
                        intro(),
                        if with_outro { outro() } else { None },
                    );
                    assert_eq!(j.sound(), plan.sound(), "{clips} clips, ramp {ramp}");
                    assert_eq!(j.sound().frames, plan.total_frames());
                }
            }
        }
        // The ramp shortens the body; the outro adds its 3 s and takes the fade.
        let s = job(6, true, true).sound();
        assert!(s.frames < 900 + 90, "{s:?}");
        assert_eq!(s.fade_frames, 90);
        assert_eq!(s.fade_start + 90, s.frames);
    }
}
