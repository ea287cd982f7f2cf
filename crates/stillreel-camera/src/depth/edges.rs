//! The depth map smoothed under the photo's own edges: an edge-aware recursive filter (the
//! domain transform of Gastal and Oliveira, "Domain Transform for Edge-Aware Image and Video
//! Processing", its recursive form), the photo's luminance as the guide.
//!
//! Why: a depth model's map is blotchy inside a surface and its outlines are soft and wander a
//! few pixels off the photo's. Read per pixel, both give the pixels of one straight edge (a
//! sill, a mullion, a shelf) different depths, so the edge waves as the camera moves. The
//! filter averages the depth over a wide reach ([`crate::depth::SMOOTH_REACH`]) along paths
//! that do not cross the photo's edges: a surface of the photo gets one smooth depth, a depth
//! step lands on the photo's own outline, and along a straight edge (no luminance change
//! along it) the depth is averaged evenly, so the edge stays straight. Unlike a guided filter
//! it only averages depths: no luminance texture is copied into the map (a bright mullion
//! does not become nearer than the glass beside it).
//!
//! Each pass runs along rows then columns, both ways: linear in the pixels whatever the reach.

/// The photo's luminance at the depth field's resolution (half the frame's), the filter's
/// guide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guide {
    pub width: usize,
    pub height: usize,
    pub luma: Vec<u8>,
}

impl Guide {
    /// A guide from a full-resolution luma plane (`stride` bytes a row), each value the mean
    /// of a 2×2 block.
    pub fn from_luma(width: usize, height: usize, stride: usize, luma: &[u8]) -> Self {
        let (w, h) = ((width / 2).max(1), (height / 2).max(1));
        let at =
            |x: usize, y: usize| u16::from(luma[y.min(height - 1) * stride + x.min(width - 1)]);
        let luma = (0..h)
            .flat_map(|y| {
                (0..w).map(move |x| {
                    let (x2, y2) = (2 * x, 2 * y);
                    let sum = at(x2, y2) + at(x2 + 1, y2) + at(x2, y2 + 1) + at(x2 + 1, y2 + 1);
                    ((sum + 2) / 4) as u8
                })
            })
            .collect();
        Guide {
            width: w,
            height: h,
            luma,
        }
    }
}

/// The luminance step between neighbours (0..1, at the guide's half resolution) under which
/// the photo counts as plain: a texture's, not an outline's.
pub const TEXTURE: f32 = 0.03;

/// `depth` (0..1, the guide's size) smoothed under `guide`: over about `reach` pixels where
/// the photo is plain, stopping at luminance steps large against `contrast` (0..1 units).
pub fn smooth_under(depth: &[f32], guide: &Guide, reach: f32, contrast: f32) -> Vec<f32> {
    let (w, h) = (guide.width, guide.height);
    assert_eq!(depth.len(), w * h, "depth and guide sizes");
    // The distance between neighbours in the transformed domain,
    // 1 + (reach/contrast)·max(|ΔI| − TEXTURE, 0), across columns (`dx[k]`: the step between
    // k−1 and k) and rows. Steps under [`TEXTURE`] (grain, weave, a soft gradient) do not
    // count: only outlines keep the depth from spreading, so it is evened out along a
    // textured surface too. A step is one of 256 byte differences, so each pass's weights
    // (`a^distance`) are a table over them rather than a power per pixel.
    let ratio = reach / contrast.max(1e-6);
    let luma = &guide.luma;
    let mut dx = vec![0u8; w * h];
    let mut dy = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let k = y * w + x;
            if x > 0 {
                dx[k] = luma[k].abs_diff(luma[k - 1]);
            }
            if y > 0 {
                dy[k] = luma[k].abs_diff(luma[k - w]);
            }
        }
    }
    let mut out = depth.to_vec();
    const PASSES: i32 = 3;
    let total = (4f32.powi(PASSES) - 1.0).sqrt();
    let mut line = Vec::with_capacity(w.max(h));
    let mut weights = Vec::with_capacity(w.max(h));
    for i in 0..PASSES {
        // Each pass a shorter reach, so the three add up to `reach` (the paper's schedule).
        let sigma = reach * 3f32.sqrt() * 2f32.powi(PASSES - 1 - i) / total;
        let a = (-(2f32.sqrt()) / sigma).exp();
        let table: [f32; 256] = std::array::from_fn(|step| {
            let over = (step as f32 / 255.0 - TEXTURE).max(0.0);
            a.powf(1.0 + ratio * over)
        });
        for y in 0..h {
            line.clear();
            line.extend_from_slice(&out[y * w..(y + 1) * w]);
            weights.clear();
            weights.extend(
                dx[y * w..(y + 1) * w]
                    .iter()
                    .map(|&d| table[usize::from(d)]),
            );
            recursive(&mut line, &weights);
            out[y * w..(y + 1) * w].copy_from_slice(&line);
        }
        for x in 0..w {
            line.clear();
            line.extend((0..h).map(|y| out[y * w + x]));
            weights.clear();
            weights.extend((0..h).map(|y| table[usize::from(dy[y * w + x])]));
            recursive(&mut line, &weights);
            for (y, v) in line.iter().enumerate() {
                out[y * w + x] = *v;
            }
        }
    }
    out
}

