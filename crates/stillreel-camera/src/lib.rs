//! The camera of stillreel, in process: what each frame of a clip shows and the pixels that
//! draw it. Pure: bytes and plans in, pixels out; no files, no async runtime, no ffmpeg (the
//! render crate runs ffmpeg around it). Built optimized even in dev builds (the root
//! `Cargo.toml`): unoptimized, one clip's frames take tens of seconds.
//!
//! - [`clip`]: one clip, one call: the photo framed for the frame, its depth map checked and
//!   laid on it, the frames drawn (what the renderer, the preview and the reference frames
//!   call);
//! - [`geometry`]: the clip plan (window per frame), its homography and the depth-aware
//!   motions;
//! - [`depth`]: depth maps, checked and prepared for the camera;
//! - [`input`]: the still that comes in: its format sniffed from its first bytes, its EXIF
//!   orientation, and its canvas decoded and scaled in process;
//! - [`draw`]: the frames drawn from the canvas (and an effect's masks of the still, through the
//!   same windows), with the SIMD kernels beside their scalar twins.
//!
//! See `docs/RENDER.md`.

pub mod clip;
pub mod depth;
pub mod draw;
pub mod geometry;
pub mod input;
