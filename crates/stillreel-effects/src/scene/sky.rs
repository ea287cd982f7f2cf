//! The sky of a photograph: found by position, smoothness and connection to the top edge, not
//! by colour alone. A blue test alone takes a hazy blue mountainside for sky and misses a white
//! overcast one; a sky is what is left of the picture's top edge when the fill stops at every
//! strong edge (a ridge line, a roof, a crown of leaves).

use std::collections::VecDeque;

use super::pixels::{box_blur, gradient, green_dominant, luma};

/// Largest local colour change (0–255, [`gradient`]) a sky pixel may have: a sky's own shading
/// and the soft edges of clouds stay under it, a ridge line against the sky or a roof edge at
/// this scale does not.
const SMOOTH: f32 = 14.0;

/// [`SMOOTH`] and [`STEP`] for white pixels (bright and neutral): the inside of a cloud is
/// textured, and the fill must cross a cloud to reach the sky beyond it. A ridge against a white
/// sky is still a far larger step.
const WHITE: (f32, i32) = (40.0, 28);

/// Largest step in any channel (0–255) from a sky pixel to the neighbour the fill takes next:
/// [`SMOOTH`] is measured over a blur, which a thin hard edge (a wire, a branch) can pass.
const STEP: i32 = 16;

/// Pixels the fill grows past its smoothness test, towards an edge ([`STEP`] still holds):
/// the reach of the blur and the central difference in [`gradient`].
const RIM: usize = 2;

/// Below this share of the height nothing is sky (a lake or a white road reached by a leak);
/// the mask fades to nothing between the two.
const FADE: (f32, f32) = (0.7, 0.9);

/// Whether a pixel may be sky by its colour: a blue sky (blue above red, not dark), a white or
/// grey overcast one (neutral and bright), a sunset or the sun (bright and warm); never green
/// foliage or grass, nor a dark pixel.
fn sky_coloured(p: &[u8]) -> bool {
    let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
    let l = luma(p);
    if green_dominant(p) {
        return false;
    }
    let spread = r.max(g).max(b) - r.min(g).min(b);
    (b >= r + 8 && l > 60.0) || (spread < 45 && l > 125.0) || (l > 150.0 && r >= b)
}

/// The sky mask (0 to 255) of an RGB picture `width`×`height`: sky-coloured pixels smoother than
/// [`SMOOTH`] reached from the top row by steps under [`STEP`], grown [`RIM`] pixels towards the
/// edges that stopped it; then what the sky encloses
/// (clouds, birds, the sun: what is not land) filled in, closed over two
/// pixels and grown by one all round (a silhouette's rim takes the sky's colour, not a light
/// line of the day's sky); faded out low in the picture ([`FADE`]) and softened over a pixel.
pub fn sky_mask(rgb: &[u8], width: usize, height: usize) -> Vec<u8> {
    assert_eq!(rgb.len(), width * height * 3, "RGB picture size");
    let grad = gradient(rgb, width, height);
    let px = |i: usize| &rgb[i * 3..i * 3 + 3];
    let white = |i: usize| {
        let p = px(i);
        luma(p) > 185.0 && p.iter().max().unwrap_or(&0) - p.iter().min().unwrap_or(&0) < 45
    };
    let open = |i: usize| {
        let smooth = if white(i) { WHITE.0 } else { SMOOTH };
        grad[i] < smooth && sky_coloured(px(i))
    };
    let step_ok = |a: usize, b: usize| {
        let step = if white(a) && white(b) { WHITE.1 } else { STEP };
        (0..3).all(|c| (i32::from(rgb[a * 3 + c]) - i32::from(rgb[b * 3 + c])).abs() < step)
    };
    let mut sky = vec![false; width * height];
    let mut queue: VecDeque<usize> = (0..width).filter(|&i| open(i)).collect();
    for &i in &queue {
        sky[i] = true;
    }
    while let Some(i) = queue.pop_front() {
        let (x, y) = (i % width, i / width);
        for n in neighbours(x, y, width, height) {
            if !sky[n] && open(n) && step_ok(i, n) {
                sky[n] = true;
                queue.push_back(n);
            }
        }
    }
    // The gradient is measured over a blur, so the fill stops a pixel or two short of an
    // edge: those pixels join when their colour is still the sky's next to them.
    for _ in 0..RIM {
        let grown: Vec<usize> = (0..sky.len())
            .filter(|&n| !sky[n] && sky_coloured(px(n)))
            .filter(|&n| {
                neighbours(n % width, n / width, width, height).any(|i| sky[i] && step_ok(i, n))
            })
            .collect();
        for n in grown {
            sky[n] = true;
        }
    }
    fill_enclosed(&mut sky, rgb, width, height);
    // Closed over two pixels: the steep rim of a cloud, between blue and white, is sky too.
    let sky = within(
        &within(&sky, width, height, 2, true),
        width,
        height,
        2,
        false,
    );
    // And one more pixel all round: the pixel that mixes sky and silhouette, left out, stays a
    // light line along every ridge once the rest is dusk.
    let sky = within(&sky, width, height, 1, true);
    let plane: Vec<f32> = sky
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let y = (i / width) as f32 / height as f32;
            let fade = ((FADE.1 - y) / (FADE.1 - FADE.0)).clamp(0.0, 1.0);
            if s { 255.0 * fade } else { 0.0 }
        })
        .collect();
    // Softened over a pixel: scaled up four times, a hard mask draws a ridge as stairs.
    box_blur(&plane, width, height, 1)
        .into_iter()
        .map(|v| v.round() as u8)
        .collect()
}

