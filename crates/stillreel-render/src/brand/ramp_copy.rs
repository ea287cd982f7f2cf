//! The branded render with the speed ramp, by parts: the ramp changes only the frames around
//! each cut (36 source frames on each side at 1.5×, 2× and 3×), so only those spans, the
//! intro's and the outro card are encoded; the stretches of each clip that play at normal
//! speed are copied packet for packet between keyframes. The clips of a video that will be
//! ramped are keyed where the ramp's steps begin and end ([`crate::ffmpeg::clip_keys`]), so with a
//! 5 s clip each copy runs from source frame 36 to 114 of it:
//!
//! ```text
//! part-000.mp4 = main [0, 90) + intro              (encoded)
//! main.mp4       [90, 114)                         (copied)
//! part-001.mp4 = main [114, 186) ramped: 36 frames (encoded)
//! main.mp4       [186, 264)                        (copied)
//! …
//! outro.mp4, sound.m4a as without the ramp (`copy.rs`), joined by the concat demuxer.
//! ```
//!
//! [`BrandPlan::parts_plan`] is pure: from the main video's keyframes it decides every part
//! and its frame count, which add up to [`BrandPlan::body_frames`]. Without keyframes at the
//! ramp's boundaries (clips made for a video without the ramp, then combined) the stretches
//! to copy shrink to whatever lies between keyframes, and with none at all the plan is `None`:
//! the one-pass render (`brand_command`) does it.

use std::path::Path;

use stillreel_effects::EffectError;
use stillreel_effects::ramp::{RampPlan, Segment};

use super::plan::{BrandPlan, layer_text};
use crate::ffmpeg::command::{ConcatEntry, Encoding, FfmpegArgs};
use crate::media::keyframes::{Keyframe, VideoFacts};

/// One part of the ramped branded video's picture, in order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    /// Source frames `[from, to)` of the main video re-encoded: the ramp's frame selection
    /// over them, and the intro over the output frames before [`BrandPlan::intro_frames`].
    Encode {
        from: u32,
        to: u32,
        /// The keyframe at `from` the encoder seeks to (`None`: `from` is 0).
        seek: Option<Keyframe>,
    },
    /// Source frames `[from, to)` copied, all at normal speed: from the keyframe at `from` to
    /// just before the keyframe at `to` (`None`: to the end of the main video).
    Copy {
        from: u32,
        to: u32,
        start: Keyframe,
        end: Option<Keyframe>,
    },
}

/// How the ramped branded video is put together.
#[derive(Debug, Clone, PartialEq)]
pub struct PartsPlan {
    pub parts: Vec<Part>,
}

impl BrandPlan {
    /// The parts of the ramped branded render for a main video with `facts`. `None`: no ramp
    /// (`copy_plan` does that one), or no stretch at normal speed between two keyframes to
    /// copy, so the one-pass render is as good.
    pub fn parts_plan(&self, facts: &VideoFacts) -> Option<PartsPlan> {
        let ramp = self.ramp.as_ref()?;
        let keys = facts.frames(self.fps);
        let key_at = |n: u32| keys.iter().find(|(k, _)| *k == n).map(|&(_, key)| key);
        let main = self.main_frames();
        let intro = self.intro_frames();
        let mut copies = Vec::new();
        for s in ramp.segments.iter().filter(|s| s.num == s.den) {
            let (start, end) = (s.start, s.start + s.frames);
            // A normal-speed frame keeps its place relative to the segment's first.
            let out = self.output_frame(start);
            let lo = start + intro.saturating_sub(out);
            let Some(&(from, first)) = keys.iter().find(|(k, _)| (lo..end).contains(k)) else {
                continue;
            };
            let last = if end == main {
                Some((end, None))
            } else {
                keys.iter()
                    .rev()
                    .find(|(k, _)| *k > from && *k <= end)
                    .map(|&(k, key)| (k, Some(key)))
            };
            if let Some((to, end_key)) = last {
                copies.push(Part::Copy {
                    from,
                    to,
                    start: first,
                    end: end_key,
                });
            }
        }
        if copies.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        let mut at = 0;
        for copy in copies {
            let Part::Copy { from, to, .. } = copy else {
                continue;
            };
            if from > at {
                let seek = if at == 0 { None } else { Some(key_at(at)?) };
                parts.push(Part::Encode {
                    from: at,
                    to: from,
                    seek,
                });
            }
            parts.push(copy);
            at = to;
        }
        if at < main {
            parts.push(Part::Encode {
                from: at,
                to: main,
                seek: Some(key_at(at)?),
            });
        }
        Some(PartsPlan { parts })
    }

