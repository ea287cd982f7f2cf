//! The video's timeline in the preview: which clip (or which two, blending) each frame shows,
//! and where the branded render's intro, speed ramp and outro card fall. Frame-exact with the
//! renderer's plans: the stitch overlaps clips by [`Transition::overlap_frames`] at each join
//! (`stillreel-render`'s `StitchPlan`), the ramp is the effects crate's own [`RampPlan`] over
//! the joined clips, and the intro and outro span [`INTRO_SECONDS`] and [`OUTRO_SECONDS`]
//! (`BrandPlan`); the tests below hold the two to each other.
//!
//! A video with branding previews as its branded render (what the viewer is finally shown);
//! without, as the stitched video.

use stillreel_core::Transition;
use stillreel_core::limits::{CLIP_SECONDS, FPS};
use stillreel_effects::ramp::RampPlan;
use stillreel_effects::template::{INTRO_SECONDS, OUTRO_SECONDS};

/// What the branded render adds, as far as timing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BrandTiming {
    pub intro: bool,
    pub outro: bool,
    pub speed_ramp: bool,
}

/// One clip's frame shown at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Shot {
    pub clip: u32,
    /// Frame within the clip, 0 to 149.
    pub frame: u32,
}

/// What one frame of the previewed video shows.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Moment {
    /// A frame of the clips: `shot`, or during a blended join the outgoing `shot` blended
    /// into `next` by xfade's `progress` (1 at the join's first frame, falling by one overlap
    /// step a frame).
    Clips {
        /// Frame of the stitched video this output frame shows (differs under the ramp).
        main_frame: u32,
        shot: Shot,
        next: Option<Shot>,
        progress: f64,
        /// The intro is drawn over this frame.
        intro: bool,
    },
    /// Frame `frame` of the outro card.
    Outro { frame: u32 },
}

/// The timing of a whole video.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub fps: u32,
    pub clips: u32,
    pub clip_frames: u32,
    pub transition: Transition,
    pub brand: BrandTiming,
    /// The ramp's plan when it applies (asked for, two or more clips).
    ramp: Option<RampPlan>,
    /// Under the ramp: the stitched frame each output frame shows.
    kept: Vec<u32>,
}

impl Timeline {
    pub fn new(clips: u32, transition: Transition, brand: BrandTiming) -> Self {
        let clip_frames = CLIP_SECONDS * FPS;
        let overlap = transition.overlap_frames();
        let ramp = brand.speed_ramp.then(|| {
            // Each clip's span in the stitched video: every clip but the last ends where its
            // blend into the next begins (`BrandJob::joined_clips`).
            let spans: Vec<u32> = (0..clips)
                .map(|i| clip_frames - if i + 1 < clips { overlap } else { 0 })
                .collect();
            RampPlan::new(&spans, FPS)
        });
        let ramp = ramp.flatten();
        let kept = ramp.as_ref().map(RampPlan::kept_frames).unwrap_or_default();
        Timeline {
            fps: FPS,
            clips,
            clip_frames,
            transition,
            brand,
            ramp,
            kept,
        }
    }

    /// Frames two clips overlap at a join.
    pub fn overlap(&self) -> u32 {
        self.transition.overlap_frames()
    }

    /// Whether the speed ramp takes effect.
    pub fn ramped(&self) -> bool {
        self.ramp.is_some()
    }

    /// First frame of clip `i` in the stitched video.
    pub fn clip_start(&self, i: u32) -> u32 {
        i * (self.clip_frames - self.overlap())
    }

    /// Frames of the stitched video.
    pub fn main_frames(&self) -> u32 {
        if self.clips == 0 {
            return 0;
        }
        self.clip_start(self.clips - 1) + self.clip_frames
    }

    /// Frames of the video's body: the stitched video, after the ramp.
    pub fn body_frames(&self) -> u32 {
        self.ramp
            .as_ref()
            .map_or(self.main_frames(), RampPlan::output_frames)
    }

    /// Frames the intro is drawn over, from frame 0.
    pub fn intro_frames(&self) -> u32 {
        if self.brand.intro {
            (INTRO_SECONDS * self.fps).min(self.body_frames())
        } else {
            0
        }
    }

