//! Depth maps: untrusted input, checked, then prepared for the camera.
//!
//! A depth map is a grey PNG of the upright photo (8 or 16 bit, any size of the photo's aspect
//! ratio), brighter is nearer by default ([`DepthPolarity`]). [`DepthMap::from_png`] refuses
//! anything else with a [`DepthError`]: another format, a colourised map (a palette or RGB whose
//! channels differ: a false-colour rendering is not a depth); [`DepthMap::check_aspect`] a map
//! of another aspect ratio than the photo's, and [`verdict::check`] a map that is flat, garbled
//! (noise) or inverted. The render crate then draws the clip with the flat camera and says why
//! on the clip's record: an unusable map never fails a video.
//!
//! [`DepthField::prepare`] makes what the camera reads: the map cover-cropped exactly like the
//! photo, stretched to its visible range, *smoothed under the photo's edges* ([`edges`], when
//! the photo is given: a surface of the photo gets one smooth depth and a depth step follows
//! the photo's own outline, so a straight edge in one depth region stays straight), nearness in
//! 0..=255, *dilated* (near parts widened by [`DILATE`] of the frame) so a near object keeps its
//! silhouette when it moves over what is behind it, and *blurred* ([`BLUR`]) so the
//! displacement changes smoothly: at a depth edge the background is stretched or squeezed over
//! the blur's width instead of tearing (no holes) or repeating one column (no streaks). It is
//! kept at half the frame's resolution (a blurred field needs no more).

pub mod edges;
pub mod verdict;

use crate::input::framing::Placement;
use std::io::Cursor;

/// Which end of the grey scale is near.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DepthPolarity {
    /// Brighter is nearer (relative inverse depth, as Depth Anything's maps).
    #[default]
    BrighterIsNearer,
    /// Darker is nearer (a metric or distance map).
    DarkerIsNearer,
}

/// A clip's depth map as the clip step receives it: a stored PNG beside the photo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthInput {
    /// Storage key of the PNG.
    pub key: String,
    pub polarity: DepthPolarity,
}

/// Largest depth map accepted (pixels), like the photos' limit.
pub const MAX_DEPTH_PIXELS: u64 = 50_000_000;
/// How far the map's aspect ratio may differ from the photo's (relative).
pub const ASPECT_TOLERANCE: f64 = 0.02;
/// Near parts are widened by this fraction of the frame's width before blurring.
pub const DILATE: f64 = 0.012;
/// Box-blur radius (three passes, about a Gaussian) as a fraction of the frame's width.
pub const BLUR: f64 = 0.012;
/// How far the depth is averaged under the photo's edges ([`edges::smooth_under`]), as a
/// fraction of the frame's width: wide enough to even out a depth model's blotches inside a
/// surface.
pub const SMOOTH_REACH: f64 = 0.25;
/// How a luminance step between neighbours (0..1) counts against that averaging: its part over
/// [`edges::TEXTURE`], divided by this, in reaches; an outline of 13 % is as far as a whole
/// [`SMOOTH_REACH`] of plain photo and keeps a depth step on it.
pub const EDGE_CONTRAST: f32 = 0.1;

/// Why a depth map cannot be used. The clip is drawn with the flat camera and its record
/// carries this message as a note.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DepthError {
    #[error("the depth map is not a PNG image ({0})")]
    NotPng(String),
    #[error("the depth map is {width}x{height}, over the {MAX_DEPTH_PIXELS}-pixel limit")]
    TooLarge { width: u32, height: u32 },
    #[error("the depth map is colourised (its red, green and blue differ); a grey map is needed")]
    Colourised,
    #[error(
        "the depth map's aspect ratio ({map_w}x{map_h}) does not match the photo's \
         ({photo_w}x{photo_h})"
    )]
    WrongAspect {
        map_w: u32,
        map_h: u32,
        photo_w: u32,
        photo_h: u32,
    },
    /// Flat, garbled or inverted ([`verdict::check`]).
    #[error(transparent)]
    Unusable(#[from] verdict::Unusable),
}