/// Dilation (`any`: some pixel within `r`, as a square, is set) or erosion (every one is).
fn within(mask: &[bool], width: usize, height: usize, r: usize, any: bool) -> Vec<bool> {
    let rows: Vec<bool> = (0..mask.len())
        .map(|i| {
            let (x, y) = (i % width, i / width);
            let mut span =
                (x.saturating_sub(r)..(x + r + 1).min(width)).map(|x| mask[y * width + x]);
            if any {
                span.any(|v| v)
            } else {
                span.all(|v| v)
            }
        })
        .collect();
    (0..mask.len())
        .map(|i| {
            let (x, y) = (i % width, i / width);
            let mut span =
                (y.saturating_sub(r)..(y + r + 1).min(height)).map(|y| rows[y * width + x]);
            if any {
                span.any(|v| v)
            } else {
                span.all(|v| v)
            }
        })
        .collect()
}

/// The 4-neighbours of `(x, y)` inside the picture.
fn neighbours(x: usize, y: usize, width: usize, height: usize) -> impl Iterator<Item = usize> {
    let i = y * width + x;
    [
        (x > 0).then(|| i - 1),
        (x + 1 < width).then(|| i + 1),
        (y > 0).then(|| i - width),
        (y + 1 < height).then(|| i + width),
    ]
    .into_iter()
    .flatten()
}

/// Marks as sky every non-sky part that is not land. Land reaches the bottom edge, or another
/// edge with a pixel that cannot be sky by its colour (a crown of leaves entering from the
/// side); what is left floats in the sky (a cloud, even one cut by the top edge, the sun, a
/// bird) or is the soft rim of a cloud.
fn fill_enclosed(sky: &mut [bool], rgb: &[u8], width: usize, height: usize) {
    let mut land = vec![false; sky.len()];
    let bottom = ((height - 1) * width..height * width).map(|i| (i, true));
    let others = (0..width)
        .chain((0..height).flat_map(|y| [y * width, y * width + width - 1]))
        .map(|i| (i, false));
    let mut queue: VecDeque<usize> = VecDeque::new();
    for (i, is_bottom) in bottom.chain(others) {
        if !sky[i] && !land[i] && (is_bottom || !sky_coloured(&rgb[i * 3..i * 3 + 3])) {
            land[i] = true;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        for n in neighbours(i % width, i / width, width, height) {
            if !sky[n] && !land[n] {
                land[n] = true;
                queue.push_back(n);
            }
        }
    }
    for (s, l) in sky.iter_mut().zip(land) {
        *s = !l;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture from a function of the pixel position.
    fn picture(width: usize, height: usize, f: impl Fn(usize, usize) -> [u8; 3]) -> Vec<u8> {
        (0..width * height)
            .flat_map(|i| f(i % width, i / width))
            .collect()
    }

    fn mean(mask: &[u8], width: usize, (x0, y0, x1, y1): (usize, usize, usize, usize)) -> f64 {
        let mut sum = 0.0;
        for y in y0..y1 {
            for x in x0..x1 {
                sum += f64::from(mask[y * width + x]);
            }
        }
        sum / ((x1 - x0) * (y1 - y0)) as f64
    }

    #[test]
    fn a_white_overcast_sky_is_sky_and_a_blue_mountain_under_its_ridge_is_not() {
        // White sky (a slight shading), a hazy blue mountain from row 12 (its ridge a clear
        // step), green grass from row 28.
        let (w, h) = (40, 40);
        let rgb = picture(w, h, |x, y| match y {
            _ if y < 12 => [228 - y as u8, 230 - y as u8, 234 - y as u8],
            _ if y < 28 => [120 + (x % 3) as u8, 135, 170],
            _ => [70, 140, 50],
        });
        let m = sky_mask(&rgb, w, h);
        assert!(mean(&m, w, (0, 0, w, 10)) > 250.0);
        assert!(mean(&m, w, (0, 14, w, 27)) < 1.0, "the mountain");
        assert!(mean(&m, w, (0, 29, w, h)) < 1.0, "the grass");
    }

    #[test]
    fn blue_below_a_textured_band_is_not_sky_but_a_cloud_in_the_sky_is() {
        // Blue sky with a white cloud (rows 3–6, columns 10–20), a band of foliage texture
        // (rows 15–20), blue again below it (a lake, a blue wall).
        let (w, h) = (40, 40);
        let rgb = picture(w, h, |x, y| match y {
            3..7 if (10..20).contains(&x) => [250, 250, 252],
            _ if y < 15 => [90, 140, 225],
            15..21 => {
                if (x + y) % 2 == 0 {
                    [30, 90, 30]
                } else {
                    [120, 170, 80]
                }
            }
            _ => [90, 140, 225],
        });
        let m = sky_mask(&rgb, w, h);
        assert!(mean(&m, w, (0, 0, w, 2)) > 250.0);
        assert!(mean(&m, w, (11, 4, 19, 6)) > 250.0, "the cloud");
        assert!(mean(&m, w, (0, 23, w, h)) < 1.0, "blue below the trees");
    }

    #[test]
    fn a_sunset_sky_is_sky_and_a_dark_picture_has_none() {
        let (w, h) = (30, 30);
        let sunset = picture(w, h, |_, y| {
            if y < 15 {
                [250, 170 + y as u8 * 3, 90 + y as u8 * 2]
            } else {
                [40, 35, 30]
            }
        });
        let m = sky_mask(&sunset, w, h);
        assert!(mean(&m, w, (0, 0, w, 13)) > 250.0);
        assert!(mean(&m, w, (0, 17, w, h)) < 1.0);
        let night = picture(w, h, |_, _| [20, 22, 40]);
        assert!(sky_mask(&night, w, h).iter().all(|&v| v == 0));
    }
}
