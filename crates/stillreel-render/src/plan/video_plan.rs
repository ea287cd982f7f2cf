//! The plan of a whole video, pure: from the facts of the fetched pictures (upright size,
//! fingerprint) and the request (motion per clip, frame, engine, music or not), which clips
//! are made with which motion, where each starts in the video, how the stitch joins them and
//! what sound it lays under them. Tested to the frame and the sample without ffmpeg; the steps
//! only run what it says.

use std::path::Path;

use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution, Transition};

use crate::ffmpeg::command::{self, FfmpegArgs, MusicInput, SAMPLE_RATE};
use stillreel_camera::geometry::clip_plan::{ClipPlan, resolve_motion};

/// The frame and look every clip of a video shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoShape {
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
}

/// What the plan needs to know about one picture: the motion asked for and the facts of the
/// fetched file (see `steps::StoredInput`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureFacts {
    pub camera_motion: CameraMotion,
    /// Pixel size as displayed (after the EXIF orientation); `None`: unknown, taken as the frame.
    pub upright: Option<(u32, u32)>,
    /// FNV-1a of the file's bytes (the `auto` rule's fingerprint).
    pub digest: u64,
    /// How the photo fills the frame (the request's `fit`): `auto` does not orbit a picture it
    /// contains.
    pub fit: Fit,
}

/// The plan of one clip: its frames, decided from the picture.
pub fn clip_plan(shape: VideoShape, picture: &PictureFacts) -> ClipPlan {
    let frame = shape.resolution.dimensions(shape.orientation);
    let motion = resolve_motion(
        picture.camera_motion,
        shape.engine,
        picture.upright.unwrap_or(frame),
        frame,
        picture.fit,
        picture.digest,
    );
    ClipPlan::new(shape.orientation, shape.resolution, shape.engine, motion)
}

/// The sound of a stitched video.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AudioPlan {
    /// Stereo silence of exactly this many samples at [`SAMPLE_RATE`].
    Silence { samples: u64 },
    /// The music looped and cut to `seconds`, faded out over the second from `fade_start`.
    Music { seconds: f64, fade_start: f64 },
}

/// The join of standard clips by stream copy (blended transitions re-encode only their seams,
/// [`crate::plan::transition`]), with one audio track over the whole length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StitchPlan {
    pub clips: u32,
    /// Frames of each clip (every clip passed the same check, so they are equal).
    pub clip_frames: u32,
    pub fps: u32,
    pub music: bool,
    /// How clips meet: a blended transition overlaps them by
    /// [`Transition::overlap_frames`] at each join.
    pub transition: Transition,
}

impl StitchPlan {
    /// `clips` standard clips ([`stillreel_core::limits::CLIP_SECONDS`] at
    /// [`stillreel_core::limits::FPS`]).
    pub fn standard(clips: usize, music: bool) -> Self {
        let fps = stillreel_core::limits::FPS;
        StitchPlan {
            clips: u32::try_from(clips).unwrap_or(u32::MAX),
            clip_frames: stillreel_core::limits::CLIP_SECONDS * fps,
            fps,
            music,
            transition: Transition::Cut,
        }
    }

    /// The same join with clips meeting by `transition`.
    pub fn with_transition(self, transition: Transition) -> Self {
        StitchPlan { transition, ..self }
    }

    /// Frames each clip overlaps the next.
    pub fn overlap(&self) -> u32 {
        self.transition.overlap_frames()
    }

    pub fn total_frames(&self) -> u32 {
        let joins = self.clips.saturating_sub(1);
        self.clips
            .saturating_mul(self.clip_frames)
            .saturating_sub(joins.saturating_mul(self.overlap()))
    }

    pub fn seconds(&self) -> f64 {
        f64::from(self.total_frames()) / f64::from(self.fps)
    }

    /// First frame of clip `i` in the video (where its blend in starts, with a transition).
    pub fn clip_start(&self, i: u32) -> u32 {
        i.saturating_mul(self.clip_frames.saturating_sub(self.overlap()))
    }

    pub fn audio(&self) -> AudioPlan {
        let seconds = self.seconds();
        if self.music {
            AudioPlan::Music {
                seconds,
                fade_start: (seconds - 1.0).max(0.0),
            }
        } else {
            AudioPlan::Silence {
                samples: (f64::from(SAMPLE_RATE) * seconds).round() as u64,
            }
        }
    }

    /// The stitch command for this plan (`music` must be given when the plan has music).
    pub fn command(&self, list: &Path, music: Option<&MusicInput>, output: &Path) -> FfmpegArgs {
        command::stitch_command(list, self.total_frames(), self.fps, music, output)
    }
}

/// One clip of the video, placed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannedClip {
    pub plan: ClipPlan,
    /// Frame of the video at which this clip starts.
    pub first_frame: u32,
}

/// Every clip of a video, and the stitch that joins them.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoPlan {
    pub clips: Vec<PlannedClip>,
    pub stitch: StitchPlan,
}