/// A decoded grey depth map, values 0..=65535 (8-bit maps scaled up), as the file says them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthMap {
    pub width: u32,
    pub height: u32,
    pub values: Vec<u16>,
}

impl DepthMap {
    /// Decodes and checks a PNG depth map: grey, grey+alpha, or RGB(A)/palette whose three
    /// channels are equal (within 2 of 255, what a grey map saved through a colour pipeline
    /// keeps); 8 or 16 bit (lower depths are widened to 8).
    pub fn from_png(bytes: &[u8]) -> Result<Self, DepthError> {
        let bad = |e: png::DecodingError| DepthError::NotPng(e.to_string());
        let mut decoder = png::Decoder::new(Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND);
        let header = decoder.read_header_info().map_err(bad)?;
        let (width, height) = (header.width, header.height);
        if u64::from(width) * u64::from(height) > MAX_DEPTH_PIXELS {
            return Err(DepthError::TooLarge { width, height });
        }
        let mut reader = decoder.read_info().map_err(bad)?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| DepthError::NotPng("image too large to decode".to_owned()))?;
        let mut buf = vec![0u8; size];
        let info = reader.next_frame(&mut buf).map_err(bad)?;
        let channels = info.color_type.samples();
        let wide = info.bit_depth == png::BitDepth::Sixteen;
        let sample = |row: &[u8], i: usize| -> u16 {
            if wide {
                u16::from_be_bytes([row[2 * i], row[2 * i + 1]])
            } else {
                u16::from(row[i]) * 257
            }
        };
        let tolerance = 2 * 257;
        let mut values = Vec::with_capacity(width as usize * height as usize);
        for row in buf.chunks_exact(info.line_size).take(height as usize) {
            for x in 0..width as usize {
                let first = sample(row, x * channels);
                if channels >= 3 {
                    let g = sample(row, x * channels + 1);
                    let b = sample(row, x * channels + 2);
                    if first.abs_diff(g) > tolerance || first.abs_diff(b) > tolerance {
                        return Err(DepthError::Colourised);
                    }
                }
                values.push(first);
            }
        }
        Ok(DepthMap {
            width,
            height,
            values,
        })
    }

    /// The map with brighter meaning nearer (values flipped for [`DepthPolarity::DarkerIsNearer`]).
    #[must_use]
    pub fn with_polarity(mut self, polarity: DepthPolarity) -> Self {
        if polarity == DepthPolarity::DarkerIsNearer {
            for v in &mut self.values {
                *v = u16::MAX - *v;
            }
        }
        self
    }

    /// Refuses a flat, garbled or inverted map ([`verdict::check`]); call it on the map with
    /// brighter meaning nearer ([`DepthMap::with_polarity`]).
    pub fn check_usable(&self) -> Result<(), DepthError> {
        Ok(verdict::check(self.width, self.height, &self.values)?)
    }

    /// Refuses a map whose aspect ratio is not the upright photo's.
    pub fn check_aspect(&self, photo: (u32, u32)) -> Result<(), DepthError> {
        let map = f64::from(self.width) / f64::from(self.height.max(1));
        let pic = f64::from(photo.0) / f64::from(photo.1.max(1));
        if (map / pic - 1.0).abs() > ASPECT_TOLERANCE {
            return Err(DepthError::WrongAspect {
                map_w: self.width,
                map_h: self.height,
                photo_w: photo.0,
                photo_h: photo.1,
            });
        }
        Ok(())
    }
}

/// What the camera reads: nearness 0 (far) ..= 255 (near) at half the frame's resolution,
/// dilated and blurred (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthField {
    /// Half the frame's width and height.
    pub width: usize,
    pub height: usize,
    pub near: Vec<u8>,
}

