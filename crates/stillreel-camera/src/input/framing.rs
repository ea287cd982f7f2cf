//! How a photo fills its clip's frame (`image_inputs[].fit`, docs/API-DESIGN.md#framing), as
//! pure functions over small pixel buffers (three interleaved channels a pixel):
//! - [`resolve`] decides `auto` from the photo's and the frame's shapes;
//! - [`smart_position`] places the cover crop where the photo's content is: a saliency map
//!   (colour that stands out from the photo's mean, plus local detail) summed across the crop's
//!   fixed axis, the window of the frame's length with the most of it, a little pull to the
//!   middle so a photo without a subject stays centred;
//! - [`blur_fill`] and [`paste`] make `contain-blur`'s canvas: the whole photo over a blurred,
//!   dimmed cover of itself (what editly and the social apps do).
//!
//! Over 400 lines on purpose: the rule (`resolve`), its decision (`decide`) and the pixel work
//! that places and fills it are one contract that both canvases follow; the tests beside them
//! hold that contract as a whole.
//!
//! [`decide`] turns a `fit` into what the canvas holds; the in-process canvas (`canvas.rs`) and
//! the ffmpeg canvas a `clip::Decoder` makes both carry out its decision, so the two
//! agree on where the window sits.

use stillreel_core::Fit;

/// `auto` chooses `contain-blur` when covering the frame would keep less than this share of
/// the photo's width or height (a portrait photo in a landscape video keeps 37 %); else
/// `smart`.
pub const CONTAIN_BELOW: f64 = 0.6;
/// How far the background of `contain-blur` is dimmed (its brightness is multiplied by this).
pub const FILL_DIM: f64 = 0.5;
/// How much of its colour the background keeps (chroma multiplied by this).
pub const FILL_SATURATION: f64 = 0.7;
/// The smart window's pull to the middle: moving it from the middle to an end costs this share
/// of the saliency the window holds, so only a real subject moves it.
pub const CENTRE_PULL: f64 = 0.08;

/// How a clip's canvas is made from the photo, with `auto` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Scaled to cover the frame, the overflow cut evenly from both sides.
    Cover,
    /// Scaled to cover, the cut placed by [`smart_position`].
    Smart,
    /// The whole photo, centred over [`blur_fill`].
    ContainBlur,
}

/// The share of an upright `w` × `h` photo's width or height (whichever is cut) that covering
/// a `fw` × `fh` frame keeps.
pub fn cover_keeps(upright: (u32, u32), frame: (u32, u32)) -> f64 {
    let photo = f64::from(upright.0) / f64::from(upright.1.max(1));
    let canvas = f64::from(frame.0) / f64::from(frame.1.max(1));
    if photo > canvas {
        canvas / photo
    } else {
        photo / canvas
    }
}

/// The framing of `fit` for an upright `upright` photo in a `frame`: `auto` is `contain-blur`
/// when covering keeps less than [`CONTAIN_BELOW`] of the photo, else `smart`.
pub fn resolve(fit: Fit, upright: (u32, u32), frame: (u32, u32)) -> Framing {
    match fit {
        Fit::Cover => Framing::Cover,
        Fit::Smart => Framing::Smart,
        Fit::ContainBlur => Framing::ContainBlur,
        Fit::Auto if cover_keeps(upright, frame) < CONTAIN_BELOW => Framing::ContainBlur,
        Fit::Auto => Framing::Smart,
    }
}

/// The size, even in both axes and at least 2, of an upright `w` × `h` photo scaled to fit
/// inside a `fw` × `fh` frame (`contain-blur`'s foreground).
pub fn contain_size(upright: (u32, u32), frame: (u32, u32)) -> (u32, u32) {
    let (w, h) = (f64::from(upright.0.max(1)), f64::from(upright.1.max(1)));
    let scale = (f64::from(frame.0) / w).min(f64::from(frame.1) / h);
    let even = |v: f64, max: u32| (((v / 2.0).round() as u32) * 2).clamp(2, max);
    (even(w * scale, frame.0), even(h * scale, frame.1))
}

