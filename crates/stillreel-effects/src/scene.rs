//! Masks of what a picture shows (its sky, its lit windows), computed once per clip in process
//! from a small RGB copy of the still: what a filtergraph cannot do, such as following a region
//! from the top edge. Pure: pixels in, a grey mask (0 to 255, the size of the input) out.
//!
//! An effect asks for masks through its graph's `masks`; the caller computes them with
//! [`masks`] from the still, moves them with the camera and hands them to the
//! fragment as one grey stream ([`MaskStream`]).

mod lights;
mod pixels;
mod sky;

pub use lights::lights_mask;
pub use sky::sky_mask;

/// A mask an effect can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneMask {
    /// The sky: smooth, sky-coloured pixels connected to the top edge ([`sky_mask`]).
    Sky,
    /// Lit windows and lamps: warm, bright, untextured pixels outside the sky ([`lights_mask`]).
    Lights,
}

/// The masks a fragment reads, as one extra grey stream after its extra input files
/// (pad `[extraN]`, N the number of those files): each frame holds the masks stacked top to bottom in
/// `kinds` order, each `width`×`height` (the clip's quarter size); one frame for every `step`-th
/// frame of the clip (frames 0, `step`, 2·`step`...), drawn through that frame's camera window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskStream {
    pub kinds: Vec<SceneMask>,
    pub width: u32,
    pub height: u32,
    pub step: u32,
}

impl MaskStream {
    /// Frames of the stream for a clip of `frames` frames.
    pub fn frames(&self, frames: u32) -> u32 {
        frames.div_ceil(self.step)
    }
}

/// The masks `kinds` of the RGB picture `rgb` (`width`×`height`, 3 bytes a pixel), stacked top
/// to bottom in that order: one frame of a [`MaskStream`].
pub fn masks(kinds: &[SceneMask], rgb: &[u8], width: usize, height: usize) -> Vec<u8> {
    let sky = sky_mask(rgb, width, height);
    let mut out = Vec::with_capacity(width * height * kinds.len());
    for kind in kinds {
        match kind {
            SceneMask::Sky => out.extend_from_slice(&sky),
            SceneMask::Lights => out.extend_from_slice(&lights_mask(rgb, &sky, width, height)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_stack_in_the_order_asked() {
        // Blue sky over a dark ground.
        let (w, h) = (8, 8);
        let mut rgb = vec![0u8; w * h * 3];
        for y in 0..h {
            for x in 0..w {
                let p = if y < 4 { [90, 140, 220] } else { [30, 60, 20] };
                rgb[(y * w + x) * 3..][..3].copy_from_slice(&p);
            }
        }
        let both = masks(&[SceneMask::Lights, SceneMask::Sky], &rgb, w, h);
        assert_eq!(both.len(), 2 * w * h);
        assert_eq!(&both[w * h..], &sky_mask(&rgb, w, h)[..]);
        assert_eq!(
            MaskStream {
                kinds: vec![SceneMask::Sky],
                width: 8,
                height: 8,
                step: 2
            }
            .frames(150),
            75
        );
    }
}