impl DepthField {
    /// Prepares `map` (brighter is nearer, see [`DepthMap::with_polarity`]) for a `frame`
    /// (W×H): cover-cropped like the photo, stretched so its 1st and 99th percentiles are far
    /// and near, smoothed under the `guide`'s edges (the photo's canvas at half resolution,
    /// [`edges::Guide`]; a guide of another size is not used), dilated and blurred.
    pub fn prepare(map: &DepthMap, frame: (u32, u32), guide: Option<&edges::Guide>) -> Self {
        Self::prepare_placed(map, frame, guide, None)
    }

    /// [`DepthField::prepare`] for a photo laid on the canvas by `placement` (a smart cover, a
    /// contained photo: `stillreel_camera::input::framing`); `None` is the centred cover. Canvas
    /// outside the photo (a contained photo's blurred fill) is far.
    pub fn prepare_placed(
        map: &DepthMap,
        frame: (u32, u32),
        guide: Option<&edges::Guide>,
        placement: Option<&Placement>,
    ) -> Self {
        let (w, h) = ((frame.0 / 2).max(1) as usize, (frame.1 / 2).max(1) as usize);
        let cover = match placement {
            None => cover_sample(map, w, h),
            Some(placed) => placed_sample(map, w, h, placed),
        };
        let (lo, hi) = percentiles(&cover);
        let span = (hi - lo).max(1e-6);
        let flat = hi - lo < 1.0 / 256.0;
        let stretched: Vec<f32> = cover
            .iter()
            .map(|&v| {
                if flat {
                    return 0.5;
                }
                ((v - lo) / span).clamp(0.0, 1.0) as f32
            })
            .collect();
        let stretched = match guide {
            Some(g) if (g.width, g.height) == (w, h) && !flat => {
                let reach = (SMOOTH_REACH * w as f64) as f32;
                edges::smooth_under(&stretched, g, reach, EDGE_CONTRAST)
            }
            _ => stretched,
        };
        let mut near: Vec<u8> = stretched
            .iter()
            .map(|&t| (t * 255.0).round() as u8)
            .collect();
        let dilate = (DILATE * w as f64).round() as usize;
        let blur = (BLUR * w as f64).round() as usize;
        max_filter(&mut near, w, h, dilate);
        for _ in 0..3 {
            box_blur(&mut near, w, h, blur);
        }
        DepthField {
            width: w,
            height: h,
            near,
        }
    }

    /// Nearness at canvas point `(u, v)` (full-resolution pixels), nearest sample.
    #[inline]
    pub fn at(&self, u: f64, v: f64) -> u8 {
        let x = ((u * 0.5) as usize).min(self.width - 1);
        let y = ((v * 0.5) as usize).min(self.height - 1);
        self.near[y * self.width + x]
    }
}

/// The map resampled (bilinear, 0..1) onto a `w`×`h` grid as a cover crop: scaled to cover it,
/// centred, the overflow cut, exactly as the photo's `scale=...:increase,crop`.
fn cover_sample(map: &DepthMap, w: usize, h: usize) -> Vec<f64> {
    let (mw, mh) = (map.width as usize, map.height as usize);
    let scale = (w as f64 / mw as f64).max(h as f64 / mh as f64);
    let (ox, oy) = (
        (mw as f64 * scale - w as f64) / 2.0,
        (mh as f64 * scale - h as f64) / 2.0,
    );
    let get = |x: usize, y: usize| f64::from(map.values[y * mw + x]) / 65535.0;
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let sy = ((y as f64 + 0.5 + oy) / scale - 0.5).clamp(0.0, (mh - 1) as f64);
        let (y0, fy) = (sy.floor() as usize, sy.fract());
        let y1 = (y0 + 1).min(mh - 1);
        for x in 0..w {
            let sx = ((x as f64 + 0.5 + ox) / scale - 0.5).clamp(0.0, (mw - 1) as f64);
            let (x0, fx) = (sx.floor() as usize, sx.fract());
            let x1 = (x0 + 1).min(mw - 1);
            let top = get(x0, y0) * (1.0 - fx) + get(x1, y0) * fx;
            let bottom = get(x0, y1) * (1.0 - fx) + get(x1, y1) * fx;
            out.push(top * (1.0 - fy) + bottom * fy);
        }
    }
    out
}