/// Where the cover window sits along the axis the crop cuts: 0 at the start (left or top), 1 at
/// the end, 0.5 in the middle. `thumb` is the upright photo small (`tw` × `th`, three channels,
/// YCbCr when `ycbcr`, else RGB); `window` is the share of the cut axis the frame keeps;
/// `horizontal` says the cut axis is the width.
pub fn smart_position(
    thumb: &[u8],
    tw: usize,
    th: usize,
    ycbcr: bool,
    window: f64,
    horizontal: bool,
) -> f64 {
    if tw < 3 || th < 3 || thumb.len() < tw * th * 3 || window >= 1.0 {
        return 0.5;
    }
    let saliency = saliency(thumb, tw, th, ycbcr);
    // The saliency summed across the fixed axis: one value per step along the cut axis.
    let (n, profile): (usize, Vec<f64>) = if horizontal {
        let mut p = vec![0.0; tw];
        for y in 0..th {
            for (x, v) in p.iter_mut().enumerate() {
                *v += saliency[y * tw + x];
            }
        }
        (tw, p)
    } else {
        (
            th,
            (0..th)
                .map(|y| saliency[y * tw..(y + 1) * tw].iter().sum())
                .collect(),
        )
    };
    let len = ((window * n as f64).round() as usize).clamp(1, n);
    let slack = n - len;
    if slack == 0 {
        return 0.5;
    }
    let mut prefix = vec![0.0; n + 1];
    for (i, v) in profile.iter().enumerate() {
        prefix[i + 1] = prefix[i] + v;
    }
    let total_in = |o: usize| prefix[o + len] - prefix[o];
    let mean_window = prefix[n] * len as f64 / n as f64;
    let middle = slack as f64 / 2.0;
    let score = |o: usize| {
        let off_centre = (o as f64 - middle).abs() / middle.max(1.0);
        total_in(o) - CENTRE_PULL * mean_window * off_centre
    };
    let best = (0..=slack)
        .max_by(|&a, &b| {
            score(a)
                .total_cmp(&score(b))
                // Ties go to the window nearer the middle.
                .then_with(|| {
                    (b as f64 - middle)
                        .abs()
                        .total_cmp(&(a as f64 - middle).abs())
                })
        })
        .unwrap_or(slack / 2);
    best as f64 / slack as f64
}

/// Per pixel: how far its (lightly blurred) colour is from the photo's mean colour, luma
/// counted at a quarter so bright skies and white walls do not win by brightness alone, plus
/// its local detail (luma gradient, blurred). Colour finds a subject that stands out (a brown
/// dog on grey boards, a red chair); detail finds one that is busier than its surroundings.
fn saliency(px: &[u8], w: usize, h: usize, ycbcr: bool) -> Vec<f64> {
    let ycc: Vec<[f64; 3]> = px
        .chunks_exact(3)
        .take(w * h)
        .map(|p| {
            let (a, b, c) = (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
            if ycbcr {
                [a, b - 128.0, c - 128.0]
            } else {
                [
                    0.299 * a + 0.587 * b + 0.114 * c,
                    -0.1687 * a - 0.3313 * b + 0.5 * c,
                    0.5 * a - 0.4187 * b - 0.0813 * c,
                ]
            }
        })
        .collect();
    let [ly, lb, lr]: [Vec<f64>; 3] = std::array::from_fn(|k| {
        let mut channel: Vec<f64> = ycc.iter().map(|p| p[k]).collect();
        box_blur_f64(&mut channel, w, h, 1);
        channel
    });
    let blurred: Vec<[f64; 3]> = (0..w * h).map(|i| [ly[i], lb[i], lr[i]]).collect();
    let count = (w * h) as f64;
    let mean = blurred.iter().fold([0.0; 3], |m, p| {
        [
            m[0] + p[0] / count,
            m[1] + p[1] / count,
            m[2] + p[2] / count,
        ]
    });
    let mut detail = vec![0.0; w * h];
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let l = |x: usize, y: usize| ycc[y * w + x][0];
            let gx = l(x + 1, y) - l(x - 1, y);
            let gy = l(x, y + 1) - l(x, y - 1);
            detail[y * w + x] = (gx * gx + gy * gy).sqrt();
        }
    }
    box_blur_f64(&mut detail, w, h, 2);
    blurred
        .iter()
        .zip(detail)
        .map(|(p, d)| {
            let (dy, db, dr) = (p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]);
            (0.25 * dy * dy + db * db + dr * dr).sqrt() + d
        })
        .collect()
}

