//! Blended transitions at the joins of a video (`crossfade`, `fade-black`), pure: where each
//! seam is re-encoded and what is copied between seams.
//!
//! Clips overlap by [`Transition::overlap_frames`] at each join, so a video of `n` clips is
//! `(n - 1) * overlap` frames shorter than its clips end to end. Only a seam is encoded: the
//! left clip from its last keyframe at or before the overlap, blended into the right clip up to
//! its first keyframe after the overlap. Between seams every clip's packets are copied (concat
//! demuxer `inpoint`/`outpoint` at those keyframes). The seams themselves are encoded back to
//! back by one ffmpeg run per batch ([`SeamPlan::batches`]: one for a video whose clips share
//! their parameter sets) into one file keyed where each seam starts, and each seam is copied
//! out of that file the same way:
//!
//! ```text
//! clip 0 [0, t0) copied │ seam 0: clip 0 [t0, end) ⨯ clip 1 [0, h1) │ clip 1 [h1, t1) copied │ …
//! seams file:           │ [0, s1) = seam 0                          │ [s1, s2) = seam 1 …
//! ```
//!
//! When a clip's keyframes do not allow it (a head reaching past the next tail), [`SeamPlan::new`]
//! answers `None` and the stitch re-encodes the whole video in one pass ([`blend_all_command`]).

use std::ops::Range;

use stillreel_core::Transition;

use crate::ffmpeg::command::ConcatEntry;
use crate::media::keyframes::{Keyframe, VideoFacts};

mod commands;