    /// Output frames of `part`.
    pub fn part_frames(&self, part: &Part) -> u32 {
        match *part {
            Part::Encode { from, to, .. } | Part::Copy { from, to, .. } => {
                self.output_frame(to) - self.output_frame(from)
            }
        }
    }

    /// The ramp over source frames `[from, to)` alone, its frames counted from `from` (a
    /// part's boundaries lie in normal-speed stretches or between segments, so no step of
    /// the ramp is cut).
    fn ramp_between(&self, from: u32, to: u32) -> Option<RampPlan> {
        let ramp = self.ramp.as_ref()?;
        let segments: Vec<Segment> = ramp
            .segments
            .iter()
            .filter(|s| s.start < to && s.start + s.frames > from)
            .map(|s| {
                let start = s.start.max(from);
                Segment {
                    start: start - from,
                    frames: (s.start + s.frames).min(to) - start,
                    ..*s
                }
            })
            .collect();
        segments.iter().any(|s| s.num != s.den).then_some(RampPlan {
            fps: ramp.fps,
            segments,
        })
    }
}

/// The encoded part `part` (a [`Part::Encode`]) of the main video, video only, encoded like
/// the clips with the main video's colour description (`color`): seeked to its keyframe
/// (`-noaccurate_seek`: the decoder starts at that keyframe, no frame before it is read),
/// the ramp's selection, the intro over its first frames when it starts the video.
pub fn part_command(
    plan: &BrandPlan,
    part: &Part,
    main: &Path,
    encoding: &Encoding,
    color: &[String],
    output: &Path,
) -> Result<Option<FfmpegArgs>, EffectError> {
    let Part::Encode { from, to, seek } = *part else {
        return Ok(None);
    };
    let frames = plan.part_frames(part);
    let fps = plan.fps;
    let mut cmd = FfmpegArgs::new(frames);
    match seek {
        // A quarter frame past the keyframe's time: the demuxer seeks to the last keyframe at
        // or before it, this one, whatever the rounding of its printed time.
        Some(key) => {
            let at = format!("{:.6}", key.pts + 0.25 / f64::from(fps));
            cmd.input("mov", main, &["-ss", &at, "-noaccurate_seek"]);
        }
        None => cmd.input("mov", main, &[]),
    }
    let select = plan
        .ramp_between(from, to)
        .map(|r| format!("{},", r.video_filter()))
        .unwrap_or_default();
    let mut graph = format!(
        "[0:v]trim=end_frame={n},{select}setpts=N/{fps}/TB,format=yuv420p,setsar=1",
        n = to - from
    );
    match &plan.intro {
        Some((intro, images)) if from == 0 && plan.intro_frames() > 0 => {
            for image in images {
                cmd.input(image.format.ffmpeg_demuxer(), &image.path, &[]);
            }
            let mut next = 1;
            let text = layer_text(intro, images.len(), &mut next, "b_rv", "b_v", "in_")?;
            graph.push_str(&format!("[b_rv];{text}"));
        }
        _ => graph.push_str("[b_v]"),
    }
    super::copy::part_output(
        &mut cmd,
        &graph,
        frames,
        plan,
        (encoding, color, super::copy::PART_SEARCH),
        output,
    );
    Ok(Some(cmd))
}