/// A box blur of `radius` over a `w` × `h` plane, rows then columns (edges clamped).
fn box_blur_f64(plane: &mut [f64], w: usize, h: usize, radius: usize) {
    if radius == 0 {
        return;
    }
    let mut line = Vec::new();
    let mut run = |get: &dyn Fn(usize) -> usize, len: usize, plane: &mut [f64]| {
        line.clear();
        line.extend((0..len).map(|i| plane[get(i)]));
        for i in 0..len {
            let lo = i.saturating_sub(radius);
            let hi = (i + radius).min(len - 1);
            let sum: f64 = line[lo..=hi].iter().sum();
            plane[get(i)] = sum / (hi - lo + 1) as f64;
        }
    };
    for y in 0..h {
        run(&|x| y * w + x, w, plane);
    }
    for x in 0..w {
        run(&|y| y * w + x, h, plane);
    }
}

/// `contain-blur`'s background, in place on a small `w` × `h` cover of the photo (three
/// channels, YCbCr when `ycbcr`): blurred by three box passes of `radius` (close to a
/// Gaussian), dimmed by [`FILL_DIM`] and its colour kept at [`FILL_SATURATION`]. The caller
/// scales it up to the frame, which softens it further.
pub fn blur_fill(px: &mut [u8], w: usize, h: usize, ycbcr: bool, radius: usize) {
    for k in 0..3 {
        let mut channel: Vec<f64> = px.chunks_exact(3).map(|p| f64::from(p[k])).collect();
        for _ in 0..3 {
            box_blur_f64(&mut channel, w, h, radius);
        }
        for (p, v) in px.chunks_exact_mut(3).zip(channel) {
            p[k] = v.round().clamp(0.0, 255.0) as u8;
        }
    }
    for p in px.chunks_exact_mut(3) {
        if ycbcr {
            p[0] = (f64::from(p[0]) * FILL_DIM).round() as u8;
            // Chroma scales with the dimmed light as well as the desaturation, as in RGB.
            for c in &mut p[1..] {
                let v = 128.0 + (f64::from(*c) - 128.0) * FILL_SATURATION * FILL_DIM;
                *c = v.round() as u8;
            }
        } else {
            let grey = 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
            for c in p.iter_mut() {
                let v = grey + (f64::from(*c) - grey) * FILL_SATURATION;
                *c = (v * FILL_DIM).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
}

/// Copies the `fw` × `fh` picture `fg` into the `w`-wide canvas `canvas` (three channels a
/// pixel) at `(left, top)`.
pub fn paste(
    canvas: &mut [u8],
    w: usize,
    fg: &[u8],
    fw: usize,
    fh: usize,
    left: usize,
    top: usize,
) {
    for y in 0..fh {
        let at = ((top + y) * w + left) * 3;
        canvas[at..at + fw * 3].copy_from_slice(&fg[y * fw * 3..(y + 1) * fw * 3]);
    }
}

/// The part of an upright `w` × `h` picture that covers a `fw` × `fh` frame, in the picture's
/// pixels: ffmpeg's `scale=fw:fh:force_original_aspect_ratio=increase` scales it to integer
/// sizes (each the nearest to the other side's exact scale, never below the frame), then
/// `crop=fw:fh` keeps the middle, its offsets rounded to the nearest integer (halves to even)
/// and then down to even (yuv420p's chroma). The
/// crop in scaled pixels is mapped back through each axis's own scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoverBox {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl CoverBox {
    /// This box moved to `position` (0 start, 1 end) of the room an upright `w` × `h` picture
    /// leaves it on each axis (none on the axis it does not cut).
    pub fn cut_at(self, position: f64, (w, h): (u32, u32)) -> Self {
        CoverBox {
            left: position * (f64::from(w) - self.width),
            top: position * (f64::from(h) - self.height),
            ..self
        }
    }

    /// The whole of an upright `w` × `h` picture.
    pub fn whole(w: u32, h: u32) -> Self {
        CoverBox {
            left: 0.0,
            top: 0.0,
            width: f64::from(w),
            height: f64::from(h),
        }
    }
}

pub fn cover_box(w: u32, h: u32, fw: u32, fh: u32) -> CoverBox {
    let (w64, h64, fw64, fh64) = (u64::from(w), u64::from(h), u64::from(fw), u64::from(fh));
    // av_rescale(a, b, c): a·b/c rounded to nearest, halves away from zero.
    let rescale = |a: u64, b: u64, c: u64| (a * b + c / 2) / c;
    let scaled_w = rescale(fh64, w64, h64).max(fw64);
    let scaled_h = rescale(fw64, h64, w64).max(fh64);
    // crop evaluates `(in - out)/2` as a double and rounds it with lrint (halves to even).
    let offset =
        |scaled: u64, frame: u64| ((scaled - frame) as f64 / 2.0).round_ties_even() as u64 & !1;
    let (x, y) = (offset(scaled_w, fw64), offset(scaled_h, fh64));
    let (sx, sy) = (w as f64 / scaled_w as f64, h as f64 / scaled_h as f64);
    CoverBox {
        left: x as f64 * sx,
        top: y as f64 * sy,
        width: fw as f64 * sx,
        height: fh as f64 * sy,
    }
}

/// The long side of the thumbnail `smart` reads its saliency from.
pub const THUMB_LONG_SIDE: u32 = 128;

/// The upright thumbnail's size: the long side [`THUMB_LONG_SIDE`] (or the photo's, if smaller).
pub fn thumbnail_size(upright: (u32, u32)) -> (u32, u32) {
    let long = upright.0.max(upright.1).max(1);
    let scale = (f64::from(THUMB_LONG_SIDE) / f64::from(long)).min(1.0);
    let side = |v: u32| ((f64::from(v) * scale).round() as u32).max(3);
    (side(upright.0), side(upright.1))
}

/// Where [`smart_position`] cuts the cover box `cover` of an upright `ow` × `oh` photo, from
/// the content of `thumb` (`tw` × `th`): 0 to 1 along the axis the box cuts, or `None` when the
/// box cuts nothing.
pub fn smart_cut(
    cover: CoverBox,
    (ow, oh): (u32, u32),
    thumb: &[u8],
    (tw, th): (u32, u32),
    ycbcr: bool,
) -> Option<f64> {
    let horizontal = cover.width < f64::from(ow) - 0.5;
    let vertical = cover.height < f64::from(oh) - 0.5;
    if !horizontal && !vertical {
        return None;
    }
    let window = if horizontal {
        cover.width / f64::from(ow)
    } else {
        cover.height / f64::from(oh)
    };
    Some(smart_position(
        thumb,
        tw as usize,
        th as usize,
        ycbcr,
        window,
        horizontal,
    ))
}

/// A small upright copy of the photo that `smart` reads its content from: `size` pixels, three
/// channels a pixel, YCbCr when `ycbcr` (a JPEG's own colours), else RGB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thumb {
    pub pixels: Vec<u8>,
    pub size: (u32, u32),
    pub ycbcr: bool,
}

/// How one photo fills one frame, decided: what both ways of making a canvas (in process and
/// the renderer's ffmpeg run) carry out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Covered: `cut` is the part of the upright photo shown; `position` where it sits along
    /// the axis it cuts (0 start, 1 end), `None` for the centred crop.
    Cover {
        cut: CoverBox,
        position: Option<f64>,
    },
    /// Contained over its blurred fill: the photo's `size` on the canvas and its top-left
    /// corner `at` (even, centred).
    Contain { size: (u32, u32), at: (u32, u32) },
}

