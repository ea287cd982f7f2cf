//! Blended transitions at the joins of a video (`crossfade`, `fade-black`), pure: where each
//! seam is re-encoded and what is copied between seams.
//!
//! Clips overlap by [`Transition::overlap_frames`] at each join, so a video of `n` clips is
//! `(n - 1) * overlap` frames shorter than its clips end to end. Only a seam is encoded: the
//! left clip from its last keyframe at or before the overlap, blended into the right clip up to
//! its first keyframe after the overlap. Between seams every clip's packets are copied (concat
//! demuxer `inpoint`/`outpoint` at those keyframes), so a seam costs about 1 to 3 s of
//! encoding whatever the video's length:
//!
//! ```text
//! clip 0 [0, t0) copied │ seam 0: clip 0 [t0, end) ⨯ clip 1 [0, h1) │ clip 1 [h1, t1) copied │ …
//! ```
//!
//! When a clip's keyframes do not allow it (a head reaching past the next tail), [`SeamPlan::new`]
//! answers `None` and the stitch re-encodes the whole video in one pass ([`blend_all_command`]).

use std::path::Path;

use stillreel_core::Transition;

use crate::command::{self, ConcatEntry, Encoding, FfmpegArgs};
use crate::keyframes::{Keyframe, VideoFacts};

/// The xfade transition of a blended join.
fn xfade_name(transition: Transition) -> &'static str {
    match transition {
        Transition::Cut | Transition::Crossfade => "fade",
        Transition::FadeBlack => "fadeblack",
    }
}

/// One re-encoded seam between clip `j` and clip `j + 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seam {
    /// First frame of the left clip in the seam (a keyframe of it).
    pub tail_start: u32,
    /// The keyframe at `tail_start` (the left copy stops before its decoding time; the seam
    /// seeks to its presentation time).
    pub tail_key: Keyframe,
    /// Frames of the right clip in the seam, from its start (up to a keyframe of it).
    pub head_end: u32,
    /// The keyframe at `head_end`, where the right clip's copy starts.
    pub head_key: Keyframe,
}

/// Every seam of a blended video, and the clips they join.
#[derive(Debug, Clone, PartialEq)]
pub struct SeamPlan {
    pub transition: Transition,
    pub fps: u32,
    /// Frames each clip overlaps its neighbour at a join.
    pub overlap: u32,
    pub clip_frames: Vec<u32>,
    pub seams: Vec<Seam>,
}

impl SeamPlan {
    /// The seams for clips of `clip_frames` with `facts` (their keyframes); `None` for a cut
    /// (nothing to encode) or when the keyframes leave no copy between two seams.
    pub fn new(
        transition: Transition,
        fps: u32,
        clip_frames: &[u32],
        facts: &[VideoFacts],
    ) -> Option<SeamPlan> {
        let overlap = transition.overlap_frames();
        if overlap == 0 || clip_frames.len() != facts.len() {
            return None;
        }
        let keys: Vec<Vec<(u32, Keyframe)>> = facts.iter().map(|f| f.frames(fps)).collect();
        let mut seams = Vec::with_capacity(clip_frames.len().saturating_sub(1));
        for j in 0..clip_frames.len().saturating_sub(1) {
            let left_frames = clip_frames[j];
            let &(tail_start, tail_key) = keys[j]
                .iter()
                .rev()
                .find(|&&(n, _)| n + overlap <= left_frames)?;
            let &(head_end, head_key) = keys[j + 1]
                .iter()
                .find(|&&(n, _)| n >= overlap && n < clip_frames[j + 1])?;
            seams.push(Seam {
                tail_start,
                tail_key,
                head_end,
                head_key,
            });
        }
        // Each clip's copy runs from its head's end to its tail's start.
        for i in 1..seams.len() {
            if seams[i - 1].head_end > seams[i].tail_start {
                return None;
            }
        }
        Some(SeamPlan {
            transition,
            fps,
            overlap,
            clip_frames: clip_frames.to_vec(),
            seams,
        })
    }

    /// Frames of seam `j`'s file.
    pub fn seam_frames(&self, j: usize) -> u32 {
        let s = &self.seams[j];
        self.clip_frames[j] - s.tail_start + s.head_end - self.overlap
    }

    /// Frames of the video.
    pub fn total_frames(&self) -> u32 {
        total_frames(&self.clip_frames, self.overlap)
    }