/// The map resampled (bilinear, 0..1) onto a `w`×`h` grid (half the canvas) as `placed` lays
/// the photo on the canvas; 0 (far) where the canvas shows no photo.
fn placed_sample(map: &DepthMap, w: usize, h: usize, placed: &Placement) -> Vec<f64> {
    let (mw, mh) = (map.width as usize, map.height as usize);
    let [px, py, pw, ph] = placed.photo;
    let [cx, cy, cw, ch] = placed.canvas;
    let get = |x: usize, y: usize| f64::from(map.values[y * mw + x]) / 65535.0;
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        // The grid cell's centre in canvas pixels, then in the photo (0..1), then in the map.
        let v = ((y as f64 + 0.5) * 2.0 - cy) / ch.max(1e-9);
        for x in 0..w {
            let u = ((x as f64 + 0.5) * 2.0 - cx) / cw.max(1e-9);
            if !(0.0..=1.0).contains(&u) || !(0.0..=1.0).contains(&v) {
                out.push(0.0);
                continue;
            }
            let sx = ((px + u * pw) * mw as f64 - 0.5).clamp(0.0, (mw - 1) as f64);
            let sy = ((py + v * ph) * mh as f64 - 0.5).clamp(0.0, (mh - 1) as f64);
            let (x0, fx, y0, fy) = (
                sx.floor() as usize,
                sx.fract(),
                sy.floor() as usize,
                sy.fract(),
            );
            let (x1, y1) = ((x0 + 1).min(mw - 1), (y0 + 1).min(mh - 1));
            let top = get(x0, y0) * (1.0 - fx) + get(x1, y0) * fx;
            let bottom = get(x0, y1) * (1.0 - fx) + get(x1, y1) * fx;
            out.push(top * (1.0 - fy) + bottom * fy);
        }
    }
    out
}

/// The 1st and 99th percentiles (robust ends of the visible depth range).
fn percentiles(values: &[f64]) -> (f64, f64) {
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    (at(0.01), at(0.99))
}

/// Separable maximum over a (2r+1)² square: near parts grow by `r`.
fn max_filter(field: &mut [u8], w: usize, h: usize, r: usize) {
    if r == 0 {
        return;
    }
    let mut line = Vec::new();
    for y in 0..h {
        line.clear();
        line.extend_from_slice(&field[y * w..(y + 1) * w]);
        for x in 0..w {
            let (a, b) = (x.saturating_sub(r), (x + r).min(w - 1));
            field[y * w + x] = line[a..=b].iter().copied().max().unwrap_or(0);
        }
    }
    for x in 0..w {
        line.clear();
        line.extend((0..h).map(|y| field[y * w + x]));
        for y in 0..h {
            let (a, b) = (y.saturating_sub(r), (y + r).min(h - 1));
            field[y * w + x] = line[a..=b].iter().copied().max().unwrap_or(0);
        }
    }
}

