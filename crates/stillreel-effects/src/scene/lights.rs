//! Lit windows and lamps: the pixels a dusk picture lights. Warm and bright alone fires on
//! sunlit autumn leaves, orange trees and the sunset itself. A window is a compact warm patch
//! (it fills much of its bounding box, and is small against the picture) standing on a surface
//! that is not warm (a facade); warm leaves are large warm areas or specks inside warm
//! surroundings. Green pixels and the sky never light.

use std::collections::VecDeque;

use super::pixels::green_dominant;

/// Warmth (0–1) from which a pixel belongs to a candidate patch.
const CORE: f32 = 0.35;

/// Largest patch, as a share of the picture: a whole warm tree or hillside is no window.
const MAX_SHARE: f32 = 0.01;

/// Smallest patch, as a share of the picture (at least 3 pixels): a sunlit tuft of leaves is a
/// speck of two or three pixels at quarter size; a window of a house in view is larger.
const MIN_SHARE: f32 = 0.0001;

/// Smallest share of its bounding box a patch fills (a pane fills it; a twig does not).
const FILL: f32 = 0.4;

/// Largest mean warmth of the two pixels around a patch's box: a window's facade is not warm,
/// the rest of a sunlit tree is.
const AROUND: f32 = 0.12;

/// How warm a pixel is: `1.5R − 0.75B − 0.85` (0–1 scale) times 4.4, clipped to 0–1 (white
/// walls and clouds are not; orange lamplight is).
fn warmth(p: &[u8]) -> f32 {
    let (r, b) = (f32::from(p[0]) / 255.0, f32::from(p[2]) / 255.0);
    ((1.5 * r - 0.75 * b - 0.85) * 4.4).clamp(0.0, 1.0)
}

/// The lights mask (0 to 255) of an RGB picture `width`×`height` whose sky mask is `sky`: the
/// [`warmth`] of the patches that look like windows (over [`CORE`], between [`MIN_SHARE`] and
/// [`MAX_SHARE`] of the picture, filling [`FILL`] of their box, surroundings under [`AROUND`], not next to the
/// sky) and of the pixels just around them; zero elsewhere, on green pixels and in the sky.
pub fn lights_mask(rgb: &[u8], sky: &[u8], width: usize, height: usize) -> Vec<u8> {
    assert_eq!(rgb.len(), width * height * 3, "RGB picture size");
    assert_eq!(sky.len(), width * height, "sky mask size");
    let warm: Vec<f32> = rgb
        .chunks_exact(3)
        .zip(sky)
        .map(|(p, &s)| {
            if green_dominant(p) || s > 64 {
                0.0
            } else {
                warmth(p)
            }
        })
        .collect();
    let max_area = ((width * height) as f32 * MAX_SHARE).max(16.0) as usize;
    let min_area = ((width * height) as f32 * MIN_SHARE).max(3.0) as usize;
    let mut seen = vec![false; warm.len()];
    let mut lit = vec![0u8; warm.len()];
    for start in 0..warm.len() {
        if seen[start] || warm[start] < CORE {
            continue;
        }
        let patch = grow(&warm, &mut seen, start, width, height);
        let (x0, y0, x1, y1) = bounds(&patch, width);
        let box_area = (x1 - x0 + 1) * (y1 - y0 + 1);
        let window = (min_area..=max_area).contains(&patch.len())
            && patch.len() as f32 >= FILL * box_area as f32
            && around(&warm, (x0, y0, x1, y1), width, height, &patch) < AROUND
            && !touches_sky(sky, (x0, y0, x1, y1), width, height);
        if !window {
            continue;
        }
        // The patch and the softer warm pixels at its rim (its glow).
        for y in y0.saturating_sub(1)..(y1 + 2).min(height) {
            for x in x0.saturating_sub(1)..(x1 + 2).min(width) {
                let i = y * width + x;
                lit[i] = lit[i].max((warm[i] * 255.0).round() as u8);
            }
        }
    }
    lit
}

