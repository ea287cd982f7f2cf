//! Per-pixel measures of the scene masks: luminance, greenness, local colour change.

/// Relative luminance (Rec. 601 weights) of an RGB pixel, 0 to 255.
pub(super) fn luma(p: &[u8]) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// Foliage and grass: green clearly above both red and blue (a cyan-white sky has green above
/// red too, but not above blue).
pub(super) fn green_dominant(p: &[u8]) -> bool {
    let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
    g > r + 10 && g > b + 10
}

/// Local colour change of every pixel: the largest central difference of any channel of the
/// picture after a 3×3 box blur (0 to 255; noise and JPEG blocks fall under a few levels).
pub(super) fn gradient(rgb: &[u8], width: usize, height: usize) -> Vec<f32> {
    let mut blurred = vec![0f32; rgb.len()];
    for c in 0..3 {
        let plane: Vec<f32> = rgb
            .iter()
            .skip(c)
            .step_by(3)
            .map(|&v| f32::from(v))
            .collect();
        let b = box_blur(&plane, width, height, 1);
        for (i, v) in b.into_iter().enumerate() {
            blurred[i * 3 + c] = v;
        }
    }
    let at = |x: usize, y: usize, c: usize| blurred[(y * width + x) * 3 + c];
    let mut out = vec![0f32; width * height];
    for y in 0..height {
        let (up, down) = (y.saturating_sub(1), (y + 1).min(height - 1));
        for x in 0..width {
            let (left, right) = (x.saturating_sub(1), (x + 1).min(width - 1));
            let mut g = 0f32;
            for c in 0..3 {
                g = g
                    .max((at(right, y, c) - at(left, y, c)).abs())
                    .max((at(x, down, c) - at(x, up, c)).abs());
            }
            out[y * width + x] = g;
        }
    }
    out
}

/// Mean over a (2r+1)² square, the edges repeated.
pub(super) fn box_blur(plane: &[f32], width: usize, height: usize, r: usize) -> Vec<f32> {
    let n = (2 * r + 1) as f32;
    let mut rows = vec![0f32; plane.len()];
    for y in 0..height {
        let row = &plane[y * width..(y + 1) * width];
        for x in 0..width {
            let sum: f32 = (0..=2 * r)
                .map(|k| row[(x + k).saturating_sub(r).min(width - 1)])
                .sum();
            rows[y * width + x] = sum / n;
        }
    }
    let mut out = vec![0f32; plane.len()];
    for y in 0..height {
        for x in 0..width {
            let sum: f32 = (0..=2 * r)
                .map(|k| rows[(y + k).saturating_sub(r).min(height - 1) * width + x])
                .sum();
            out[y * width + x] = sum / n;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_is_flat_on_flat_colour_and_high_on_an_edge() {
        let (w, h) = (6, 4);
        let mut rgb = vec![100u8; w * h * 3];
        assert!(gradient(&rgb, w, h).iter().all(|&g| g < 0.01));
        for y in 0..h {
            for x in 3..w {
                rgb[(y * w + x) * 3] = 250;
            }
        }
        let g = gradient(&rgb, w, h);
        assert!(g[w + 2] > 40.0 && g[w + 3] > 40.0, "{g:?}");
        assert!(g[w] < 0.01);
    }
}