impl Decision {
    /// Where the photo (upright `shape`) lies on the `frame` this decision fills.
    pub fn placement(&self, shape: (u32, u32), frame: (u32, u32)) -> Placement {
        match *self {
            Decision::Cover { cut, .. } => Placement::cover(cut, shape, frame),
            Decision::Contain { size, at } => Placement {
                photo: [0.0, 0.0, 1.0, 1.0],
                canvas: [
                    f64::from(at.0),
                    f64::from(at.1),
                    f64::from(size.0),
                    f64::from(size.1),
                ],
            },
        }
    }
}

/// The framing of `fit` for an upright photo shaped `shape` in a `frame`: [`resolve`]d, then
/// placed (the cover crop where [`smart_cut`] finds the content of the thumbnail `thumb`
/// makes, asked for only when `smart` needs it; the contained photo centred).
pub fn decide<E>(
    fit: Fit,
    shape: (u32, u32),
    frame: (u32, u32),
    thumb: impl FnOnce() -> Result<Thumb, E>,
) -> Result<Decision, E> {
    let cover = cover_box(shape.0, shape.1, frame.0, frame.1);
    Ok(match resolve(fit, shape, frame) {
        Framing::Cover => Decision::Cover {
            cut: cover,
            position: None,
        },
        Framing::Smart => {
            let thumb = thumb()?;
            match smart_cut(cover, shape, &thumb.pixels, thumb.size, thumb.ycbcr) {
                Some(position) => Decision::Cover {
                    cut: cover.cut_at(position, shape),
                    position: Some(position),
                },
                None => Decision::Cover {
                    cut: cover,
                    position: None,
                },
            }
        }
        Framing::ContainBlur => {
            let (fw, fh) = contain_size(shape, frame);
            let at = (((frame.0 - fw) / 2) & !1, ((frame.1 - fh) / 2) & !1);
            Decision::Contain { size: (fw, fh), at }
        }
    })
}