/// One line filtered forward then backward: each value pulled towards its neighbour by
/// `weights[k]` (the weight between k−1 and k).
fn recursive(line: &mut [f32], weights: &[f32]) {
    for k in 1..line.len() {
        line[k] += weights[k] * (line[k - 1] - line[k]);
    }
    for k in (0..line.len().saturating_sub(1)).rev() {
        line[k] += weights[k + 1] * (line[k + 1] - line[k]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_regions_are_averaged_and_steps_follow_the_photos_edge() {
        // The photo: dark above row 20, bright below. The depth: a step at row 24 (its
        // outline 4 px off the photo's), with noise.
        let (w, h) = (64, 48);
        let guide = Guide {
            width: w,
            height: h,
            luma: (0..w * h)
                .map(|k| if k / w < 20 { 40 } else { 200 })
                .collect(),
        };
        let noise = |k: usize| ((k * 7919 % 97) as f32 / 97.0 - 0.5) * 0.1;
        let depth: Vec<f32> = (0..w * h)
            .map(|k| if k / w < 24 { 0.2 } else { 0.8 } + noise(k))
            .collect();
        let q = smooth_under(&depth, &guide, 12.0, 0.1);
        let row_spread = |y: usize| {
            let row = &q[y * w + 8..y * w + w - 8];
            let max = row.iter().copied().fold(f32::MIN, f32::max);
            let min = row.iter().copied().fold(f32::MAX, f32::min);
            max - min
        };
        for y in [5, 15, 21, 22, 30, 40] {
            assert!(row_spread(y) < 0.02, "row {y}: {}", row_spread(y));
        }
        // The step moved to the photo's edge: the largest jump between neighbouring rows is
        // where the photo's is (row 20), not where the map's was (row 24).
        let at = |y: usize| q[y * w + w / 2];
        let jump = (1..h)
            .max_by(|&a, &b| (at(a) - at(a - 1)).total_cmp(&(at(b) - at(b - 1))))
            .unwrap_or(0);
        assert_eq!(jump, 20, "{:?}", (0..h).map(at).collect::<Vec<_>>());
        // Nothing of the lower region's depth crossed the photo's edge; the lower region is
        // near, with a little of the map's stray far rows averaged in.
        assert!(
            (at(5) - 0.2).abs() < 0.02 && at(19) < 0.25,
            "{} {}",
            at(5),
            at(19)
        );
        assert!(at(40) > 0.65, "{}", at(40));
    }

    #[test]
    fn a_guide_is_the_luma_halved() {
        let luma = [10, 20, 0, 0, 30, 40, 0, 4];
        let g = Guide::from_luma(4, 2, 4, &luma);
        assert_eq!((g.width, g.height), (2, 1));
        assert_eq!(g.luma, vec![25, 1]);
    }
}
