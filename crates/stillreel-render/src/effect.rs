//! The effect hook: a stage of the clip filtergraph between the camera move and the encoder,
//! filled in by `stillreel-effects` (vfx) without this crate knowing any effect.
//!
//! The clip graph is `[0:v] → orient, cover-crop, yuv420p, loop → move → [mv]`, then the
//! effect's chain from `[mv]` to `[fx]`, then `[fx] → format=yuv420p → encoder`. Without an
//! effect, `[mv]` goes straight to the encoder.

pub mod vfx;

use std::path::PathBuf;

use stillreel_core::Engine;
use stillreel_effects::{EffectError, MaskStream};

/// What an effect knows about the clip it draws on.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipContext {
    /// Output frame size; the effect's output must keep it.
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    /// Frames in the clip; the effect's output must keep the count (no trimming, no padding).
    pub frames: u32,
    pub engine: Engine,
    /// Position of the clip in the video (0-based).
    pub index: usize,
    /// The pad the effect reads from, without brackets (`mv`).
    pub input_pad: &'static str,
    /// The pad the effect must write to, without brackets (`fx`).
    pub output_pad: &'static str,
    /// ffmpeg input index of the effect's first [`EffectInput`] (its stream is `[N:v]`).
    pub first_extra_input: usize,
}

/// A local file an effect reads (an overlay picture, a pre-rendered layer). Like every input,
/// it is opened with its format forced and only through the `file` protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectInput {
    pub path: PathBuf,
    /// The ffmpeg demuxer to force (`png_pipe`, `jpeg_pipe`, `mov`, `rawvideo`...).
    pub format: String,
    /// The demuxer's options, before `-i` (`-pix_fmt gray` for raw frames).
    pub options: Vec<String>,
}

/// The filter fragment of an effect.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EffectFilter {
    /// A filtergraph fragment reading `[input_pad]` (and `[N:v]` of its inputs) and writing
    /// `[output_pad]`, e.g. `[mv]drawtext=...[fx]`. Several chains are separated by `;`.
    pub graph: String,
    /// Extra inputs, in order, starting at [`ClipContext::first_extra_input`].
    pub inputs: Vec<EffectInput>,
    /// Masks of the still the graph reads as its last extra input, after `inputs`: the clip
    /// step computes them from the canvas, moves them with the camera and adds that input
    /// (`steps/masks.rs`).
    pub masks: Option<MaskStream>,
}

/// An effect applied to one clip. Implemented in `stillreel-effects`.
pub trait EffectStage: Send + Sync + std::fmt::Debug {
    /// The filter fragment for this clip, or why it cannot be built.
    fn filter(&self, ctx: &ClipContext) -> Result<EffectFilter, EffectError>;

    /// A generative effect (`virtual-staging`, `lifestyle`, `spin-ceiling-fan`): the still is
    /// first sent to the configured provider (`provider.rs`) and the clip is made from
    /// what it returns. `None` (the default) for effects drawn by the filter alone.
    fn generative(&self) -> Option<&stillreel_core::Vfx> {
        None
    }
}

/// An effect given as a fixed fragment; handy for tests and simple overlays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedEffect(pub EffectFilter);

impl EffectStage for FixedEffect {
    fn filter(&self, _ctx: &ClipContext) -> Result<EffectFilter, EffectError> {
        Ok(self.0.clone())
    }
}
