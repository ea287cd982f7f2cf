//! Keyframes a clip is encoded with beyond its regular GOP (one every 2 s from its start), so
//! the steps after it can copy its packets instead of re-encoding them. A copy can only start
//! at a keyframe and must end just before one; where the video will be cut for a transition or
//! for the branded intro is known when the video is created, so the clip is given keyframes
//! exactly there:
//!
//! - a blended transition (`crossfade`, `fade-black`) overlaps neighbouring clips by
//!   [`Transition::overlap_frames`] (15): a keyframe where the overlap starts (frame 135 of a
//!   5 s clip, its left side) and where it ends (frame 15, its right side) makes each seam the
//!   15 blended frames alone instead of the 75 the 2 s GOP forces;
//! - a video branded with an intro: the first clip gets a keyframe where the intro ends
//!   (frame 90), so the branded render encodes the intro's 3 s and copies from there instead
//!   of encoding on to the next GOP (4 s);
//! - a video branded with the speed ramp: the ramp speeds up the 36 frames before each cut
//!   and the 36 after it ([`stillreel_effects::ramp::INTO_CUT`]), so every clip gets a
//!   keyframe where the ramp out of the previous cut ends (frame 36) and where the ramp into
//!   the next begins (frame 114 of a 5 s cut clip; `frames - overlap - 36` of a blended one,
//!   whose last `overlap` frames are the next clip's blend), and the branded render encodes
//!   only the 72 frames around each cut (`brand/ramp_copy.rs`).
//!
//! Clips of a cut, unbranded video get none (no extra IDR frame); every clip of a blended or
//! ramped video gets both of the transition's and the ramp's, whatever its position, so it
//! can be combined in any order.

use stillreel_core::Transition;
use stillreel_effects::ramp::INTO_CUT;
use stillreel_effects::template::INTRO_SECONDS;

/// What the video a clip belongs to will do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClipUse {
    /// How the video's clips meet.
    pub transition: Transition,
    /// The video will be branded with an intro (its branded copy is made by stream copy from
    /// where the intro ends).
    pub branded_intro: bool,
    /// The video will be branded with the speed ramp (its branded copy encodes the ramped
    /// spans around the cuts and copies what lies between them).
    pub ramp: bool,
}

/// The frames (besides each GOP's first) where clip `index` of `frames` frames at `fps` must be
/// a keyframe, ascending; empty for a cut, unbranded video.
pub fn clip_keyframes(index: usize, frames: u32, fps: u32, usage: ClipUse) -> Vec<u32> {
    let mut keys = Vec::new();
    let overlap = usage.transition.overlap_frames();
    if overlap > 0 && frames > 2 * overlap {
        keys.extend([overlap, frames - overlap]);
    }
    let side: u32 = INTO_CUT.iter().map(|s| s.frames).sum();
    if usage.ramp && frames >= overlap + 2 * side {
        keys.extend([side, frames - overlap - side]);
    }
    let intro = INTRO_SECONDS * fps;
    if index == 0 && usage.branded_intro && intro < frames {
        keys.push(intro);
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The value of ffmpeg's `-force_key_frames` for `keys` (output frame numbers), `None` for no
/// keys: an expression on the frame number, exact whatever the timestamps' rounding.
pub fn force_key_frames_value(keys: &[u32]) -> Option<String> {
    if keys.is_empty() {
        return None;
    }
    let terms: Vec<String> = keys.iter().map(|k| format!("eq(n,{k})")).collect();
    Some(format!("expr:{}", terms.join("+")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(transition: Transition, branded_intro: bool) -> ClipUse {
        ClipUse {
            transition,
            branded_intro,
            ramp: false,
        }
    }

    #[test]
    fn a_ramped_video_keys_every_clip_where_the_ramp_begins_and_ends() {
        let ramp = |transition, branded_intro| ClipUse {
            ramp: true,
            ..usage(transition, branded_intro)
        };
        for index in 0..3 {
            assert_eq!(
                clip_keyframes(index, 150, 30, ramp(Transition::Cut, false)),
                [36, 114]
            );
            // A blended clip's ramp into the cut begins 36 frames before its blend.
            assert_eq!(
                clip_keyframes(index, 150, 30, ramp(Transition::Crossfade, false)),
                [15, 36, 99, 135]
            );
        }
        assert_eq!(
            clip_keyframes(0, 150, 30, ramp(Transition::Cut, true)),
            [36, 90, 114]
        );
        // Too short for the ramp (it plans none): nothing to key.
        assert!(clip_keyframes(1, 60, 30, ramp(Transition::Cut, false)).is_empty());
    }

    #[test]
    fn a_cut_unbranded_clip_has_no_extra_keyframes() {
        for index in 0..3 {
            assert!(clip_keyframes(index, 150, 30, ClipUse::default()).is_empty());
        }
        assert_eq!(force_key_frames_value(&[]), None);
    }

    #[test]
    fn a_blended_video_keys_every_clip_where_its_overlaps_begin_and_end() {
        for transition in [Transition::Crossfade, Transition::FadeBlack] {
            for index in 0..3 {
                assert_eq!(
                    clip_keyframes(index, 150, 30, usage(transition, false)),
                    [15, 135]
                );
            }
        }
        assert_eq!(
            force_key_frames_value(&[15, 135]).as_deref(),
            Some("expr:eq(n,15)+eq(n,135)")
        );
    }

    #[test]
    fn the_first_clip_of_a_branded_video_is_keyed_where_the_intro_ends() {
        assert_eq!(
            clip_keyframes(0, 150, 30, usage(Transition::Cut, true)),
            [90]
        );
        assert!(clip_keyframes(1, 150, 30, usage(Transition::Cut, true)).is_empty());
        assert_eq!(
            clip_keyframes(0, 150, 30, usage(Transition::Crossfade, true)),
            [15, 90, 135]
        );
        // A clip shorter than the intro has nothing to key.
        assert!(clip_keyframes(0, 60, 30, usage(Transition::Cut, true)).is_empty());
    }
}