    /// The concat list: copied parts of `clips` (file names in the work directory) and the
    /// seams (`seams[j]` joins clip `j` and `j + 1`) in order. Empty copies are left out.
    pub fn entries(&self, clips: &[String], seams: &[String]) -> Vec<ConcatEntry> {
        let fps = f64::from(self.fps);
        let mut entries = Vec::new();
        for (i, name) in clips.iter().enumerate() {
            let head = i.checked_sub(1).map(|j| &self.seams[j]);
            let tail = self.seams.get(i);
            let from = head.map_or(0, |s| s.head_end);
            let to = tail.map_or(self.clip_frames[i], |s| s.tail_start);
            if to > from {
                entries.push(ConcatEntry {
                    name: name.clone(),
                    inpoint: head.map(|s| s.head_key.pts),
                    outpoint: tail.map(|s| s.tail_key.dts),
                    duration: Some(f64::from(to - from) / fps),
                });
            }
            if let Some(seam) = seams.get(i).filter(|_| tail.is_some()) {
                entries.push(ConcatEntry::whole(seam));
            }
        }
        entries
    }
}

/// Frames of `clip_frames` joined with `overlap` frames at each join.
pub fn total_frames(clip_frames: &[u32], overlap: u32) -> u32 {
    let joins = u32::try_from(clip_frames.len().saturating_sub(1)).unwrap_or(u32::MAX);
    clip_frames
        .iter()
        .sum::<u32>()
        .saturating_sub(joins.saturating_mul(overlap))
}

/// Seam `j`: the left clip from its keyframe at `tail_start` (input seeking) blended into the
/// right clip's first `head_end` frames, encoded like the clips (video only).
pub fn seam_command(
    plan: &SeamPlan,
    j: usize,
    (left, right): (&Path, &Path),
    size: (u32, u32),
    (encoding, color): (&Encoding, &[String]),
    output: &Path,
) -> FfmpegArgs {
    let seam = &plan.seams[j];
    let frames = plan.seam_frames(j);
    let fps = plan.fps;
    let tail = plan.clip_frames[j] - seam.tail_start;
    let mut cmd = FfmpegArgs::new(frames);
    let start = format!("{:.6}", seam.tail_key.pts);
    cmd.input("mov", left, &["-ss", &start]);
    // The right clip is read only as far as the seam needs (its head), not to its end.
    let head = format!("{:.6}", f64::from(seam.head_end) / f64::from(fps));
    cmd.input("mov", right, &["-t", &head]);
    let graph = match plan.transition {
        Transition::Crossfade => dissolve_graph(tail, seam.head_end, plan.overlap, fps),
        _ => format!(
            "[0:v]trim=end_frame={tail},{norm}[l];[1:v]trim=end_frame={head},{norm}[r];\
             [l][r]xfade=transition={name}:duration={dur:.6}:offset={offset:.6},\
             format=yuv420p,setsar=1[v]",
            head = seam.head_end,
            norm = format_args!("settb=AVTB,setpts=PTS-STARTPTS,fps={fps}"),
            name = xfade_name(plan.transition),
            dur = f64::from(plan.overlap) / f64::from(fps),
            offset = f64::from(tail - plan.overlap) / f64::from(fps),
        ),
    };
    finish(&mut cmd, &graph, frames, size, fps, encoding, output);
    let at = cmd.args.len() - 3;
    cmd.args.splice(at..at, color.iter().cloned());
    cmd
}

/// A crossfade seam without `xfade` (which mixes every plane in floating point, about
/// 17 ms a 720p frame): the right clip's first `overlap` frames get an alpha channel that
/// fades in (`fade=alpha=1`, frame `k` at `k/overlap`, the weights `xfade=fade` gives) and are
/// laid over the left clip's last `overlap` frames by `overlay` (integer blending); the
/// frames before and after the blend pass through, joined by `concat`. `tail` frames of the
/// left clip, `head` of the right one.
fn dissolve_graph(tail: u32, head: u32, overlap: u32, fps: u32) -> String {
    let norm = format!("settb=AVTB,setpts=PTS-STARTPTS,fps={fps}");
    let (left_only, right_only) = (tail - overlap, head - overlap);
    let mut graph = String::new();
    let mut parts = Vec::new();
    if left_only > 0 {
        graph.push_str(&format!(
            "[0:v]trim=end_frame={tail},{norm},split[l0][l1];[l0]trim=end_frame={left_only}[a];\
             [l1]trim=start_frame={left_only},setpts=PTS-STARTPTS[lb];"
        ));
        parts.push("[a]");
    } else {
        graph.push_str(&format!("[0:v]trim=end_frame={tail},{norm}[lb];"));
    }
    let fade = format!("format=yuva420p,fade=t=in:s=0:n={overlap}:alpha=1");
    if right_only > 0 {
        graph.push_str(&format!(
            "[1:v]trim=end_frame={head},{norm},split[r0][r1];\
             [r0]trim=end_frame={overlap},{fade}[rb];\
             [r1]trim=start_frame={overlap},setpts=PTS-STARTPTS[c];"
        ));
    } else {
        graph.push_str(&format!("[1:v]trim=end_frame={head},{norm},{fade}[rb];"));
    }
    graph.push_str("[lb][rb]overlay=format=yuv420:eof_action=pass[b];");
    parts.push("[b]");
    if right_only > 0 {
        parts.push("[c]");
    }
    match parts.len() {
        1 => graph.push_str("[b]format=yuv420p,setsar=1[v]"),
        n => graph.push_str(&format!(
            "{}concat=n={n}:v=1:a=0,format=yuv420p,setsar=1[v]",
            parts.concat()
        )),
    }
    graph
}

