//! The branded render (docs/API-DESIGN.md#rendering): after the main video is complete, make
//! the branded copy: speed ramp across the cuts (two or more clips), the intro template drawn
//! over the first 3 s, the outro card appended for 3 s, and the video's music laid again under
//! the whole so it runs through the outro card and fades out with it.
//!
//! Without a ramp (`copy.rs`) only the intro's span (to the next keyframe) and the outro card
//! are encoded; the rest of the main video is copied packet for packet:
//!
//! ```text
//! head.mp4 (main [0, keyframe) + intro) ─┐
//! main.mp4 from that keyframe ───────────┼─ concat, -c:v copy ─┐
//! outro.mp4 (the card) ──────────────────┘                     ├→ branded.mp4
//! music looped, cut, faded over the outro (or silence) ─ aac ──┘
//! ```
//!
//! With the ramp every frame moves, so one ffmpeg run decodes and re-encodes the whole:
//!
//! ```text
//! [0:v] select(ramp), setpts ─→ intro overlay ─┐
//! outro card (lavfi, images) ──────────────────┴→ concat (v) → encoder
//! music (or anullsrc) ─→ trim, loudnorm, fade over the outro ──→ aac
//! ```
//!
//! Template drawing and the ramp plan are pure functions of `stillreel-effects`. [`plan`] and
//! [`copy`] are pure: from the facts of the main video (its clips' frames, frame size,
//! keyframes) and the request they decide every frame and the ffmpeg argument lists, tested
//! without ffmpeg. `run.rs` fetches the template images and the music, then runs the plan.

pub mod copy;
pub mod plan;
pub mod ramp_copy;
mod run;

pub use self::plan::{
    BrandImage, BrandJob, BrandMusic, BrandPlan, BrandSlot, BrandedVideo, brand_command,
    brand_graph,
};
