//! The branded render without a speed ramp, by stream copy (the ramped one, `ramp_copy.rs`,
//! reuses its outro, sound and join): only what differs from the main
//! video is encoded (the intro's span up to the next keyframe, the outro card), and the rest of
//! the main video's packets are copied between them by the concat demuxer. The music (or
//! silence) is laid again under the whole, so it runs through the outro card.
//!
//! ```text
//! head.mp4  = main frames [0, head) + intro overlay, encoded with the clips' settings
//! outro.mp4 = the outro card, encoded with the clips' settings
//! sound.m4a = music looped, cut to the length, faded out over the outro (or silence)
//!             (the three encoded at the same time)
//! branded   = concat(head.mp4, main.mp4 from its keyframe at `head`, outro.mp4) + sound.m4a
//!             -c copy
//! ```
//!
//! Copying is only safe when the parts share their H.264 parameter sets; the caller checks
//! the `avcC` extradata of every encoded part against the main video's
//! ([`VideoFacts::extradata`]) and falls back to the one-pass render when they differ (a main
//! video from another encoder or other settings).

use std::path::Path;

use super::plan::{BrandPlan, layer_text};
use crate::ffmpeg::command::{self, ConcatEntry, Encoding, FfmpegArgs};
use crate::media::keyframes::{Keyframe, VideoFacts};
use stillreel_effects::EffectError;

/// How the copied branded video is put together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopyPlan {
    /// Frames of the main video re-encoded with the intro over them (0: none, the main video
    /// is copied from its start).
    pub head_frames: u32,
    /// Time in the main video's file of the keyframe the copy starts at.
    pub inpoint: f64,
}

impl BrandPlan {
    /// The copy plan for a main video with `facts`: the head runs to the first keyframe at or
    /// after the intro's end. `None`: a ramp (every frame moves), or no keyframe after the
    /// intro before the end, so only the one-pass render can do it.
    pub fn copy_plan(&self, facts: &VideoFacts) -> Option<CopyPlan> {
        if self.ramp.is_some() {
            return None;
        }
        let intro = self.intro_frames();
        let frames = facts.frames(self.fps);
        let &(head_frames, Keyframe { pts: inpoint, .. }) = frames
            .iter()
            .find(|&&(n, _)| n >= intro && (n < self.main_frames() || intro == 0))?;
        Some(CopyPlan {
            head_frames,
            inpoint,
        })
    }
}

/// The head: the main video's first `copy.head_frames` frames with the intro drawn over them,
/// video only, encoded like the clips with the main video's colour description (`color`).
/// `None` without an intro.
pub fn head_command(
    plan: &BrandPlan,
    copy: &CopyPlan,
    main: &Path,
    encoding: &Encoding,
    color: &[String],
    output: &Path,
) -> Result<Option<FfmpegArgs>, EffectError> {
    let Some((graph, images)) = &plan.intro else {
        return Ok(None);
    };
    if copy.head_frames == 0 {
        return Ok(None);
    }
    let frames = copy.head_frames;
    let mut cmd = FfmpegArgs::new(frames);
    cmd.input("mov", main, &[]);
    for image in images {
        cmd.input(image.format.ffmpeg_demuxer(), &image.path, &[]);
    }
    let fps = plan.fps;
    let mut next = 1;
    let intro = layer_text(graph, images.len(), &mut next, "b_rv", "b_v", "in_")?;
    let g = format!(
        "[0:v]trim=end_frame={frames},setpts=N/{fps}/TB,format=yuv420p,setsar=1[b_rv];{intro}"
    );
    part_output(
        &mut cmd,
        &g,
        frames,
        plan,
        (encoding, color, PART_SEARCH),
        output,
    );
    Ok(Some(cmd))
}

/// The outro card alone, video only, encoded like the clips with the main video's colour
/// description (`color`, [`VideoFacts::color_args`]). `None` without an outro.
pub fn outro_command(
    plan: &BrandPlan,
    encoding: &Encoding,
    color: &[String],
    output: &Path,
) -> Result<Option<FfmpegArgs>, EffectError> {
    let Some((graph, images)) = &plan.outro else {
        return Ok(None);
    };
    let frames = plan.total_frames() - plan.body_frames();
    let mut cmd = FfmpegArgs::new(frames);
    for image in images {
        cmd.input(image.format.ffmpeg_demuxer(), &image.path, &[]);
    }
    let mut next = 0;
    let g = layer_text(graph, images.len(), &mut next, "b_none", "b_v", "out_")?;
    part_output(
        &mut cmd,
        &g,
        frames,
        plan,
        (encoding, color, CARD_PARAMS),
        output,
    );
    Ok(Some(cmd))
}