/// The whole video re-encoded in one pass: every clip (`inputs`, in order) blended into the
/// next. Used when the keyframes do not allow seams.
pub fn blend_all_command(
    transition: Transition,
    fps: u32,
    clip_frames: &[u32],
    inputs: &[String],
    size: (u32, u32),
    encoding: &Encoding,
    output: &Path,
) -> FfmpegArgs {
    let overlap = transition.overlap_frames();
    let frames = total_frames(clip_frames, overlap);
    let mut cmd = FfmpegArgs::new(frames);
    for name in inputs {
        cmd.input("mov", Path::new(name), &[]);
    }
    let mut graph = String::new();
    for (i, n) in clip_frames.iter().enumerate() {
        graph.push_str(&format!(
            "[{i}:v]trim=end_frame={n},settb=AVTB,setpts=PTS-STARTPTS,fps={fps}[c{i}];"
        ));
    }
    let mut last = "c0".to_owned();
    let mut length = clip_frames.first().copied().unwrap_or(0);
    for (i, &n) in clip_frames.iter().enumerate().skip(1) {
        let out = format!("x{i}");
        graph.push_str(&format!(
            "[{last}][c{i}]xfade=transition={}:duration={:.6}:offset={:.6}[{out}];",
            xfade_name(transition),
            f64::from(overlap) / f64::from(fps),
            f64::from(length - overlap) / f64::from(fps),
        ));
        length = length + n - overlap;
        last = out;
    }
    graph.push_str(&format!("[{last}]format=yuv420p,setsar=1[v]"));
    finish(&mut cmd, &graph, frames, size, fps, encoding, output);
    cmd
}