/// The concat list of the ramped video: each part in order (`encoded[i]` names the file of
/// the `i`-th encoded part), copies taken from `main`, then the outro card (if any). Every
/// entry carries its exact length, so the next one's timestamps follow it exactly.
pub fn parts_entries(
    plan: &BrandPlan,
    parts: &PartsPlan,
    encoded: &[String],
    main: &str,
    outro: Option<&str>,
) -> Vec<ConcatEntry> {
    let fps = f64::from(plan.fps);
    let mut names = encoded.iter();
    let mut entries = Vec::new();
    for part in &parts.parts {
        let duration = Some(f64::from(plan.part_frames(part)) / fps);
        match *part {
            Part::Encode { .. } => {
                if let Some(name) = names.next() {
                    entries.push(ConcatEntry {
                        duration,
                        ..ConcatEntry::whole(name)
                    });
                }
            }
            Part::Copy { start, end, .. } => entries.push(ConcatEntry {
                name: main.to_owned(),
                inpoint: Some(start.pts),
                outpoint: end.map(|k| k.dts),
                duration,
            }),
        }
    }
    entries.extend(outro.map(ConcatEntry::whole));
    entries
}

#[cfg(test)]
mod tests {
    use super::super::copy::tests::{FRAME, intro};
    use super::*;
    use crate::ffmpeg::clip_keys::{ClipUse, clip_keyframes};
    use stillreel_core::Transition;

    /// Keyframes of `clips` 150-frame clips, each with its GOP (every 60 frames) and `extra`
    /// clip frames, joined end to end; B-frames put each decoding time 2 frames earlier.
    fn facts(clips: u32, extra: &[u32]) -> VideoFacts {
        let mut keys = Vec::new();
        for c in 0..clips {
            let mut local = vec![0, 60, 120];
            local.extend(extra);
            local.sort_unstable();
            local.dedup();
            for f in local {
                let pts = f64::from(c * 150 + f) / 30.0;
                keys.push(Keyframe {
                    pts,
                    dts: pts - 2.0 / 30.0,
                });
            }
        }
        VideoFacts {
            keyframes: keys,
            ..VideoFacts::default()
        }
    }

    fn spans(plan: &BrandPlan, parts: &PartsPlan) -> Vec<(char, u32, u32, u32)> {
        parts
            .parts
            .iter()
            .map(|p| match *p {
                Part::Encode { from, to, .. } => ('e', from, to, plan.part_frames(p)),
                Part::Copy { from, to, .. } => ('c', from, to, plan.part_frames(p)),
            })
            .collect()
    }

    #[test]
    fn ramp_keys_leave_only_the_ramped_spans_and_the_intro_to_encode() {
        let plan = BrandPlan::new(&[150; 3], FRAME, true, intro(), None);
        let usage = ClipUse {
            transition: Transition::Cut,
            branded_intro: true,
            ramp: true,
        };
        let keyed = |i: usize| clip_keyframes(i, 150, 30, usage);
        assert_eq!(keyed(0), [36, 90, 114]);
        let parts = plan.parts_plan(&facts(3, &keyed(0))).expect("parts");
        assert_eq!(
            spans(&plan, &parts),
            [
                ('e', 0, 90, 90),
                ('c', 90, 114, 24),
                ('e', 114, 186, 36),
                ('c', 186, 264, 78),
                ('e', 264, 336, 36),
                ('c', 336, 450, 114),
            ]
        );
        let total: u32 = parts.parts.iter().map(|p| plan.part_frames(p)).sum();
        assert_eq!(total, plan.body_frames());
        // The first part seeks nowhere and carries the intro; the others start at keyframes.
        assert!(matches!(parts.parts[0], Part::Encode { seek: None, .. }));
        let Part::Encode { seek: Some(k), .. } = parts.parts[2] else {
            panic!("seek")
        };
        assert!((k.pts - 3.8).abs() < 1e-9, "clip 0's frame 114");
        let entries = parts_entries(
            &plan,
            &parts,
            &[
                "part-0.mp4".into(),
                "part-1.mp4".into(),
                "part-2.mp4".into(),
            ],
            "main.mp4",
            Some("outro.mp4"),
        );
        let list = crate::ffmpeg::command::concat_list_from(&entries).expect("list");
        assert_eq!(
            list,
            "ffconcat version 1.0\nfile 'part-0.mp4'\nduration 3.000000\n\
             file 'main.mp4'\ninpoint 3.000000\noutpoint 3.733333\nduration 0.800000\n\
             file 'part-1.mp4'\nduration 1.200000\n\
             file 'main.mp4'\ninpoint 6.200000\noutpoint 8.733333\nduration 2.600000\n\
             file 'part-2.mp4'\nduration 1.200000\n\
             file 'main.mp4'\ninpoint 11.200000\nduration 3.800000\nfile 'outro.mp4'\n"
        );
    }