/// The motion search of a branded part: diamond search and one subpixel refinement, where the
/// clips' veryfast preset uses hexagon and two. Neither is written in the parameter sets, so
/// the parts still join the main video by copy (checked before every join). Measured on the
/// 1080p head (the history of docs/BENCHMARKS.md): 5.2 → 3.8 CPU-s, 46.36 → 46.23 dB
/// against the unencoded frames, 3.5 % larger.
pub const PART_SEARCH: &str = "me=dia:subme=1";

/// The outro card's x264 settings: [`PART_SEARCH`] on one thread. The card is still after its
/// fade, so frame threads only add their own work (1.88 → 1.35 CPU-s at 1080p), and it is
/// encoded beside the head, which has the cores' other threads (the pair 2.69 → 2.26–2.59 s).
pub const CARD_PARAMS: &str = "me=dia:subme=1:threads=1";

pub(super) fn part_output(
    cmd: &mut FfmpegArgs,
    graph: &str,
    frames: u32,
    plan: &BrandPlan,
    (encoding, color, x264): (&Encoding, &[String], &str),
    output: &Path,
) {
    command::push(
        &mut cmd.args,
        ["-filter_complex", graph, "-map", "[b_v]", "-an"],
    );
    command::push(&mut cmd.args, ["-frames:v", &frames.to_string()]);
    command::encode_video_args(&mut cmd.args, plan.width, plan.height, plan.fps, encoding);
    command::push(&mut cmd.args, ["-x264-params", x264]);
    cmd.args.extend(color.iter().cloned());
    command::push(&mut cmd.args, ["-f", "mp4"]);
    cmd.args.push(command::local_arg(output));
}

/// The concat list of the copied video: the head (if encoded), the main video from the copy's
/// keyframe, the outro card (if any). Names are files in the work directory.
pub fn join_entries(
    copy: &CopyPlan,
    head: Option<&str>,
    main: &str,
    outro: Option<&str>,
) -> Vec<ConcatEntry> {
    let mut entries = Vec::new();
    entries.extend(head.map(ConcatEntry::whole));
    entries.push(ConcatEntry {
        inpoint: (copy.head_frames > 0).then_some(copy.inpoint),
        ..ConcatEntry::whole(main)
    });
    entries.extend(outro.map(ConcatEntry::whole));
    entries
}

