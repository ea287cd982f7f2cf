//! The speed ramp of a branded video: across every cut between two clips the picture
//! accelerates into the cut and decelerates out of it, and the sound follows at the same speed
//! without changing pitch (`atempo`).
//!
//! The plan is pure and frame-exact: each ramp step covers a whole number of source frames that
//! its speed divides, so the output frame count is known before ffmpeg runs, and the audio of
//! every step is padded or trimmed to exactly the samples of its frames: picture and sound end
//! together whatever the encoder does.
//!
//! Video: one `select` over the whole video (no split, so no frame queues: a `split`+`trim`
//! per segment would hold hundreds of decoded frames), then `setpts=N/fps/TB`.
//! Audio: `asplit` into segments, `atrim` by sample, `atempo` in steps of at most 2.0 (ffmpeg
//! 5.1's documented range for one instance is 0.5–100, but quality is best at ≤ 2 per stage),
//! `apad`/`atrim` to the exact length, `concat`.

use std::fmt::Write as _;

/// One speed step: `speed = num/den` over `frames` source frames (a multiple of `num`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub num: u32,
    pub den: u32,
    pub frames: u32,
}

/// The steps into a cut (in order, ending at the cut); the steps out of it are the mirror image.
/// 12 frames each at 1.5×, 2× and 3×: 36 source frames (1.2 s) become 18 on each side.
pub const INTO_CUT: [Step; 3] = [
    Step {
        num: 3,
        den: 2,
        frames: 12,
    },
    Step {
        num: 2,
        den: 1,
        frames: 12,
    },
    Step {
        num: 3,
        den: 1,
        frames: 12,
    },
];

/// A stretch of the source at one speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// First source frame.
    pub start: u32,
    /// Source frames covered.
    pub frames: u32,
    pub num: u32,
    pub den: u32,
}

impl Segment {
    /// Frames this segment outputs.
    pub fn out_frames(&self) -> u32 {
        self.frames * self.den / self.num
    }

    /// Whether source frame `n` (absolute) is kept: the first source frame of each output frame.
    /// Output frame `j` shows source frame `ceil(j·num/den)`.
    pub fn keeps(&self, n: u32) -> bool {
        let k = u64::from(n - self.start);
        let (num, den) = (u64::from(self.num), u64::from(self.den));
        k == 0 || (k * den) / num > ((k - 1) * den) / num
    }

    fn is_normal(&self) -> bool {
        self.num == self.den
    }
}

/// The ramp of a whole video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RampPlan {
    pub fps: u32,
    /// Every source frame in order, in segments.
    pub segments: Vec<Segment>,
}

impl RampPlan {
    /// The plan for clips of these frame counts, or `None` when there is nothing to ramp (fewer
    /// than two clips): the caller reports `speed_ramp: false`. A clip too short for both its
    /// ramps (under 2 × 36 frames) keeps its middle at normal speed only if there is one.
    pub fn new(clip_frames: &[u32], fps: u32) -> Option<RampPlan> {
        if clip_frames.len() < 2 || fps == 0 {
            return None;
        }
        let side: u32 = INTO_CUT.iter().map(|s| s.frames).sum();
        if clip_frames.iter().any(|&f| f < 2 * side) {
            return None;
        }
        let mut segments = Vec::new();
        let mut start = 0;
        let last = clip_frames.len() - 1;
        for (i, &frames) in clip_frames.iter().enumerate() {
            let mut at = start;
            if i > 0 {
                for s in INTO_CUT.iter().rev() {
                    segments.push(Segment {
                        start: at,
                        frames: s.frames,
                        num: s.num,
                        den: s.den,
                    });
                    at += s.frames;
                }
            }
            let tail = if i < last { side } else { 0 };
            let middle = start + frames - tail - at;
            segments.push(Segment {
                start: at,
                frames: middle,
                num: 1,
                den: 1,
            });
            at += middle;
            if i < last {
                for s in INTO_CUT {
                    segments.push(Segment {
                        start: at,
                        frames: s.frames,
                        num: s.num,
                        den: s.den,
                    });
                    at += s.frames;
                }
            }
            start += frames;
        }
        Some(RampPlan { fps, segments })
    }

    pub fn source_frames(&self) -> u32 {
        self.segments.iter().map(|s| s.frames).sum()
    }

    pub fn output_frames(&self) -> u32 {
        self.segments.iter().map(Segment::out_frames).sum()
    }

    /// The source frames kept, in order (what the `select` expression keeps).
    pub fn kept_frames(&self) -> Vec<u32> {
        self.segments
            .iter()
            .flat_map(|s| (s.start..s.start + s.frames).filter(|&n| s.keeps(n)))
            .collect()
    }

    /// The video chain (without pads): keep the planned frames, renumber them at `fps`.
    /// `n` is the frame index in the source stream.
    pub fn video_filter(&self) -> String {
        let mut drop = String::new();
        for s in self.segments.iter().filter(|s| !s.is_normal()) {
            if !drop.is_empty() {
                drop.push('+');
            }
            let (a, b) = (s.start, s.start + s.frames - 1);
            // Dropped when the output index did not advance at this frame.
            let _ = write!(
                drop,
                "between(n,{a},{b})*lte(floor((n-{a})*{d}/{m}),floor((n-{a}-1)*{d}/{m}))",
                d = s.den,
                m = s.num
            );
        }
        let expr = if drop.is_empty() {
            "1".to_owned()
        } else {
            format!("eq({drop},0)")
        };
        format!(
            "{},setpts=N/{}/TB",
            crate::escape::Filter::new("select").arg("expr", expr),
            self.fps
        )
    }

