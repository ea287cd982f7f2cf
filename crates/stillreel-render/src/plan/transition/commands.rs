//! The ffmpeg runs of blended transitions: a batch of seams encoded in one run
//! ([`seams_command`]), and the one-pass blend of the whole video used when seams cannot be
//! copied ([`blend_all_command`]).

use std::ops::Range;
use std::path::Path;

use stillreel_core::Transition;

use super::{SeamPlan, total_frames};
use crate::ffmpeg::command::{self, Encoding, FfmpegArgs};

/// Timestamps reset and the frame rate pinned, so trims count frames from 0 and blends line
/// up.
fn norm(fps: u32) -> String {
    format!("settb=AVTB,setpts=PTS-STARTPTS,fps={fps}")
}

/// The right clip's first frames of a crossfade, given an alpha channel that fades in over
/// `overlap` frames (frame `k` at `k/overlap`, the weights `xfade=fade` gives); `overlay`
/// ([`DISSOLVE_OVERLAY`]) then lays them over the left clip's last frames.
fn dissolve_fade(overlap: u32) -> String {
    format!("format=yuva420p,fade=t=in:s=0:n={overlap}:alpha=1")
}

/// How a crossfade lays the right clip (with its fading alpha) over the left: integer
/// blending, about a tenth of `xfade`'s floating-point cost.
const DISSOLVE_OVERLAY: &str = "overlay=format=yuv420:eof_action=pass";

/// The blend of one join alone, as the seams blend it: `[0:v]` (the left clip's last
/// `overlap` frames) and `[1:v]` (the right clip's first `overlap` frames) into `[v]`, yuv420p.
/// The browser preview's blend is held to what this graph makes (stillreel-preview's tests).
pub fn join_blend_graph(transition: Transition, overlap: u32, fps: u32) -> String {
    let norm = norm(fps);
    match transition {
        Transition::Crossfade => format!(
            "[0:v]{norm}[l];[1:v]{norm},{fade}[r];[l][r]{DISSOLVE_OVERLAY},format=yuv420p[v]",
            fade = dissolve_fade(overlap)
        ),
        _ => format!(
            "[0:v]{norm}[l];[1:v]{norm}[r];[l][r]{xfade},format=yuv420p[v]",
            xfade = xfade_filter(transition, overlap, fps, 0)
        ),
    }
}

/// `xfade` blending `overlap` frames from frame `offset` of its first input.
fn xfade_filter(transition: Transition, overlap: u32, fps: u32, offset: u32) -> String {
    format!(
        "xfade=transition={}:duration={:.6}:offset={:.6}",
        xfade_name(transition),
        f64::from(overlap) / f64::from(fps),
        f64::from(offset) / f64::from(fps),
    )
}

/// The xfade transition of a blended join.
fn xfade_name(transition: Transition) -> &'static str {
    match transition {
        Transition::Cut | Transition::Crossfade => "fade",
        Transition::FadeBlack => "fadeblack",
    }
}

/// Seams `batch` (consecutive joins) encoded back to back by one ffmpeg run into one file, a
/// keyframe forced where each seam starts so the concat list can copy each seam alone
/// ([`SeamPlan::seam_entries`]). The inputs are two concat lists over the clips (`lists`):
/// the batch's tails ([`SeamPlan::tail_entries`]) and heads ([`SeamPlan::head_entries`]),
/// each decoded once and split by frame ranges, so a batch costs one process start, two
/// decoders and one x264 instance, where a run per seam cost nine of each for a 10-clip
/// video (7.3 CPU-s against 3.3 for its 135 frames at 720p, docs/BENCHMARKS.md). Encoded
/// like the clips (video only), with `color` (the batch's first left clip's colour
/// description) and sub-pixel refinement `subme=1`: a dissolve has little motion to refine,
/// and it encoded the seams in 30 % less CPU at 0.03 dB less PSNR (they stay under 1 s of
/// the video).
pub fn seams_command(
    plan: &SeamPlan,
    batch: Range<usize>,
    (tails, heads): (&Path, &Path),
    size: (u32, u32),
    (encoding, color): (&Encoding, &[String]),
    output: &Path,
) -> FfmpegArgs {
    let fps = plan.fps;
    let starts = plan.batch_starts(batch.clone());
    let frames: u32 = batch.clone().map(|j| plan.seam_frames(j)).sum();
    let mut cmd = FfmpegArgs::new(frames);
    cmd.input("concat", tails, &[]);
    cmd.input("concat", heads, &[]);
    let norm = norm(fps);
    let n = batch.len();
    let mut graph = String::new();
    for (input, side) in [(0, 't'), (1, 'h')] {
        graph.push_str(&format!("[{input}:v]{norm}"));
        if n > 1 {
            graph.push_str(&format!(",split={n}"));
        }
        for k in 0..n {
            graph.push_str(&format!("[{side}{k}]"));
        }
        graph.push(';');
    }
    // Where each seam's tail and head begin in the concatenated inputs.
    let (mut tail_at, mut head_at) = (0, 0);
    let mut parts = String::new();
    for (k, j) in batch.enumerate() {
        let seam = &plan.seams[j];
        let tail = plan.clip_frames[j] - seam.tail_start;
        let left = format!(
            "[t{k}]trim=start_frame={tail_at}:end_frame={}",
            tail_at + tail
        );
        let right = format!(
            "[h{k}]trim=start_frame={head_at}:end_frame={}",
            head_at + seam.head_end
        );
        let out = format!("s{k}");
        graph.push_str(&seam_graph(
            plan,
            tail,
            seam.head_end,
            (&left, &right),
            &out,
        ));
        graph.push(';');
        parts.push_str(&format!("[{out}]"));
        tail_at += tail;
        head_at += seam.head_end;
    }
    if n > 1 {
        graph.push_str(&format!("{parts}concat=n={n}:v=1:a=0,"));
    } else {
        graph.push_str(&parts);
    }
    graph.push_str("format=yuv420p,setsar=1[v]");
    finish(&mut cmd, &graph, frames, size, fps, encoding, output);
    let mut extra: Vec<String> = color.to_vec();
    if let Some(keys) = crate::ffmpeg::clip_keys::force_key_frames_value(&starts[1..]) {
        extra.extend(["-force_key_frames".to_owned(), keys]);
    }
    extra.extend(["-x264-params".to_owned(), "subme=1".to_owned()]);
    let at = cmd.args.len() - 3;
    cmd.args.splice(at..at, extra);
    cmd
}