/// The join: `list` (from [`join_entries`]) and `sound` (from [`crate::plan::sound::sound_command`]) copied into
/// one file, `+faststart`. Nothing is decoded or encoded.
pub fn join_command(plan: &BrandPlan, list: &Path, sound: &Path, output: &Path) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(plan.total_frames());
    cmd.input("concat", list, &[]);
    cmd.input("mov", sound, &[]);
    command::push(
        &mut cmd.args,
        [
            "-map",
            "0:v",
            "-map",
            "1:a",
            "-c",
            "copy",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
        ],
    );
    cmd.args.push(command::local_arg(output));
    cmd
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::ffmpeg::command::MusicInput;
    use stillreel_effects::template::Frame;

    pub(in crate::brand) const FRAME: Frame = Frame {
        width: 1280,
        height: 720,
        fps: 30,
    };

    /// The lower-third intro at [`FRAME`] (the ramp's plan tests use it too).
    pub(in crate::brand) fn intro() -> Option<super::super::plan::BrandLayer> {
        use stillreel_core::catalog::builtin_templates;
        use stillreel_effects::template::{FieldValue, intro_overlay};
        let t = builtin_templates()
            .iter()
            .find(|t| t.id == "intro-lower-third")
            .expect("template");
        let values = [("address".to_owned(), FieldValue::Text("12 Elm St".into()))].into();
        Some((intro_overlay(t, &values, FRAME).expect("graph"), vec![]))
    }

    fn facts(pts: &[f64]) -> VideoFacts {
        VideoFacts {
            keyframes: pts.iter().map(|&pts| Keyframe { pts, dts: pts }).collect(),
            ..VideoFacts::default()
        }
    }

    #[test]
    fn the_head_runs_to_the_first_keyframe_after_the_intro() {
        let plan = BrandPlan::new(&[150; 3], FRAME, false, intro(), None);
        // Keyframes every 2 s in each 5 s clip, as the clips are encoded.
        let keys = [0.0, 2.0, 4.0, 5.0, 7.0, 9.0, 10.0, 12.0, 14.0];
        let copy = plan.copy_plan(&facts(&keys)).expect("copyable");
        assert_eq!(
            copy.head_frames, 120,
            "intro is 90 frames, next keyframe at 4 s"
        );
        assert!((copy.inpoint - 4.0).abs() < 1e-9);
        // An offset timeline (edit list) is measured from its first keyframe.
        let shifted: Vec<f64> = keys.iter().map(|k| k + 0.1).collect();
        let copy = plan.copy_plan(&facts(&shifted)).expect("copyable");
        assert_eq!(copy.head_frames, 120);
        assert!((copy.inpoint - 4.1).abs() < 1e-9);
    }

    #[test]
    fn no_intro_copies_from_the_start_and_ramps_or_missing_keyframes_cannot_copy() {
        let bare = BrandPlan::new(&[150; 2], FRAME, false, None, None);
        let copy = bare.copy_plan(&facts(&[0.0, 5.0])).expect("copyable");
        assert_eq!(copy.head_frames, 0);
        assert_eq!(
            join_entries(&copy, None, "main.mp4", None),
            [ConcatEntry::whole("main.mp4")]
        );
        let only_first = BrandPlan::new(&[150], FRAME, false, intro(), None);
        assert_eq!(
            only_first.copy_plan(&facts(&[0.0])),
            None,
            "no keyframe after 3 s"
        );
        let ramped = BrandPlan::new(&[150; 2], FRAME, true, intro(), None);
        assert_eq!(ramped.copy_plan(&facts(&[0.0, 4.0, 5.0])), None);
        assert_eq!(bare.copy_plan(&facts(&[])), None);
    }

    #[test]
    fn the_join_copies_video_and_lays_the_sound_once() {
        let plan = BrandPlan::new(&[150; 2], FRAME, false, intro(), None);
        let copy = plan
            .copy_plan(&facts(&[0.0, 2.0, 4.0, 5.0, 7.0, 9.0]))
            .expect("copy");
        let entries = join_entries(&copy, Some("head.mp4"), "main.mp4", Some("outro.mp4"));
        let list = command::concat_list_from(&entries).expect("safe names");
        assert_eq!(
            list,
            "ffconcat version 1.0\nfile 'head.mp4'\nfile 'main.mp4'\ninpoint 4.000000\n\
             file 'outro.mp4'\n"
        );
        let cmd = join_command(
            &plan,
            Path::new("join.ffconcat"),
            Path::new("sound.m4a"),
            Path::new("b.mp4"),
        );
        let at = |cmd: &FfmpegArgs, flag: &str| {
            let i = cmd.args.iter().position(|a| a == flag).expect(flag);
            cmd.args[i + 1].clone()
        };
        assert_eq!(at(&cmd, "-c"), "copy", "video and sound copied");
        assert_eq!(cmd.planned_frames, 300);
        // Both streams are exactly as long as planned; a `-frames:v` or `-t` would stop the
        // output with the last video packet and cut the interleaved audio short.
        assert!(!cmd.args.iter().any(|a| a == "-t" || a == "-frames:v"));
        assert!(!cmd.args.iter().any(|a| a == "-filter_complex"));
        let silent = crate::plan::sound::sound_command(&plan.sound(), None, Path::new("sound.m4a"));
        assert!(at(&silent, "-filter_complex").starts_with("anullsrc=r=48000"));
        assert_eq!(at(&silent, "-c:a"), "aac");
        let music = MusicInput {
            path: "music.mp3".into(),
            format: stillreel_core::media::MediaFormat::Mp3,
        };
        let cmd =
            crate::plan::sound::sound_command(&plan.sound(), Some(&music), Path::new("sound.m4a"));
        assert_eq!(at(&cmd, "-stream_loop"), "-1");
        let g = at(&cmd, "-filter_complex");
        assert!(g.starts_with("[0:a]atrim=duration=10.000"), "{g}");
        assert!(g.contains("afade=t=out:st=9.000:d=1[b_a]"), "{g}");
    }
}