    /// The audio graph from `[input]` to `[output]`: per segment the source samples, sped up
    /// without pitch change, cut or padded to exactly `out_frames × rate / fps` samples.
    pub fn audio_graph(&self, input: &str, output: &str, rate: u32, prefix: &str) -> String {
        let spf = |frames: u32| u64::from(frames) * u64::from(rate) / u64::from(self.fps);
        let n = self.segments.len();
        let mut g = format!("[{input}]aresample={rate},asetpts=N/SR/TB,asplit={n}");
        for i in 0..n {
            let _ = write!(g, "[{prefix}as{i}]");
        }
        for (i, s) in self.segments.iter().enumerate() {
            let (from, to) = (spf(s.start), spf(s.start + s.frames));
            let out = spf(s.out_frames());
            let _ = write!(
                g,
                ";[{prefix}as{i}]atrim=start_sample={from}:end_sample={to},asetpts=N/SR/TB"
            );
            for factor in atempo_steps(s.num, s.den) {
                let _ = write!(g, ",atempo={factor:.6}");
            }
            let _ = write!(
                g,
                ",apad=whole_len={out},atrim=end_sample={out}[{prefix}ar{i}]"
            );
        }
        g.push(';');
        for i in 0..n {
            let _ = write!(g, "[{prefix}ar{i}]");
        }
        let _ = write!(g, "concat=n={n}:v=0:a=1[{output}]");
        g
    }
}

/// `num/den` as a product of `atempo` factors each in `0.5..=2.0` (none for 1).
pub fn atempo_steps(num: u32, den: u32) -> Vec<f64> {
    let mut left = f64::from(num) / f64::from(den.max(1));
    let mut steps = Vec::new();
    while left > 2.0 + 1e-9 {
        steps.push(2.0);
        left /= 2.0;
    }
    while left < 0.5 - 1e-9 {
        steps.push(0.5);
        left /= 0.5;
    }
    if (left - 1.0).abs() > 1e-9 {
        steps.push(left);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_clip_has_no_ramp() {
        assert_eq!(RampPlan::new(&[150], 30), None);
        assert_eq!(RampPlan::new(&[], 30), None);
        assert_eq!(RampPlan::new(&[150, 40], 30), None);
    }

    #[test]
    fn five_clips_shorten_by_exact_frames() {
        let plan = RampPlan::new(&[150; 5], 30).expect("plan");
        assert_eq!(plan.source_frames(), 750);
        // 4 cuts, each saving 18 frames on either side.
        assert_eq!(plan.output_frames(), 750 - 4 * 36);
        assert_eq!(plan.kept_frames().len() as u32, plan.output_frames());
        // Segments tile the source with no gap or overlap.
        let mut at = 0;
        for s in &plan.segments {
            assert_eq!(s.start, at);
            assert_eq!(s.frames % s.num, 0, "{s:?}");
            at += s.frames;
        }
        assert_eq!(at, 750);
    }

    #[test]
    fn speed_rises_into_each_cut_and_falls_after() {
        let plan = RampPlan::new(&[150, 150], 30).expect("plan");
        let kept = plan.kept_frames();
        let gaps: Vec<u32> = kept.windows(2).map(|w| w[1] - w[0]).collect();
        // Far from the cut: every frame. Next to it: every third frame.
        assert!(gaps[..100].iter().all(|&g| g == 1));
        let cut = kept.iter().position(|&n| n >= 150).expect("after cut");
        assert_eq!(gaps[cut - 1], 3);
        assert_eq!(gaps[cut], 3);
        // Mean speed over each 6-frame window of output rises into the cut and falls after.
        let speed = |range: std::ops::Range<usize>| {
            f64::from(gaps[range.clone()].iter().sum::<u32>()) / range.len() as f64
        };
        let before: Vec<f64> = (0..5)
            .map(|k| speed(cut - 6 * (5 - k)..cut - 6 * (4 - k)))
            .collect();
        let after: Vec<f64> = (0..5)
            .map(|k| speed(cut + 6 * k..cut + 6 * (k + 1)))
            .collect();
        assert!(before.windows(2).all(|w| w[0] <= w[1]), "{before:?}");
        assert!(after.windows(2).all(|w| w[0] >= w[1]), "{after:?}");
        assert!(before[0] < before[4] && after[0] > after[4]);
        assert!(
            kept.contains(&150),
            "the first frame of the next clip is shown"
        );
    }

    #[test]
    fn atempo_steps_stay_in_range_and_multiply_out() {
        for (n, d) in [(3, 2), (2, 1), (3, 1), (5, 1), (1, 1), (1, 3)] {
            let steps = atempo_steps(n, d);
            assert!(steps.iter().all(|&s| (0.5..=2.0).contains(&s)), "{steps:?}");
            let p: f64 = steps.iter().product();
            assert!((p - f64::from(n) / f64::from(d)).abs() < 1e-9);
        }
        assert!(atempo_steps(1, 1).is_empty());
    }

    #[test]
    fn audio_segments_sum_to_the_video_length() {
        let plan = RampPlan::new(&[150; 3], 30).expect("plan");
        let g = plan.audio_graph("0:a", "ra", 48_000, "r_");
        let total: u64 = g
            .split("atrim=end_sample=")
            .skip(1)
            .map(|s| {
                s.split('[')
                    .next()
                    .and_then(|v| v.parse::<u64>().ok())
                    .expect("n")
            })
            .sum();
        assert_eq!(total, u64::from(plan.output_frames()) * 1600);
        assert!(plan.video_filter().starts_with("select="));
    }
}