pub use commands::{blend_all_command, join_blend_graph, seams_command};

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
    /// seams (`seams[j]`, the part of a seams file that joins clip `j` and `j + 1`) in order.
    /// Empty copies are left out.
    pub fn entries(&self, clips: &[String], seams: &[ConcatEntry]) -> Vec<ConcatEntry> {
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
                entries.push(seam.clone());
            }
        }
        entries
    }

    /// Seams encoded together ([`seams_command`]): runs of consecutive joins whose clips all
    /// carry the same parameter sets, so each concat input decodes with one set and the file
    /// can be copied beside every clip of its run. A join between clips that differ (their
    /// colour description, say) is a run of its own, as is every join when a clip's sets are
    /// unknown.
    pub fn batches(&self, facts: &[VideoFacts]) -> Vec<Range<usize>> {
        let mut batches = Vec::new();
        let mut start = 0;
        for j in 1..self.seams.len() {
            let same = |i: usize| facts[i].same_parameter_sets(&facts[start]);
            if !(same(j) && same(j + 1)) {
                batches.push(start..j);
                start = j;
            }
        }
        if !self.seams.is_empty() {
            batches.push(start..self.seams.len());
        }
        batches
    }

    /// Where each seam of `batch` starts in its file (frames; the first at 0).
    pub fn batch_starts(&self, batch: Range<usize>) -> Vec<u32> {
        let mut at = 0;
        batch
            .map(|j| {
                let start = at;
                at += self.seam_frames(j);
                start
            })
            .collect()
    }

    /// The concat list (decoded, not copied) of the tails `batch` blends: clip `j` from its
    /// keyframe at `tail_start` to its end, for each seam `j`.
    pub fn tail_entries(&self, clips: &[String], batch: Range<usize>) -> Vec<ConcatEntry> {
        let fps = f64::from(self.fps);
        batch
            .map(|j| {
                let seam = &self.seams[j];
                ConcatEntry {
                    name: clips[j].clone(),
                    inpoint: Some(seam.tail_key.pts),
                    outpoint: None,
                    duration: Some(f64::from(self.clip_frames[j] - seam.tail_start) / fps),
                }
            })
            .collect()
    }

    /// The concat list of the heads `batch` blends into: clip `j + 1` from its start to just
    /// before its keyframe at `head_end` (the right clip read no further than the seam needs).
    pub fn head_entries(&self, clips: &[String], batch: Range<usize>) -> Vec<ConcatEntry> {
        let fps = f64::from(self.fps);
        batch
            .map(|j| {
                let seam = &self.seams[j];
                ConcatEntry {
                    name: clips[j + 1].clone(),
                    inpoint: None,
                    outpoint: Some(seam.head_key.dts),
                    duration: Some(f64::from(seam.head_end) / fps),
                }
            })
            .collect()
    }

    /// Each seam of `batch` as a part of the file `name` with `facts`: from the keyframe
    /// where it starts to just before the next seam's; `None` when a seam does not start at
    /// a keyframe (then the file cannot be cut into its seams).
    pub fn seam_entries(
        &self,
        batch: Range<usize>,
        name: &str,
        facts: &VideoFacts,
    ) -> Option<Vec<ConcatEntry>> {
        let keys = facts.frames(self.fps);
        let key_at = |n: u32| keys.iter().find(|&&(k, _)| k == n).map(|&(_, key)| key);
        let starts = self.batch_starts(batch.clone());
        let fps = f64::from(self.fps);
        let mut entries = Vec::with_capacity(starts.len());
        for (k, j) in batch.enumerate() {
            let inpoint = match starts[k] {
                0 => None,
                n => Some(key_at(n)?.pts),
            };
            let outpoint = match starts.get(k + 1) {
                Some(&n) => Some(key_at(n)?.dts),
                None => None,
            };
            entries.push(ConcatEntry {
                name: name.to_owned(),
                inpoint,
                outpoint,
                duration: Some(f64::from(self.seam_frames(j)) / fps),
            });
        }
        Some(entries)
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::ffmpeg::command;

    /// A standard clip's keyframes (every 2 s from its start), dts two frames early.
    pub(super) fn standard() -> VideoFacts {
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
        // Both seams in one file of 150 frames: keyed at its start, its GOP (60), where the
        // second seam starts (75, forced) and that seam's GOP (135).
        let file = VideoFacts {
            keyframes: [0.0, 2.0, 2.5, 4.5]
                .iter()
                .map(|&pts| Keyframe {
                    pts,
                    dts: pts - 2.0 / 30.0,
                })
                .collect(),
            ..VideoFacts::default()
        };
        assert_eq!(plan.batch_starts(0..2), [0, 75]);
        let seams = plan
            .seam_entries(0..2, "seams-000.mp4", &file)
            .expect("a keyframe at each seam");
        let entries = plan.entries(&clips, &seams);
        let list = command::concat_list_from(&entries).expect("list");
        assert_eq!(
            list,
            "ffconcat version 1.0\n\
             file 'part-000.mp4'\noutpoint 3.933333\nduration 4.000000\n\
             file 'seams-000.mp4'\noutpoint 2.433333\nduration 2.500000\n\
             file 'part-001.mp4'\ninpoint 2.000000\noutpoint 3.933333\nduration 2.000000\n\
             file 'seams-000.mp4'\ninpoint 2.500000\nduration 2.500000\n\
             file 'part-002.mp4'\ninpoint 2.000000\nduration 3.000000\n"
        );
        // Copies and seams add up to the video.
        let copied: u32 = 120 + 60 + 90;
        assert_eq!(copied + plan.seam_frames(0) + plan.seam_frames(1), 420);
        // A file without a keyframe where the second seam starts cannot be cut into seams.
        let unkeyed = VideoFacts {
            keyframes: vec![file.keyframes[0], file.keyframes[1]],
            ..VideoFacts::default()
        };
        assert_eq!(plan.seam_entries(0..2, "seams-000.mp4", &unkeyed), None);
        // The seams' inputs: each tail from its keyframe to the clip's end, each head from
        // the next clip's start to just before its keyframe.
        let tails = command::concat_list_from(&plan.tail_entries(&clips, 0..2)).expect("tails");
        assert_eq!(
            tails,
            "ffconcat version 1.0\n\
             file 'part-000.mp4'\ninpoint 4.000000\nduration 1.000000\n\
             file 'part-001.mp4'\ninpoint 4.000000\nduration 1.000000\n"
        );
        let heads = command::concat_list_from(&plan.head_entries(&clips, 1..2)).expect("heads");
        assert_eq!(
            heads,
            "ffconcat version 1.0\n\
             file 'part-002.mp4'\noutpoint 1.933333\nduration 2.000000\n"
        );
    }

    #[test]
    fn seams_are_batched_over_clips_that_share_parameter_sets() {
        let with = |digest: &str| VideoFacts {
            extradata: digest.to_owned(),
            ..standard()
        };
        let plan = SeamPlan::new(Transition::Crossfade, 30, &[150; 5], &vec![standard(); 5])
            .expect("seams");
        let one = plan.batches(&vec![with("SHA256:a"); 5]);
        assert_eq!((one.len(), one[0].clone()), (1, 0..4), "one run");
        // Clip 2 differs: the joins touching it are runs of their own.
        let mixed = [
            with("SHA256:a"),
            with("SHA256:a"),
            with("SHA256:b"),
            with("SHA256:a"),
            with("SHA256:a"),
        ];
        assert_eq!(plan.batches(&mixed), [0..1, 1..2, 2..3, 3..4]);
        let tail_differs = [with("a"), with("a"), with("a"), with("a"), with("b")];
        assert_eq!(plan.batches(&tail_differs), [0..3, 3..4]);
        // Unknown sets: every join alone.
        assert_eq!(plan.batches(&vec![standard(); 5]), [0..1, 1..2, 2..3, 3..4]);
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
}