    /// First frame of the outro card, when there is one.
    pub fn outro_start(&self) -> Option<u32> {
        self.brand.outro.then(|| self.body_frames())
    }

    /// Frames of the previewed video.
    pub fn total_frames(&self) -> u32 {
        self.body_frames()
            + if self.brand.outro {
                OUTRO_SECONDS * self.fps
            } else {
                0
            }
    }

    /// `(first frame, frames)` of the music's fade-out: over the outro card when there is one,
    /// else over the last second (the stitched video's rule, and the branded one's without a
    /// card).
    pub fn music_fade(&self) -> (u32, u32) {
        match self.outro_start() {
            Some(start) => (start, OUTRO_SECONDS * self.fps),
            None => (self.total_frames().saturating_sub(self.fps), self.fps),
        }
    }

    /// The stitched frame output frame `frame` shows (the ramp drops some).
    pub fn main_frame(&self, frame: u32) -> u32 {
        if self.ramp.is_some() {
            let last = self.kept.len().saturating_sub(1);
            self.kept[(frame as usize).min(last)]
        } else {
            frame.min(self.main_frames().saturating_sub(1))
        }
    }

    /// What output frame `frame` shows (clamped to the video).
    pub fn at(&self, frame: u32) -> Moment {
        let frame = frame.min(self.total_frames().saturating_sub(1));
        let body = self.body_frames();
        if frame >= body {
            return Moment::Outro {
                frame: frame - body,
            };
        }
        let main = self.main_frame(frame);
        let step = self.clip_frames - self.overlap();
        let clip = (main / step.max(1)).min(self.clips.saturating_sub(1));
        let local = main - self.clip_start(clip);
        let overlap = self.overlap();
        let (shot, next, progress) = if clip > 0 && local < overlap {
            let before = Shot {
                clip: clip - 1,
                frame: main - self.clip_start(clip - 1),
            };
            let after = Shot { clip, frame: local };
            // xfade's progress: 1 - elapsed / duration, elapsed in whole frames.
            let progress = 1.0 - f64::from(local) / f64::from(overlap);
            (before, Some(after), progress)
        } else {
            (Shot { clip, frame: local }, None, 0.0)
        };
        Moment::Clips {
            main_frame: main,
            shot,
            next,
            progress,
            intro: frame < self.intro_frames(),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::collections::BTreeMap;

    use stillreel_core::catalog::builtin_templates;
    use stillreel_effects::template::{Frame, intro_overlay, outro_card};
    use stillreel_render::plan::video_plan::AudioPlan;
    use stillreel_render::{BrandJob, BrandPlan, StitchPlan};

    use super::*;

    const TRANSITIONS: [Transition; 3] = [
        Transition::Cut,
        Transition::Crossfade,
        Transition::FadeBlack,
    ];

    fn frame() -> Frame {
        Frame {
            width: 1280,
            height: 720,
            fps: FPS,
        }
    }

    /// The renderer's branded plan of `clips` clips, with the real built-in templates.
    fn brand_plan(clips: usize, transition: Transition, brand: BrandTiming) -> BrandPlan {
        let template = |id: &str| {
            builtin_templates()
                .iter()
                .find(|t| t.id == id)
                .expect("template")
        };
        let intro = brand.intro.then(|| {
            let graph = intro_overlay(template("intro-lower-third"), &BTreeMap::new(), frame())
                .expect("intro");
            (graph, Vec::new())
        });
        let outro = brand.outro.then(|| {
            let graph =
                outro_card(template("outro-minimal"), &BTreeMap::new(), frame()).expect("outro");
            (graph, Vec::new())
        });
        BrandPlan::new(
            &BrandJob::joined_clips(clips, transition),
            frame(),
            brand.speed_ramp,
            intro,
            outro,
        )
    }

    #[test]
    fn the_stitched_timing_is_the_stitch_plans() {
        for transition in TRANSITIONS {
            for clips in 1..=5u32 {
                let t = Timeline::new(clips, transition, BrandTiming::default());
                let stitch =
                    StitchPlan::standard(clips as usize, false).with_transition(transition);
                assert_eq!(
                    t.main_frames(),
                    stitch.total_frames(),
                    "{transition:?} {clips}"
                );
                assert_eq!(t.total_frames(), stitch.total_frames());
                let AudioPlan::Music {
                    seconds,
                    fade_start,
                } = StitchPlan::standard(clips as usize, true)
                    .with_transition(transition)
                    .audio()
                else {
                    panic!("a stitch with music has music");
                };
                let (start, frames) = t.music_fade();
                let fps = f64::from(t.fps);
                assert!((f64::from(start) / fps - fade_start).abs() < 1e-9);
                assert!((f64::from(start + frames) / fps - seconds).abs() < 1e-9);
                for i in 0..clips {
                    assert_eq!(t.clip_start(i), stitch.clip_start(i));
                }
            }
        }
    }

    #[test]
    fn the_branded_timing_is_the_brand_plans() {
        for transition in TRANSITIONS {
            for clips in 1..=4u32 {
                for bits in 0..8u8 {
                    let brand = BrandTiming {
                        intro: bits & 1 != 0,
                        outro: bits & 2 != 0,
                        speed_ramp: bits & 4 != 0,
                    };
                    let t = Timeline::new(clips, transition, brand);
                    let plan = brand_plan(clips as usize, transition, brand);
                    let what = format!("{transition:?} {clips} {brand:?}");
                    assert_eq!(t.ramped(), plan.ramp.is_some(), "{what}");
                    assert_eq!(t.body_frames(), plan.body_frames(), "{what}");
                    assert_eq!(t.total_frames(), plan.total_frames(), "{what}");
                    assert_eq!(t.intro_frames(), plan.intro_frames(), "{what}");
                    assert_eq!(t.outro_start(), plan.outro_start(), "{what}");
                    let (start, frames) = t.music_fade();
                    let fps = f64::from(t.fps);
                    assert_eq!(
                        (f64::from(start) / fps, f64::from(frames) / fps),
                        plan.music_fade(),
                        "{what}"
                    );
                    // Each cut between clips (in the stitched video) lands on the output frame
                    // the plan says.
                    for (i, cut) in plan.cut_frames().into_iter().enumerate() {
                        let source = t.clip_start(i as u32 + 1);
                        assert_eq!(t.main_frame(cut), source, "{what} cut {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_crossfade_blends_from_the_outgoing_clip_into_the_next() {
        let t = Timeline::new(3, Transition::Crossfade, BrandTiming::default());
        let join = t.clip_start(1);
        assert_eq!(join, 135);
        let Moment::Clips {
            shot,
            next,
            progress,
            ..
        } = t.at(join)
        else {
            panic!("clips");
        };
        assert_eq!(
            shot,
            Shot {
                clip: 0,
                frame: 135
            }
        );
        assert_eq!(next, Some(Shot { clip: 1, frame: 0 }));
        assert!((progress - 1.0).abs() < 1e-9);
        let Moment::Clips { next, progress, .. } = t.at(join + 14) else {
            panic!("clips");
        };
        assert_eq!(next, Some(Shot { clip: 1, frame: 14 }));
        assert!((progress - 1.0 / 15.0).abs() < 1e-9);
        let Moment::Clips { shot, next, .. } = t.at(join + 15) else {
            panic!("clips");
        };
        assert_eq!((shot, next), (Shot { clip: 1, frame: 15 }, None));
    }

    #[test]
    fn the_outro_follows_the_body_and_the_intro_covers_its_first_seconds() {
        let brand = BrandTiming {
            intro: true,
            outro: true,
            speed_ramp: false,
        };
        let t = Timeline::new(2, Transition::Cut, brand);
        assert!(matches!(t.at(0), Moment::Clips { intro: true, .. }));
        assert!(matches!(t.at(89), Moment::Clips { intro: true, .. }));
        assert!(matches!(t.at(90), Moment::Clips { intro: false, .. }));
        assert_eq!(t.at(300), Moment::Outro { frame: 0 });
        assert_eq!(t.at(10_000), Moment::Outro { frame: 89 });
    }
}