/// The 4-connected patch of pixels over [`CORE`] from `start`, marked in `seen`.
fn grow(warm: &[f32], seen: &mut [bool], start: usize, width: usize, height: usize) -> Vec<usize> {
    let mut patch = vec![start];
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(i) = queue.pop_front() {
        let (x, y) = (i % width, i / width);
        let next = [
            (x > 0).then(|| i - 1),
            (x + 1 < width).then(|| i + 1),
            (y > 0).then(|| i - width),
            (y + 1 < height).then(|| i + width),
        ];
        for n in next.into_iter().flatten() {
            if !seen[n] && warm[n] >= CORE {
                seen[n] = true;
                patch.push(n);
                queue.push_back(n);
            }
        }
    }
    patch
}

/// Bounding box `(x0, y0, x1, y1)` of pixel indices, inclusive.
fn bounds(patch: &[usize], width: usize) -> (usize, usize, usize, usize) {
    patch
        .iter()
        .fold((usize::MAX, usize::MAX, 0, 0), |(x0, y0, x1, y1), &i| {
            let (x, y) = (i % width, i / width);
            (x0.min(x), y0.min(y), x1.max(x), y1.max(y))
        })
}

/// Whether the box grown by two pixels reaches the sky: a warm patch there is the sunset's glow
/// on the horizon, not a window (a roof stands between windows and the sky).
fn touches_sky(
    sky: &[u8],
    (x0, y0, x1, y1): (usize, usize, usize, usize),
    width: usize,
    height: usize,
) -> bool {
    (y0.saturating_sub(2)..(y1 + 3).min(height))
        .any(|y| (x0.saturating_sub(2)..(x1 + 3).min(width)).any(|x| sky[y * width + x] > 128))
}

/// Mean warmth in the box grown by two pixels, the patch itself left out.
fn around(
    warm: &[f32],
    (x0, y0, x1, y1): (usize, usize, usize, usize),
    width: usize,
    height: usize,
    patch: &[usize],
) -> f32 {
    let (mut sum, mut n) = (0.0, 0usize);
    for y in y0.saturating_sub(2)..(y1 + 3).min(height) {
        for x in x0.saturating_sub(2)..(x1 + 3).min(width) {
            sum += warm[y * width + x];
            n += 1;
        }
    }
    let inside: f32 = patch.iter().map(|&i| warm[i]).sum();
    let rest = n - patch.len();
    if rest == 0 {
        return 1.0;
    }
    (sum - inside) / rest as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 80×60 picture: a dark wall with a warm window (columns and rows 4–9) whose cross
    /// bars are dimmer (at quarter size a bar blends into the panes); right of column 40, orange leaves (a warm pattern of bright and dim).
    fn scene() -> (Vec<u8>, usize, usize) {
        let (w, h) = (80, 60);
        let mut rgb = vec![0u8; w * h * 3];
        for y in 0..h {
            for x in 0..w {
                let p = if x < 40 {
                    if (4..10).contains(&x) && (4..10).contains(&y) {
                        if x == 7 || y == 7 {
                            [220, 170, 100]
                        } else {
                            [255, 200, 120]
                        }
                    } else {
                        [60, 55, 50]
                    }
                } else if (x * 7 + y * 3) % 5 < 2 {
                    [250, 160, 40]
                } else {
                    [190, 110, 40]
                };
                rgb[(y * w + x) * 3..][..3].copy_from_slice(&p);
            }
        }
        (rgb, w, h)
    }

    #[test]
    fn a_warm_window_on_a_wall_is_lit_and_warm_leaves_are_not() {
        let (rgb, w, h) = scene();
        let m = lights_mask(&rgb, &vec![0; w * h], w, h);
        assert!(m[5 * w + 5] > 200, "the window: {}", m[5 * w + 5]);
        assert!(m[7 * w + 7] > 0, "its cross bars glow with it");
        assert_eq!(m[20 * w + 2], 0, "the wall");
        assert!(
            m[..].chunks(w).all(|row| row[42..].iter().all(|&v| v == 0)),
            "the leaves"
        );
    }

    #[test]
    fn nothing_lights_in_the_sky_or_on_green() {
        let (rgb, w, h) = scene();
        assert!(
            lights_mask(&rgb, &vec![255; w * h], w, h)
                .iter()
                .all(|&v| v == 0)
        );
        let green = [200u8, 230, 60].repeat(16);
        assert!(lights_mask(&green, &[0; 16], 4, 4).iter().all(|&v| v == 0));
    }
}
