//! Effects, template drawing and the speed ramp for stillreel, as ffmpeg filtergraph fragments.
//!
//! Everything here is pure (the generative provider client, which does I/O, lives in
//! `stillreel-render`): functions take the frame facts and return
//! filtergraph text (commands as data). The render crate splices a fragment between its own pads
//! (see `docs/EFFECTS.md` for the exact contract):
//!
//! ```text
//! [clip_moved] <effect fragment> [clip_fx]
//! ```
//!
//! A fragment reads its input at the clip's final size and frame rate (after the camera move) and
//! writes `yuv420p` frames of the same size, rate and count. What a filtergraph cannot compute
//! (the sky as the region connected to the top edge) comes in as [`scene`] masks of the still,
//! which the caller computes once per clip and moves with the camera.

pub mod caption;
pub mod escape;
mod expr;
pub mod fx;
mod graph;
pub mod ramp;
pub mod scene;
pub mod template;

pub mod text;

pub use fx::effect_filter;
pub use graph::{EffectContext, EffectError, EffectGraph, ExtraInput, Pads};
pub use scene::{MaskStream, SceneMask};