/// Where the photo lies on a canvas: the part of the upright photo shown (`photo`: left, top,
/// width, height as fractions of the photo) and the canvas rectangle it fills (`canvas`, in
/// canvas pixels). A cover fills the whole canvas; a contained photo fills its middle, the
/// blurred fill around it. The depth map is laid on the canvas the same way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub photo: [f64; 4],
    pub canvas: [f64; 4],
}

impl Placement {
    /// The placement of the cover box `cover` of an upright `ow` × `oh` photo on a `frame`.
    pub fn cover(cover: CoverBox, (ow, oh): (u32, u32), frame: (u32, u32)) -> Self {
        let (ow, oh) = (f64::from(ow.max(1)), f64::from(oh.max(1)));
        Placement {
            photo: [
                cover.left / ow,
                cover.top / oh,
                cover.width / ow,
                cover.height / oh,
            ],
            canvas: [0.0, 0.0, f64::from(frame.0), f64::from(frame.1)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_contains_what_covering_would_cut_hard_and_places_the_rest() {
        let landscape = (1280, 720);
        // A 2:3 portrait photo in 16:9 keeps 37.5 % of its height when covered.
        assert!((cover_keeps((2000, 3000), landscape) - 0.375).abs() < 1e-9);
        assert_eq!(
            resolve(Fit::Auto, (2000, 3000), landscape),
            Framing::ContainBlur
        );
        assert_eq!(
            resolve(Fit::Auto, (3000, 2000), (720, 1280)),
            Framing::ContainBlur
        );
        // 4:3 in 16:9 keeps 75 %: smart.
        assert_eq!(resolve(Fit::Auto, (4000, 3000), landscape), Framing::Smart);
        assert_eq!(resolve(Fit::Auto, (3000, 2000), landscape), Framing::Smart);
        assert_eq!(resolve(Fit::Cover, (2000, 3000), landscape), Framing::Cover);
        assert_eq!(resolve(Fit::Smart, (2000, 3000), landscape), Framing::Smart);
        assert_eq!(
            resolve(Fit::ContainBlur, (4000, 3000), landscape),
            Framing::ContainBlur
        );
    }

    #[test]
    fn the_contained_photo_fits_the_frame_in_even_sizes() {
        assert_eq!(contain_size((2000, 3000), (1280, 720)), (480, 720));
        assert_eq!(contain_size((3000, 2000), (720, 1280)), (720, 480));
        assert_eq!(contain_size((1281, 721), (1280, 720)), (1280, 720));
    }

    /// A flat grey `w` × `h` RGB picture with a textured red square of side `s` at `(x, y)`.
    fn grey_with_subject(w: usize, h: usize, x: usize, y: usize, s: usize) -> Vec<u8> {
        let mut px = vec![120u8; w * h * 3];
        for yy in y..y + s {
            for xx in x..x + s {
                let at = (yy * w + xx) * 3;
                let stripe = if (xx + yy) % 4 < 2 { 40 } else { 0 };
                px[at..at + 3].copy_from_slice(&[200 - stripe, 40, 40]);
            }
        }
        px
    }

    #[test]
    fn the_window_goes_where_the_subject_is_even_at_an_edge() {
        // A portrait thumbnail, the subject at the very top: the landscape window (37.5 % of
        // the height) moves all the way up.
        let (w, h) = (64, 96);
        let top = grey_with_subject(w, h, 20, 0, 14);
        assert_eq!(smart_position(&top, w, h, false, 0.375, false), 0.0);
        let bottom = grey_with_subject(w, h, 20, h - 14, 14);
        assert_eq!(smart_position(&bottom, w, h, false, 0.375, false), 1.0);
        // Sideways too: a wide thumbnail, the subject at the right.
        let (w, h) = (128, 48);
        let right = grey_with_subject(w, h, 110, 20, 14);
        assert!(smart_position(&right, w, h, false, 0.5, true) > 0.95);
    }

    #[test]
    fn a_photo_without_a_subject_stays_centred() {
        let (w, h) = (64, 96);
        let flat = vec![90u8; w * h * 3];
        assert_eq!(smart_position(&flat, w, h, false, 0.375, false), 0.5);
        // Evenly textured all over: still the middle.
        let even: Vec<u8> = (0..w * h * 3).map(|i| ((i / 3) % 7 * 20) as u8).collect();
        let p = smart_position(&even, w, h, false, 0.375, false);
        assert!((p - 0.5).abs() < 0.1, "{p}");
    }

    #[test]
    fn the_fill_is_blurred_and_dimmed() {
        let (w, h) = (16, 8);
        let mut px: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                if i % 2 == 0 {
                    [255, 255, 255]
                } else {
                    [0, 0, 0]
                }
            })
            .collect();
        blur_fill(&mut px, w, h, false, 2);
        // Stripes of white and black blur to mid grey, then dim to about a quarter.
        let mean = px.iter().map(|&v| f64::from(v)).sum::<f64>() / px.len() as f64;
        assert!((mean - 127.5 * FILL_DIM).abs() < 8.0, "{mean}");
        assert!(px.iter().all(|&v| v < 100), "no stripe survives the blur");
    }
}