/// Separable box blur of radius `r` (edges repeated), by running sums.
fn box_blur(field: &mut [u8], w: usize, h: usize, r: usize) {
    if r == 0 {
        return;
    }
    let mut line: Vec<u32> = Vec::new();
    let pass = |line: &[u32], out: &mut dyn FnMut(usize, u8)| {
        let n = line.len();
        let at = |i: isize| line[i.clamp(0, n as isize - 1) as usize];
        let ri = r as isize;
        let mut sum: u32 = (-ri..=ri).map(at).sum();
        let div = 2 * r as u32 + 1;
        for i in 0..n as isize {
            out(i as usize, ((sum + div / 2) / div) as u8);
            sum += at(i + ri + 1);
            sum -= at(i - ri);
        }
    };
    for y in 0..h {
        line.clear();
        line.extend(field[y * w..(y + 1) * w].iter().map(|&v| u32::from(v)));
        pass(&line, &mut |x, v| field[y * w + x] = v);
    }
    for x in 0..w {
        line.clear();
        line.extend((0..h).map(|y| u32::from(field[y * w + x])));
        pass(&line, &mut |y, v| field[y * w + x] = v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(
        width: u32,
        height: u32,
        color: png::ColorType,
        depth: png::BitDepth,
        data: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, width, height);
            enc.set_color(color);
            enc.set_depth(depth);
            let mut writer = enc.write_header().expect("header");
            writer.write_image_data(data).expect("data");
        }
        out
    }

    #[test]
    fn grey_maps_of_8_and_16_bits_decode_to_the_same_scale() {
        let eight = png(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0, 255],
        );
        let sixteen = png(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            &[0, 0, 0xff, 0xff],
        );
        assert_eq!(
            DepthMap::from_png(&eight).expect("8 bit").values,
            vec![0, 65535]
        );
        assert_eq!(
            DepthMap::from_png(&sixteen).expect("16 bit").values,
            vec![0, 65535]
        );
        let rgb_grey = png(
            1,
            1,
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            &[90, 91, 90],
        );
        assert_eq!(
            DepthMap::from_png(&rgb_grey).expect("grey rgb").values,
            vec![90 * 257]
        );
    }

    #[test]
    fn colourised_and_non_png_maps_are_refused() {
        let colour = png(
            2,
            1,
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            &[10, 10, 10, 200, 40, 90],
        );
        assert_eq!(DepthMap::from_png(&colour), Err(DepthError::Colourised));
        assert!(matches!(
            DepthMap::from_png(b"\xff\xd8\xff\xe0 a jpeg"),
            Err(DepthError::NotPng(_))
        ));
    }

    #[test]
    fn aspect_must_match_the_photo() {
        let map = DepthMap {
            width: 400,
            height: 300,
            values: vec![0; 120_000],
        };
        assert!(map.check_aspect((4000, 3000)).is_ok());
        assert!(map.check_aspect((4000, 3030)).is_ok());
        assert!(matches!(
            map.check_aspect((1920, 1080)),
            Err(DepthError::WrongAspect { .. })
        ));
    }

    #[test]
    fn field_is_cover_cropped_stretched_turned_and_softened() {
        // A 4:3 map, left half far (dark), right half near (bright), for a 16:9 frame: the
        // crop cuts top and bottom, so left and right stay.
        let (mw, mh) = (400u32, 300u32);
        let values: Vec<u16> = (0..mw * mh)
            .map(|i| if i % mw < mw / 2 { 1000 } else { 30000 })
            .collect();
        let map = DepthMap {
            width: mw,
            height: mh,
            values,
        };
        let field = DepthField::prepare(&map, (1280, 720), None);
        assert_eq!((field.width, field.height), (640, 360));
        assert_eq!(field.at(10.0, 360.0), 0, "far, stretched to 0");
        assert_eq!(field.at(1270.0, 360.0), 255, "near, stretched to 255");
        // Dilated: the near side reaches past the middle (the blur then halves it at the
        // dilated edge, 16 px to the left); blurred: no step.
        let row = |x: usize| field.near[180 * 640 + x];
        assert!(
            row(319) > 200 && row(320 - 8) > 100,
            "{} {}",
            row(319),
            row(312)
        );
        let row: Vec<u8> = (0..640).map(|x| field.near[180 * 640 + x]).collect();
        assert!(row.windows(2).all(|p| p[1].abs_diff(p[0]) < 40), "{row:?}");
        let turned = DepthField::prepare(
            &map.with_polarity(DepthPolarity::DarkerIsNearer),
            (1280, 720),
            None,
        );
        assert_eq!(turned.at(10.0, 360.0), 255);
        // A flat map: everything at the middle depth.
        let flat = DepthMap {
            width: 4,
            height: 3,
            values: vec![500; 12],
        };
        let field = DepthField::prepare(&flat, (64, 36), None);
        assert!(field.near.iter().all(|&v| v == 128));
    }
}
