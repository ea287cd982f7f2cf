//! The branded render (docs/API-DESIGN.md#rendering): after the main video is complete, one ffmpeg
//! run makes the branded copy: speed ramp across the cuts (two or more clips), the intro template
//! drawn over the first 3 s, the outro card appended for 3 s (with silence, since the music has
//! already faded out), re-encoded with the clips' settings and `+faststart`.
//!
//! ```text
//! [0:v] select(ramp), setpts ─→ intro overlay ─┐
//! [0:a] asplit → atrim/atempo/apad per step → concat ─┐ │
//! outro card (lavfi, images) ──────────────────────────┼─┴→ concat (v+a) → encoder
//! anullsrc 3 s ────────────────────────────────────────┘
//! ```
//!
//! Template drawing and the ramp plan are pure functions of `stillreel-effects`. [`plan`] is
//! pure: from the facts of the main video (its clips' frames, its frame size) and the request
//! it decides every frame (ramp, intro span, outro start, total) and the ffmpeg argument list,
//! tested without ffmpeg. `run.rs` fetches the template images, then runs that plan.

pub mod plan;
mod run;

pub use self::plan::{
    BrandImage, BrandJob, BrandPlan, BrandSlot, BrandedVideo, brand_command, brand_graph,
};
