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
//! With the ramp (`ramp_copy.rs`) only the frames the ramp changes are encoded besides those:
//! the 36 source frames on each side of every cut (sped up to 18 each). A video created for
//! the ramp has its clips keyed where the ramp begins and ends (`clip_keys`), so the
//! normal-speed middle of each clip is copied:
//!
//! ```text
//! part-000.mp4 (main [0, 90) + intro) ───────────┐
//! main.mp4 [90, 114) ────────────────────────────┤
//! part-001.mp4 (main [114, 186), ramped: 36) ────┤
//! main.mp4 [186, 264) ───────────────────────────┼─ concat, -c:v copy ─┐
//! …  (each cut's span, each clip's middle)       │                     │
//! outro.mp4 (the card) ──────────────────────────┘                     ├→ branded.mp4
//! music looped, cut, faded over the outro (or silence) ─ aac ──────────┘
//! ```
//!
//! When the main video's keyframes leave nothing to copy (or a part's parameter sets differ
//! from the main video's), one ffmpeg run decodes and re-encodes the whole (`brand_command`):
//!
//! ```text
//! [0:v] select(ramp), setpts ─→ intro overlay ─┐
//! outro card (lavfi, images) ──────────────────┴→ concat (v) → encoder
//! music (or anullsrc) ─→ trim, loudnorm, fade over the outro ──→ aac
//! ```
//!
//! Template drawing and the ramp plan are pure functions of `stillreel-effects`. [`plan`],
//! [`copy`] and [`ramp_copy`] are pure: from the facts of the main video (its clips' frames, frame size,
//! keyframes) and the request they decide every frame and the ffmpeg argument lists, tested
//! without ffmpeg. `run.rs` fetches the template images and the music, then runs the plan
//! (`ramp_run.rs` the ramped one's parts); [`card_cache`] keeps each brand's encoded outro
//! card in storage.

pub mod card_cache;
pub mod copy;
pub mod plan;
pub mod ramp_copy;
mod ramp_run;
mod run;

pub use self::plan::{
    BrandImage, BrandJob, BrandMusic, BrandPlan, BrandSlot, BrandedVideo, brand_command,
    brand_graph,
};
pub use crate::plan::sound::{AheadSound, BrandSound};
