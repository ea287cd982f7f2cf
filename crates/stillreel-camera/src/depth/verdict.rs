//! Whether a decoded depth map is worth moving the camera over: the checks that come after
//! the map is decoded and its aspect checked, on its values with brighter meaning nearer.
//!
//! - **flat**: its robust range (1st to 99th percentile) is under [`MIN_RANGE`] of the scale:
//!   nothing to move apart, and stretching it would magnify its noise into the whole motion;
//! - **garbled**: most of its variation is from one pixel to the next. The mean squared
//!   difference of neighbours is twice the variance for white noise and a small part of it for
//!   any depth (smooth surfaces, a few outlines): over [`MAX_ROUGHNESS`] it is noise;
//! - **inverted**: its bottom band is farther than its top band by over [`INVERTED_MARGIN`] of
//!   its range. A photo's bottom is the floor or the ground in front of the camera, nearer than
//!   its top (ceiling, sky, the far wall) in nearly every photo a listing shows; a map that
//!   says the opposite most likely has the other polarity. The clip is not turned on that
//!   guess: a wrong guess would push the room inside out, so it falls back to the flat camera.
//!
//! Every check reads at most [`SAMPLES`] pixels (a regular grid of rows), so a 50-megapixel map
//! costs what a small one does.

/// Why a depth map's values are no depth to move over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    #[error("the depth map is flat (no usable depth range)")]
    Flat,
    #[error("the depth map is garbled (its values change from pixel to pixel like noise)")]
    Garbled,
    #[error(
        "the depth map looks inverted (its bottom is farther than its top; \
         brighter must be nearer)"
    )]
    Inverted,
}

/// Least robust range, as a fraction of the scale.
pub const MIN_RANGE: f64 = 0.04;
/// Most neighbour difference energy, relative to white noise's (1.0).
pub const MAX_ROUGHNESS: f64 = 0.5;
/// How much farther the bottom band may be than the top one before the map counts as inverted
/// (fraction of its range).
pub const INVERTED_MARGIN: f64 = 0.15;
/// Pixels read by the checks, about.
pub const SAMPLES: usize = 250_000;

/// `Ok` when a `width`×`height` map of `values` (0..=65535, brighter is nearer, row by row) is
/// usable; else why not.
pub fn check(width: u32, height: u32, values: &[u16]) -> Result<(), Unusable> {
    let (w, h) = (width as usize, height as usize);
    if w < 2 || h < 2 || values.len() < w * h {
        return Err(Unusable::Flat);
    }
    let at = |x: usize, y: usize| f64::from(values[y * w + x]) / 65535.0;
    // Every `step`-th row, whole, and the row below it (for vertical neighbours).
    let step = (w * h).div_ceil(SAMPLES).max(1).min(h - 1);
    let rows: Vec<usize> = (0..h - 1).step_by(step).collect();
    let mut seen: Vec<f64> = Vec::with_capacity(rows.len() * w);
    let (mut sum, mut sum_sq, mut diff_sq, mut pairs) = (0.0, 0.0, 0.0, 0usize);
    for &y in &rows {
        for x in 0..w {
            let v = at(x, y);
            seen.push(v);
            sum += v;
            sum_sq += v * v;
            if x + 1 < w {
                diff_sq += (at(x + 1, y) - v).powi(2);
                pairs += 1;
            }
            diff_sq += (at(x, y + 1) - v).powi(2);
            pairs += 1;
        }
    }
    let n = seen.len() as f64;
    seen.sort_by(f64::total_cmp);
    let quantile = |q: f64| seen[((seen.len() - 1) as f64 * q).round() as usize];
    let range = quantile(0.99) - quantile(0.01);
    if range < MIN_RANGE {
        return Err(Unusable::Flat);
    }
    let variance = (sum_sq / n - (sum / n).powi(2)).max(1e-12);
    let roughness = diff_sq / pairs as f64 / (2.0 * variance);
    if roughness > MAX_ROUGHNESS {
        return Err(Unusable::Garbled);
    }
    let band = |from: usize, to: usize| {
        let ys = (from..to).step_by(((to - from) * w).div_ceil(SAMPLES / 4).max(1));
        let (s, c) = ys.fold((0.0, 0usize), |(s, c), y| {
            (s + (0..w).map(|x| at(x, y)).sum::<f64>(), c + w)
        });
        s / c.max(1) as f64
    };
    let fifth = (h / 5).max(1);
    let (top, bottom) = (band(0, fifth), band(h - fifth, h));
    if top - bottom > INVERTED_MARGIN * range {
        return Err(Unusable::Inverted);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(w: u32, h: u32, f: impl Fn(f64, f64) -> f64) -> (u32, u32, Vec<u16>) {
        let values = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| {
                let v = f(f64::from(x) / f64::from(w), f64::from(y) / f64::from(h));
                (v.clamp(0.0, 1.0) * 65535.0) as u16
            })
            .collect();
        (w, h, values)
    }

    fn check(map: &(u32, u32, Vec<u16>)) -> Result<(), Unusable> {
        super::check(map.0, map.1, &map.2)
    }

    /// A repeatable pseudo-random value in 0..1 per pixel.
    fn hash(x: f64, y: f64) -> f64 {
        let k = ((x * 7919.0).floor() as u64).wrapping_mul(2_654_435_761)
            ^ ((y * 6007.0).floor() as u64).wrapping_mul(40_503);
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f64 / f64::from(1u32 << 24)
    }

    #[test]
    fn plausible_maps_pass() {
        // A floor: near at the bottom; a room with a near sofa; the floor with some noise.
        assert_eq!(check(&map(320, 180, |_, y| y)), Ok(()));
        let room = map(640, 360, |x, y| {
            if (0.2..0.6).contains(&x) && y > 0.6 {
                0.9
            } else {
                0.2 + 0.3 * y
            }
        });
        assert_eq!(check(&room), Ok(()));
        let noisy = map(320, 180, |x, y| 0.2 + 0.6 * y + 0.05 * (hash(x, y) - 0.5));
        assert_eq!(check(&noisy), Ok(()));
    }

    #[test]
    fn flat_garbled_and_inverted_maps_are_named() {
        assert_eq!(check(&map(320, 180, |_, _| 0.5)), Err(Unusable::Flat));
        // A faint ramp, 2 % of the scale: flat too.
        assert_eq!(
            check(&map(320, 180, |x, _| 0.5 + 0.02 * x)),
            Err(Unusable::Flat)
        );
        assert_eq!(check(&map(320, 180, hash)), Err(Unusable::Garbled));
        // Noise over a weak gradient is still noise.
        assert_eq!(
            check(&map(320, 180, |x, y| 0.3 * y + hash(x, y))),
            Err(Unusable::Garbled)
        );
        // Far at the bottom, near at the top: a distance map read as nearness.
        assert_eq!(
            check(&map(320, 180, |_, y| 1.0 - y)),
            Err(Unusable::Inverted)
        );
        assert_eq!(check(&map(1, 1, |_, _| 0.5)), Err(Unusable::Flat));
    }

    #[test]
    fn a_large_map_is_sampled() {
        // 4000×3000 with the same verdicts.
        assert_eq!(check(&map(4000, 3000, |_, y| y)), Ok(()));
        assert_eq!(check(&map(4000, 3000, hash)), Err(Unusable::Garbled));
    }
}