impl VideoPlan {
    /// The plan for `pictures` (in video order) at `shape`, with music or silence.
    pub fn new(shape: VideoShape, pictures: &[PictureFacts], music: bool) -> Self {
        let stitch = StitchPlan::standard(pictures.len(), music);
        let clips = pictures
            .iter()
            .zip(0u32..)
            .map(|(picture, i)| PlannedClip {
                plan: clip_plan(shape, picture),
                first_frame: stitch.clip_start(i),
            })
            .collect();
        VideoPlan { clips, stitch }
    }

    pub fn total_frames(&self) -> u32 {
        self.stitch.total_frames()
    }

    pub fn seconds(&self) -> f64 {
        self.stitch.seconds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_camera::geometry::clip_plan::Motion;

    const SHAPE: VideoShape = VideoShape {
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
    };

    fn picture(camera_motion: CameraMotion, upright: (u32, u32), digest: u64) -> PictureFacts {
        PictureFacts {
            camera_motion,
            upright: Some(upright),
            digest,
            fit: Fit::Auto,
        }
    }

    #[test]
    fn three_clips_are_placed_to_the_frame() {
        let plan = VideoPlan::new(
            SHAPE,
            &[
                picture(CameraMotion::PushIn, (4000, 3000), 1),
                picture(CameraMotion::Auto, (4000, 3000), 2),
                picture(CameraMotion::Auto, (4800, 2000), 3),
            ],
            false,
        );
        let starts: Vec<u32> = plan.clips.iter().map(|c| c.first_frame).collect();
        assert_eq!(starts, [0, 150, 300]);
        assert!(plan.clips.iter().all(|c| c.plan.frames == 150
            && (c.plan.width, c.plan.height) == (1280, 720)
            && c.plan.fps == 30));
        let motions: Vec<Motion> = plan.clips.iter().map(|c| c.plan.motion).collect();
        // Explicit; auto, not wide, even digest; auto, 2.4:1 on v25 (smart framing keeps 74 % of
        // it), odd digest.
        assert_eq!(
            motions,
            [Motion::PushIn, Motion::PushIn, Motion::OrbitRight]
        );
        assert_eq!(plan.total_frames(), 450);
        assert!((plan.seconds() - 15.0).abs() < 1e-9);
        assert_eq!(
            plan.stitch.audio(),
            AudioPlan::Silence {
                samples: 15 * 48_000
            }
        );
    }

    #[test]
    fn unknown_size_is_taken_as_the_frame_and_portrait_swaps_it() {
        let shape = VideoShape {
            orientation: Orientation::Portrait,
            resolution: Resolution::P1080,
            engine: Engine::V24,
        };
        let clip = clip_plan(
            shape,
            &PictureFacts {
                camera_motion: CameraMotion::Auto,
                upright: None,
                digest: 7,
                fit: Fit::Auto,
            },
        );
        assert_eq!((clip.width, clip.height, clip.frames), (1080, 1920, 150));
        assert_eq!(clip.motion, Motion::PushOut, "odd digest, v24 never orbits");
    }

    #[test]
    fn music_is_cut_to_the_video_and_faded_over_its_last_second() {
        let plan = VideoPlan::new(
            SHAPE,
            &[picture(CameraMotion::PushOut, (1280, 720), 0); 2],
            true,
        );
        assert_eq!(
            plan.stitch.audio(),
            AudioPlan::Music {
                seconds: 10.0,
                fade_start: 9.0
            }
        );
        let music = MusicInput {
            path: "music.mp3".into(),
            format: stillreel_core::media::MediaFormat::Mp3,
        };
        let cmd = plan.stitch.command(
            Path::new("clips.ffconcat"),
            Some(&music),
            Path::new("video.mp4"),
        );
        assert_eq!(cmd.planned_frames, 300);
        let t = cmd.args.iter().position(|a| a == "-t").expect("-t");
        assert_eq!(cmd.args[t + 1], "10.000");
        assert!(
            cmd.args
                .iter()
                .any(|a| a.contains("afade=t=out:st=9.000:d=1"))
        );
    }

    #[test]
    fn a_blended_transition_shortens_the_video_by_its_overlaps() {
        let cut = StitchPlan::standard(10, true);
        assert_eq!(cut.total_frames(), 1500);
        let fade = cut.with_transition(Transition::Crossfade);
        // Nine joins of 0.5 s each.
        assert_eq!(fade.total_frames(), 1500 - 9 * 15);
        assert!((fade.seconds() - 45.5).abs() < 1e-9);
        assert_eq!(fade.clip_start(1), 135);
        assert_eq!(
            fade.audio(),
            AudioPlan::Music {
                seconds: 45.5,
                fade_start: 44.5
            }
        );
        assert_eq!(
            StitchPlan::standard(1, false)
                .with_transition(Transition::FadeBlack)
                .total_frames(),
            150
        );
    }

    #[test]
    fn no_clips_make_an_empty_plan() {
        let plan = VideoPlan::new(SHAPE, &[], false);
        assert_eq!(plan.total_frames(), 0);
        assert_eq!(plan.stitch.audio(), AudioPlan::Silence { samples: 0 });
    }
}