/// One seam's graph: `left` and `right` (filter chains ending in the tail's `tail` and the
/// head's `head` frames, timestamps not yet reset) blended into `[out]`.
fn seam_graph(plan: &SeamPlan, tail: u32, head: u32, inputs: (&str, &str), out: &str) -> String {
    let fps = plan.fps;
    match plan.transition {
        Transition::Crossfade => dissolve_graph(tail, head, plan.overlap, fps, inputs, out),
        _ => format!(
            "{left},{norm}[l{out}];{right},{norm}[r{out}];[l{out}][r{out}]{xfade}[{out}]",
            left = inputs.0,
            right = inputs.1,
            norm = norm(fps),
            xfade = xfade_filter(plan.transition, plan.overlap, fps, tail - plan.overlap),
        ),
    }
}

/// A crossfade seam without `xfade` (which mixes every plane in floating point, about
/// 17 ms a 720p frame): the right clip's first `overlap` frames get an alpha channel that
/// fades in (`fade=alpha=1`, frame `k` at `k/overlap`, the weights `xfade=fade` gives) and are
/// laid over the left clip's last `overlap` frames by `overlay` (integer blending); the
/// frames before and after the blend pass through, joined by `concat`. `tail` frames of the
/// left clip (the chain `inputs.0`), `head` of the right one (`inputs.1`), into `[out]`.
fn dissolve_graph(
    tail: u32,
    head: u32,
    overlap: u32,
    fps: u32,
    (left, right): (&str, &str),
    out: &str,
) -> String {
    let norm = norm(fps);
    let (left_only, right_only) = (tail - overlap, head - overlap);
    let mut graph = String::new();
    let mut parts = Vec::new();
    if left_only > 0 {
        graph.push_str(&format!(
            "{left},{norm},split[{out}l0][{out}l1];[{out}l0]trim=end_frame={left_only}[{out}a];\
             [{out}l1]trim=start_frame={left_only},setpts=PTS-STARTPTS[{out}lb];"
        ));
        parts.push(format!("[{out}a]"));
    } else {
        graph.push_str(&format!("{left},{norm}[{out}lb];"));
    }
    let fade = dissolve_fade(overlap);
    if right_only > 0 {
        graph.push_str(&format!(
            "{right},{norm},split[{out}r0][{out}r1];\
             [{out}r0]trim=end_frame={overlap},{fade}[{out}rb];\
             [{out}r1]trim=start_frame={overlap},setpts=PTS-STARTPTS[{out}c];"
        ));
    } else {
        graph.push_str(&format!("{right},{norm},{fade}[{out}rb];"));
    }
    let blend = if parts.is_empty() && right_only == 0 {
        out.to_owned()
    } else {
        format!("{out}b")
    };
    graph.push_str(&format!("[{out}lb][{out}rb]{DISSOLVE_OVERLAY}[{blend}]"));
    if blend != out {
        parts.push(format!("[{blend}]"));
        if right_only > 0 {
            parts.push(format!("[{out}c]"));
        }
        graph.push_str(&format!(
            ";{}concat=n={}:v=1:a=0[{out}]",
            parts.concat(),
            parts.len()
        ));
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
        graph.push_str(&format!("[{i}:v]trim=end_frame={n},{}[c{i}];", norm(fps)));
    }
    let mut last = "c0".to_owned();
    let mut length = clip_frames.first().copied().unwrap_or(0);
    for (i, &n) in clip_frames.iter().enumerate().skip(1) {
        let out = format!("x{i}");
        graph.push_str(&format!(
            "[{last}][c{i}]{}[{out}];",
            xfade_filter(transition, overlap, fps, length - overlap),
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
    use crate::plan::transition::tests::standard;

    #[test]
    fn one_run_encodes_a_batch_of_seams_keyed_where_each_starts() {
        let plan = SeamPlan::new(Transition::FadeBlack, 30, &[150; 3], &vec![standard(); 3])
            .expect("seams");
        let color = ["-colorspace".to_owned(), "bt470bg".to_owned()];
        let cmd = seams_command(
            &plan,
            0..2,
            (
                Path::new("tails-000.ffconcat"),
                Path::new("heads-000.ffconcat"),
            ),
            (1280, 720),
            (&Encoding::default(), &color),
            Path::new("seams-000.mp4"),
        );
        let at = |flag: &str| {
            let i = cmd.args.iter().position(|a| a == flag).expect(flag);
            cmd.args[i + 1].clone()
        };
        let inputs: Vec<&String> = cmd
            .args
            .iter()
            .enumerate()
            .filter(|(i, _)| *i > 0 && cmd.args[i - 1] == "-i")
            .map(|(_, a)| a)
            .collect();
        assert_eq!(inputs, ["./tails-000.ffconcat", "./heads-000.ffconcat"]);
        assert_eq!(at("-frames:v"), "150", "two seams of 75 frames");
        assert_eq!(at("-force_key_frames"), "expr:eq(n,75)");
        let graph = at("-filter_complex");
        assert!(
            graph.contains("[0:v]settb=AVTB,setpts=PTS-STARTPTS,fps=30,split=2[t0][t1];"),
            "{graph}"
        );
        // Seam 1's tail is the second 30 frames of the tails, its head frames 60 to 120 of the heads.
        assert!(
            graph.contains("[t1]trim=start_frame=30:end_frame=60,"),
            "{graph}"
        );
        assert!(
            graph.contains("[h1]trim=start_frame=60:end_frame=120,"),
            "{graph}"
        );
        assert!(
            graph.contains("xfade=transition=fadeblack:duration=0.500000:offset=0.500000[s1]"),
            "{graph}"
        );
        assert!(
            graph.ends_with("[s0][s1]concat=n=2:v=1:a=0,format=yuv420p,setsar=1[v]"),
            "{graph}"
        );
        assert_eq!(at("-g"), "60", "encoded like the clips");
        assert_eq!(
            at("-colorspace"),
            "bt470bg",
            "with the left clip's colour description"
        );
        assert_eq!(at("-x264-params"), "subme=1");
        assert_eq!(
            cmd.args[cmd.args.len() - 3..],
            ["-f", "mp4", "./seams-000.mp4"]
        );
        assert_eq!(cmd.planned_frames, 150);
        // A batch of one seam: nothing to split, join or force.
        let one = seams_command(
            &plan,
            1..2,
            (
                Path::new("tails-001.ffconcat"),
                Path::new("heads-001.ffconcat"),
            ),
            (1280, 720),
            (&Encoding::default(), &[]),
            Path::new("seams-001.mp4"),
        );
        assert!(!one.args.iter().any(|a| a == "-force_key_frames"));
        let graph = &one.args[one
            .args
            .iter()
            .position(|a| a == "-filter_complex")
            .expect("graph")
            + 1];
        assert!(
            !graph.contains("split") && !graph.contains("concat"),
            "{graph}"
        );
        assert!(graph.ends_with("[s0]format=yuv420p,setsar=1[v]"), "{graph}");
    }

    #[test]
    fn a_crossfade_seam_dissolves_by_alpha_and_overlay() {
        // Keyed clips: the seam is the blend alone.
        let alone = dissolve_graph(
            15,
            15,
            15,
            30,
            ("[t0]trim=end_frame=15", "[h0]trim=end_frame=15"),
            "s0",
        );
        assert!(
            !alone.contains("xfade") && !alone.contains("concat"),
            "{alone}"
        );
        assert!(
            alone.contains("fade=t=in:s=0:n=15:alpha=1[s0rb];[s0lb][s0rb]overlay"),
            "{alone}"
        );
        assert!(
            alone.ends_with("overlay=format=yuv420:eof_action=pass[s0]"),
            "{alone}"
        );
        // Unkeyed clips: 60 frames of the left clip pass through before the blend, 45 of the
        // right one after it.
        let long = dissolve_graph(
            75,
            60,
            15,
            30,
            ("[t1]trim=end_frame=75", "[h1]trim=end_frame=60"),
            "s1",
        );
        assert!(long.contains("[s1l0]trim=end_frame=60[s1a]"), "{long}");
        assert!(long.contains("[s1r1]trim=start_frame=15"), "{long}");
        assert!(
            long.ends_with("[s1a][s1b][s1c]concat=n=3:v=1:a=0[s1]"),
            "{long}"
        );
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