    #[test]
    fn part_commands_seek_select_and_draw_the_intro_only_at_the_start() {
        let plan = BrandPlan::new(&[150; 3], FRAME, true, intro(), None);
        let parts = plan.parts_plan(&facts(3, &[36, 90, 114])).expect("parts");
        let enc = Encoding::default();
        let cmd = |i: usize| {
            part_command(
                &plan,
                &parts.parts[i],
                Path::new("main.mp4"),
                &enc,
                &[],
                Path::new("p.mp4"),
            )
            .expect("command")
        };
        assert!(cmd(1).is_none(), "a copy has no command");
        let head = cmd(0).expect("head");
        let at = |c: &FfmpegArgs, flag: &str| {
            let i = c.args.iter().position(|a| a == flag).expect(flag);
            c.args[i + 1].clone()
        };
        assert!(!head.args.iter().any(|a| a == "-ss"));
        let g = at(&head, "-filter_complex");
        assert!(
            g.starts_with("[0:v]trim=end_frame=90,setpts=N/30/TB"),
            "{g}"
        );
        assert!(g.contains("in_"), "intro drawn: {g}");
        assert_eq!(at(&head, "-frames:v"), "90");
        let cut = cmd(2).expect("cut");
        assert_eq!(at(&cut, "-ss"), "3.808333");
        assert!(cut.args.iter().any(|a| a == "-noaccurate_seek"));
        let g = at(&cut, "-filter_complex");
        assert!(g.starts_with("[0:v]trim=end_frame=72,select="), "{g}");
        assert!(!g.contains("in_"), "{g}");
        assert_eq!(at(&cut, "-frames:v"), "36");
        // The part's selection keeps the same frames the whole ramp keeps there.
        let sub = plan.ramp_between(114, 186).expect("ramp");
        let whole: Vec<u32> = plan
            .ramp
            .as_ref()
            .expect("ramp")
            .kept_frames()
            .into_iter()
            .filter(|n| (114..186).contains(n))
            .map(|n| n - 114)
            .collect();
        assert_eq!(sub.kept_frames(), whole);
    }

    #[test]
    fn without_ramp_keys_copies_shrink_to_the_gops_or_the_one_pass_render_does_it() {
        // Clips keyed for nothing but their GOP: copies only between GOP keyframes.
        let plan = BrandPlan::new(&[150; 3], FRAME, true, intro(), None);
        let parts = plan.parts_plan(&facts(3, &[])).expect("parts");
        let frames: u32 = parts.parts.iter().map(|p| plan.part_frames(p)).sum();
        assert_eq!(frames, plan.body_frames());
        // Only the last clip's middle lies between two keyframes (from its GOP's at 360 to
        // the end); everything before is encoded in one part.
        assert_eq!(
            spans(&plan, &parts),
            [('e', 0, 360, 288), ('c', 360, 450, 90)]
        );
        // No keyframe at all but the first: nothing to copy.
        let bare = VideoFacts {
            keyframes: vec![Keyframe { pts: 0.0, dts: 0.0 }],
            ..VideoFacts::default()
        };
        assert_eq!(plan.parts_plan(&bare), None);
        // No ramp: not this plan's business.
        let flat = BrandPlan::new(&[150; 3], FRAME, false, intro(), None);
        assert_eq!(flat.parts_plan(&facts(3, &[36, 90, 114])), None);
    }
}
