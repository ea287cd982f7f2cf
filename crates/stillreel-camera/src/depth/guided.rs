//! The depth map filtered under the photo's own edges (a guided filter: He, Sun and Tang,
//! "Guided Image Filtering").
//!
//! Why: a depth model's map is blotchy inside a surface and its outlines are soft and wander a
//! few pixels off the photo's. Read per pixel, both give the pixels of one straight edge
//! (a sill, a mullion, a shelf) different depths, so the edge waves as the camera moves. The
//! filter models the depth, in each window, as a linear function of the photo's luminance
//! (`q = a·I + b`): where the photo is plain, `a` is about 0 and the depth is averaged over the
//! window; where the photo has an edge, the depth may step there and only there. So a surface
//! of the photo gets one smooth depth and a depth step follows the photo's line, straight
//! where it is straight.
//!
//! Box sums by running totals: the cost does not depend on the radius.

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

/// `depth` (0..1, `w`×`h`) filtered under `guide` (the same size) with window radius `r` and
/// regularisation `eps` (a luminance variance, in 0..1 units squared: edges weaker than about
/// its square root are smoothed over).
pub fn guided_filter(depth: &[f32], guide: &Guide, r: usize, eps: f32) -> Vec<f32> {
    let (w, h) = (guide.width, guide.height);
    assert_eq!(depth.len(), w * h, "depth and guide sizes");
    let i: Vec<f32> = guide.luma.iter().map(|&v| f32::from(v) / 255.0).collect();
    let mean_i = box_mean(&i, w, h, r);
    let mean_p = box_mean(depth, w, h, r);
    let ii: Vec<f32> = i.iter().map(|v| v * v).collect();
    let ip: Vec<f32> = i.iter().zip(depth).map(|(a, b)| a * b).collect();
    let corr_ii = box_mean(&ii, w, h, r);
    let corr_ip = box_mean(&ip, w, h, r);
    let mut a = vec![0f32; w * h];
    let mut b = vec![0f32; w * h];
    for k in 0..w * h {
        let var = corr_ii[k] - mean_i[k] * mean_i[k];
        let cov = corr_ip[k] - mean_i[k] * mean_p[k];
        a[k] = cov / (var.max(0.0) + eps);
        b[k] = mean_p[k] - a[k] * mean_i[k];
    }
    let mean_a = box_mean(&a, w, h, r);
    let mean_b = box_mean(&b, w, h, r);
    (0..w * h)
        .map(|k| (mean_a[k] * i[k] + mean_b[k]).clamp(0.0, 1.0))
        .collect()
}

/// The mean over the (2r+1)² window around each value (the window cut at the borders, the
/// mean over what is left), separable, by running sums in f64 (no drift over long rows).
fn box_mean(values: &[f32], w: usize, h: usize, r: usize) -> Vec<f32> {
    let mut rows = vec![0f32; w * h];
    let mut line = Vec::with_capacity(w.max(h));
    for y in 0..h {
        line.clear();
        line.extend_from_slice(&values[y * w..(y + 1) * w]);
        mean_line(&line, r, &mut |x, v| rows[y * w + x] = v);
    }
    let mut out = vec![0f32; w * h];
    for x in 0..w {
        line.clear();
        line.extend((0..h).map(|y| rows[y * w + x]));
        mean_line(&line, r, &mut |y, v| out[y * w + x] = v);
    }
    out
}

/// The windowed mean of one line, handed to `out` position by position.
fn mean_line(line: &[f32], r: usize, out: &mut dyn FnMut(usize, f32)) {
    let n = line.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0f64);
    let mut sum = 0f64;
    for &v in line {
        sum += f64::from(v);
        prefix.push(sum);
    }
    for k in 0..n {
        let (a, b) = (k.saturating_sub(r), (k + r + 1).min(n));
        out(k, ((prefix[b] - prefix[a]) / (b - a) as f64) as f32);
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
        let q = guided_filter(&depth, &guide, 6, 1e-3);
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
        assert!((at(5) - 0.2).abs() < 0.05 && (at(40) - 0.8).abs() < 0.05);
    }

    #[test]
    fn a_guide_is_the_luma_halved() {
        let luma = [10, 20, 0, 0, 30, 40, 0, 4];
        let g = Guide::from_luma(4, 2, 4, &luma);
        assert_eq!((g.width, g.height), (2, 1));
        assert_eq!(g.luma, vec![25, 1]);
    }
}