fn finish(
    cmd: &mut FfmpegArgs,
    graph: &str,
    frames: u32,
    (width, height): (u32, u32),
    fps: u32,
    encoding: &Encoding,
    output: &Path,
) {
    command::push(
        &mut cmd.args,
        ["-filter_complex", graph, "-map", "[v]", "-an"],
    );
    command::push(&mut cmd.args, ["-frames:v", &frames.to_string()]);
    command::encode_video_args(&mut cmd.args, width, height, fps, encoding);
    command::push(&mut cmd.args, ["-f", "mp4"]);
    cmd.args.push(command::local_arg(output));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A standard clip's keyframes (every 2 s from its start), dts two frames early.
    fn standard() -> VideoFacts {
        VideoFacts {
            keyframes: [0.0, 2.0, 4.0]
                .iter()
                .map(|&pts| Keyframe {
                    pts,
                    dts: pts - 2.0 / 30.0,
                })
                .collect(),
            ..VideoFacts::default()
        }
    }

    #[test]
    fn a_cut_has_no_seams_and_a_crossfade_overlaps_half_a_second() {
        assert_eq!(
            SeamPlan::new(Transition::Cut, 30, &[150; 3], &vec![standard(); 3]),
            None
        );
        let plan = SeamPlan::new(Transition::Crossfade, 30, &[150; 3], &vec![standard(); 3])
            .expect("seams");
        assert_eq!(plan.overlap, 15);
        assert_eq!(plan.total_frames(), 450 - 30);
        // Left tail from the keyframe at 120 (30 frames), right head to the keyframe at 60.
        assert_eq!(
            plan.seams
                .iter()
                .map(|s| (s.tail_start, s.head_end))
                .collect::<Vec<_>>(),
            [(120, 60), (120, 60)]
        );
        assert_eq!(plan.seam_frames(0), 30 + 60 - 15);
        let clips: Vec<String> = (0..3).map(|i| format!("part-{i:03}.mp4")).collect();
        let seams: Vec<String> = (0..2).map(|j| format!("seam-{j:03}.mp4")).collect();
        let entries = plan.entries(&clips, &seams);
        let list = command::concat_list_from(&entries).expect("list");
        assert_eq!(
            list,
            "ffconcat version 1.0\n\
             file 'part-000.mp4'\noutpoint 3.933333\nduration 4.000000\n\
             file 'seam-000.mp4'\n\
             file 'part-001.mp4'\ninpoint 2.000000\noutpoint 3.933333\nduration 2.000000\n\
             file 'seam-001.mp4'\n\
             file 'part-002.mp4'\ninpoint 2.000000\nduration 3.000000\n"
        );
        // Copies and seams add up to the video.
        let copied: u32 = 120 + 60 + 90;
        assert_eq!(copied + plan.seam_frames(0) + plan.seam_frames(1), 420);
    }

    #[test]
    fn keyframes_that_leave_no_copy_fall_back() {
        // A clip with a keyframe at its start only: no head can end inside it.
        let only_first = VideoFacts {
            keyframes: vec![Keyframe { pts: 0.0, dts: 0.0 }],
            ..VideoFacts::default()
        };
        assert_eq!(
            SeamPlan::new(
                Transition::Crossfade,
                30,
                &[150; 2],
                &[standard(), only_first]
            ),
            None
        );
    }

    #[test]
    fn the_seam_command_seeks_the_tail_and_blends_into_the_head() {
        let plan = SeamPlan::new(Transition::FadeBlack, 30, &[150; 2], &vec![standard(); 2])
            .expect("seams");
        let color = ["-colorspace".to_owned(), "bt470bg".to_owned()];
        let cmd = seam_command(
            &plan,
            0,
            (Path::new("part-000.mp4"), Path::new("part-001.mp4")),
            (1280, 720),
            (&Encoding::default(), &color),
            Path::new("seam-000.mp4"),
        );
        let at = |flag: &str| {
            let i = cmd.args.iter().position(|a| a == flag).expect(flag);
            cmd.args[i + 1].clone()
        };
        assert_eq!(at("-ss"), "4.000000");
        assert_eq!(
            at("-t"),
            "2.000000",
            "the right clip read to its head's end only"
        );
        assert_eq!(at("-frames:v"), "75");
        let graph = at("-filter_complex");
        assert!(
            graph.contains("xfade=transition=fadeblack:duration=0.500000:offset=0.500000"),
            "{graph}"
        );
        assert!(graph.contains("[1:v]trim=end_frame=60,"), "{graph}");
        assert_eq!(at("-g"), "60", "encoded like the clips");
        assert_eq!(
            at("-colorspace"),
            "bt470bg",
            "with the left clip's colour description"
        );
        assert_eq!(
            cmd.args[cmd.args.len() - 3..],
            ["-f", "mp4", "./seam-000.mp4"]
        );
        assert_eq!(cmd.planned_frames, 75);
    }

    #[test]
    fn a_crossfade_seam_dissolves_by_alpha_and_overlay() {
        // Keyed clips: the seam is the blend alone.
        let alone = dissolve_graph(15, 15, 15, 30);
        assert!(
            !alone.contains("xfade") && !alone.contains("concat"),
            "{alone}"
        );
        assert!(
            alone.contains("fade=t=in:s=0:n=15:alpha=1[rb];[lb][rb]overlay"),
            "{alone}"
        );
        assert!(alone.ends_with("[b]format=yuv420p,setsar=1[v]"), "{alone}");
        // Unkeyed clips: 60 frames of the left clip pass through before the blend, 45 of the
        // right one after it.
        let long = dissolve_graph(75, 60, 15, 30);
        assert!(long.contains("[l0]trim=end_frame=60[a]"), "{long}");
        assert!(long.contains("[r1]trim=start_frame=15"), "{long}");
        assert!(long.contains("[a][b][c]concat=n=3:v=1:a=0"), "{long}");
    }

    #[test]
    fn the_one_pass_blend_chains_every_clip() {
        let names: Vec<String> = (0..3).map(|i| format!("part-{i:03}.mp4")).collect();
        let cmd = blend_all_command(
            Transition::Crossfade,
            30,
            &[150; 3],
            &names,
            (1280, 720),
            &Encoding::default(),
            Path::new("video-only.mp4"),
        );
        assert_eq!(cmd.planned_frames, 420);
        let graph = cmd
            .args
            .iter()
            .find(|a| a.contains("xfade"))
            .expect("graph");
        assert!(
            graph.contains("[c0][c1]xfade=transition=fade:duration=0.500000:offset=4.500000[x1]")
        );
        assert!(
            graph.contains("[x1][c2]xfade=transition=fade:duration=0.500000:offset=9.000000[x2]")
        );
        assert!(graph.ends_with("[x2]format=yuv420p,setsar=1[v]"));
    }
}
