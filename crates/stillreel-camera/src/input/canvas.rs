//! The clip's canvas made in process: a JPEG or PNG still decoded, cover-cropped to the frame
//! by a Lanczos resampler, turned by its EXIF tag and converted to yuv420p, the frame the
//! ffmpeg canvas run (`command::canvas_command`) would write.
//!
//! Why: that run is an ffmpeg start (about 80 ms of loading libraries), a decode and a scale,
//! 0.17 s of every clip spent before its first frame can be drawn. In process the same work
//! takes a few tens of milliseconds (zune-jpeg's SIMD decoder, fast_image_resize's SIMD
//! convolution). What this module does not take on (WebP, CMYK JPEGs, stills over
//! [`MAX_IN_PROCESS_PIXELS`], a file either decoder rejects) returns `None` and goes to ffmpeg,
//! which gives the error message a bad file deserves.
//!
//! Fidelity to the ffmpeg canvas: the frame covers the same part of the photo (the scaled size
//! and the centred crop are worked out as ffmpeg's `scale=…:force_original_aspect_ratio=
//! increase` and `crop` do, [`cover_box`]), with the same filter (Lanczos, three lobes) and the
//! same colour conversion (JPEG's full-range YCbCr narrowed to video range; RGB through
//! BT.601, swscale's default). Chroma is averaged over 2 × 2 from full-resolution chroma
//! rather than resampled at half size, a difference well under a level on photographs;
//! `tests/render.rs` holds the two canvases above 40 dB PSNR on every sample.

use std::borrow::Cow;
use std::io::Cursor;

use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::U8x3;
use fast_image_resize::{ResizeAlg, ResizeOptions, Resizer};
use zune_jpeg::JpegDecoder;
use zune_jpeg::zune_core::bytestream::ZCursor;
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;

use stillreel_core::Fit;

use crate::input::ExifOrientation;
use crate::input::framing::{self, Decision, Placement, Thumb, thumbnail_size};
pub use crate::input::framing::{CoverBox, cover_box};
use stillreel_core::media::MediaFormat;

/// Stills above this many pixels go to ffmpeg: decoded to three bytes a pixel here, a 24 MP
/// photo (6000 × 4000, a common camera) is 72 MB, and the render process should not hold
/// more than ffmpeg's canvas run would.
pub const MAX_IN_PROCESS_PIXELS: u64 = 24_000_000;

/// Decoded pixels, three interleaved channels a pixel.
struct Decoded {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
    /// `YCbCr` (JPEG, full range) or `Rgb`; grey stills come as either with equal channels
    /// or neutral chroma.
    kind: Channels,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Channels {
    YCbCr,
    Rgb,
}

/// A canvas made in process: the yuv420p frame (what `Canvas::from_yuv420p` reads), where the
/// photo lies on it, and the photo's upright size.
#[derive(Debug, Clone, PartialEq)]
pub struct InProcess {
    pub frame: Vec<u8>,
    pub placement: Placement,
    pub upright: (u32, u32),
}

/// The canvas of a still (`bytes`, in `format`, to be turned by `orientation`) for a
/// `width` × `height` frame framed by `fit` ([`framing::decide`]), or `None` when another
/// decoder should make it (`clip`).
pub fn canvas_yuv420p(
    bytes: &[u8],
    format: MediaFormat,
    orientation: ExifOrientation,
    width: u32,
    height: u32,
    fit: Fit,
) -> Option<InProcess> {
    if width < 2 || height < 2 || width % 2 == 1 || height % 2 == 1 {
        return None;
    }
    // The still is untrusted: a decoder that panics on some hostile file (neither is known
    // to) leaves the canvas to ffmpeg rather than failing the worker's thread.
    let decoded = std::panic::catch_unwind(|| match format {
        MediaFormat::Jpeg => decode_jpeg(bytes),
        MediaFormat::Png => decode_png(bytes),
        _ => None,
    })
    .ok()??;
    let shape = if turns(orientation) {
        (decoded.height, decoded.width)
    } else {
        (decoded.width, decoded.height)
    };
    let (ow, oh) = shape;
    let kind = decoded.kind;
    let ycbcr = kind == Channels::YCbCr;
    let stored = Stored {
        width: decoded.width,
        height: decoded.height,
        pixels: decoded.pixels,
        orientation,
    };
    let frame = (width, height);
    let decision = framing::decide(fit, shape, frame, || {
        let size = thumbnail_size(shape);
        let pixels = stored.resize(CoverBox::whole(ow, oh), size).ok_or(())?;
        Ok::<_, ()>(Thumb {
            pixels,
            size,
            ycbcr,
        })
    })
    .ok()?;
    let upright = match decision {
        Decision::Cover { cut, .. } => stored.resize(cut, frame)?,
        Decision::Contain {
            size: (fw, fh),
            at: (left, top),
        } => {
            let fg = stored.resize(CoverBox::whole(ow, oh), (fw, fh))?;
            let small = ((width / FILL_SCALE).max(2), (height / FILL_SCALE).max(2));
            let mut fill = stored.resize(cover_box(ow, oh, small.0, small.1), small)?;
            let radius = (small.0 as usize / 40).max(1);
            framing::blur_fill(&mut fill, small.0 as usize, small.1 as usize, ycbcr, radius);
            let mut canvas = scale_up(fill, small, frame)?;
            framing::paste(
                &mut canvas,
                width as usize,
                &fg,
                fw as usize,
                fh as usize,
                left as usize,
                top as usize,
            );
            canvas
        }
    };
    Some(InProcess {
        frame: to_yuv420p(&upright, width as usize, height as usize, kind),
        placement: decision.placement(shape, frame),
        upright: shape,
    })
}

/// `contain-blur`'s fill is made at this fraction of the frame's size, blurred there and scaled
/// up (a blur at full size would cost 64 times the work for the same look).
const FILL_SCALE: u32 = 8;
/// The decoded still (three bytes a pixel), in its stored axes, and the tag that turns it
/// upright.
struct Stored {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
    orientation: ExifOrientation,
}

impl Stored {
    /// The part `upright_box` of the upright picture resized (Lanczos) to an upright `size`,
    /// three channels a pixel.
    fn resize(&self, upright_box: CoverBox, size: (u32, u32)) -> Option<Vec<u8>> {
        let (sw, sh) = if turns(self.orientation) {
            (size.1, size.0)
        } else {
            size
        };
        let (left, top, bw, bh) = stored_box(
            upright_box,
            self.orientation,
            f64::from(self.width),
            f64::from(self.height),
        );
        let options = ResizeOptions::new()
            .resize_alg(ResizeAlg::Convolution(
                fast_image_resize::FilterType::Lanczos3,
            ))
            .crop(left, top, bw, bh);
        let small = resize_rgb(&self.pixels, (self.width, self.height), (sw, sh), &options)?;
        Some(orient(&small, sw as usize, sh as usize, self.orientation).into_owned())
    }
}

/// Three-channel `pixels` of `from` size resized to `to`. Typed to three bytes a pixel rather
/// than through the resizer's run-time pixel type: the dynamic path links every pixel type's
/// code, among it a 512 KiB table for 16-bit alpha, into the browser's preview module.
fn resize_rgb(
    pixels: &[u8],
    from: (u32, u32),
    to: (u32, u32),
    options: &ResizeOptions,
) -> Option<Vec<u8>> {
    let src = TypedImageRef::<U8x3>::from_buffer(from.0, from.1, pixels).ok()?;
    let mut out = vec![0u8; to.0 as usize * to.1 as usize * 3];
    let mut dst = TypedImage::<U8x3>::from_buffer(to.0, to.1, &mut out).ok()?;
    Resizer::new().resize_typed(&src, &mut dst, options).ok()?;
    Some(out)
}

/// Three-channel `pixels` of `from` size scaled up to `to` (bilinear: the fill is a blur).
fn scale_up(pixels: Vec<u8>, from: (u32, u32), to: (u32, u32)) -> Option<Vec<u8>> {
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(
        fast_image_resize::FilterType::Bilinear,
    ));
    resize_rgb(&pixels, from, to, &options)
}

/// Whether the EXIF orientation turns the picture by 90° (5 to 8).
fn turns(orientation: ExifOrientation) -> bool {
    orientation.turns()
}

/// The box `cover` (in upright pixels) in the stored pixels' axes of a `sw` × `sh` still:
/// `(left, top, width, height)`. A flip mirrors the box's offset, which matters because the
/// crop's offset was rounded down to even and is not exactly centred.
fn stored_box(
    cover: CoverBox,
    orientation: ExifOrientation,
    sw: f64,
    sh: f64,
) -> (f64, f64, f64, f64) {
    let CoverBox {
        left: l,
        top: t,
        width: w,
        height: h,
    } = cover;
    match orientation.0 {
        2 => (sw - l - w, t, w, h),
        3 => (sw - l - w, sh - t - h, w, h),
        4 => (l, sh - t - h, w, h),
        5 => (t, l, h, w),
        6 => (t, sh - l - w, h, w),
        7 => (sw - t - h, sh - l - w, h, w),
        8 => (sw - t - h, l, h, w),
        _ => (l, t, w, h),
    }
}

/// JPEG through zune-jpeg: YCbCr (its native colours, so no round trip through RGB) or grey;
/// anything else (CMYK, YCCK) to ffmpeg.
fn decode_jpeg(bytes: &[u8]) -> Option<Decoded> {
    let mut probe = JpegDecoder::new(ZCursor::new(bytes));
    probe.decode_headers().ok()?;
    let (w, h) = probe.dimensions()?;
    if (w as u64) * (h as u64) > MAX_IN_PROCESS_PIXELS {
        return None;
    }
    let out = match probe.input_colorspace()? {
        space @ (ColorSpace::YCbCr | ColorSpace::Luma | ColorSpace::RGB) => space,
        _ => return None,
    };
    let options = DecoderOptions::default()
        .jpeg_set_out_colorspace(out)
        .set_max_width(w)
        .set_max_height(h);
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    let mut pixels = decoder.decode().ok()?;
    if out == ColorSpace::Luma {
        // Grey: neutral chroma.
        pixels = pixels.iter().flat_map(|&y| [y, 128, 128]).collect();
    }
    if pixels.len() != w * h * 3 {
        return None;
    }
    Some(Decoded {
        width: u32::try_from(w).ok()?,
        height: u32::try_from(h).ok()?,
        pixels,
        kind: if out == ColorSpace::RGB {
            Channels::Rgb
        } else {
            Channels::YCbCr
        },
    })
}

/// PNG through the png crate, widened or narrowed to 8-bit RGB (alpha dropped, as ffmpeg's
/// conversion to yuv420p drops it).
fn decode_png(bytes: &[u8]) -> Option<Decoded> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let header = decoder.read_header_info().ok()?;
    let (width, height) = (header.width, header.height);
    if u64::from(width) * u64::from(height) > MAX_IN_PROCESS_PIXELS {
        return None;
    }
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0u8; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    let channels = info.color_type.samples();
    let (w, h) = (width as usize, height as usize);
    let mut pixels = Vec::with_capacity(w * h * 3);
    for row in buf.chunks_exact(info.line_size).take(h) {
        for px in row[..w * channels].chunks_exact(channels) {
            match channels {
                1 | 2 => pixels.extend_from_slice(&[px[0], px[0], px[0]]),
                _ => pixels.extend_from_slice(&px[..3]),
            }
        }
    }
    (pixels.len() == w * h * 3).then_some(Decoded {
        width,
        height,
        pixels,
        kind: Channels::Rgb,
    })
}

/// The `sw` × `sh` picture `src` (three bytes a pixel, in the stored pixels' axes) turned
/// upright by `orientation`, as ffmpeg's filters for the tag do (`ExifOrientation::filter`).
fn orient(src: &[u8], sw: usize, sh: usize, orientation: ExifOrientation) -> Cow<'_, [u8]> {
    if !(2..=8).contains(&orientation.0) {
        return Cow::Borrowed(src);
    }
    let (w, h) = if turns(orientation) {
        (sh, sw)
    } else {
        (sw, sh)
    };
    let mut out = vec![0u8; w * h * 3];
    for y in 0..h {
        for x in 0..w {
            // The stored pixel shown at (x, y).
            let (sx, sy) = match orientation.0 {
                2 => (sw - 1 - x, y),
                3 => (sw - 1 - x, sh - 1 - y),
                4 => (x, sh - 1 - y),
                5 => (y, x),
                6 => (y, sh - 1 - x),
                7 => (sw - 1 - y, sh - 1 - x),
                _ => (sw - 1 - y, x),
            };
            let (o, i) = ((y * w + x) * 3, (sy * sw + sx) * 3);
            out[o..o + 3].copy_from_slice(&src[i..i + 3]);
        }
    }
    Cow::Owned(out)
}

/// Video-range yuv420p from three channels a pixel: JPEG's full-range YCbCr narrowed
/// (`16 + 219·Y/255`, `128 + 224·(C − 128)/255`), or RGB through BT.601's video-range matrix.
/// Chroma is the mean of each 2 × 2 block.
fn to_yuv420p(px: &[u8], w: usize, h: usize, kind: Channels) -> Vec<u8> {
    let (cw, ch) = (w / 2, h / 2);
    let mut out = vec![0u8; w * h + 2 * cw * ch];
    let (luma, chroma) = out.split_at_mut(w * h);
    let (us, vs) = chroma.split_at_mut(cw * ch);
    // Fixed point in 1/2^16.
    let ycc = |p: &[u8]| -> (i32, i32, i32) {
        let (a, b, c) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
        match kind {
            // Y, and Cb/Cr kept centred on zero, all scaled to video range.
            Channels::YCbCr => ((16 << 16) + a * 56284, (b - 128) * 57569, (c - 128) * 57569),
            Channels::Rgb => (
                (16 << 16) + 16829 * a + 33039 * b + 6416 * c,
                -9714 * a - 19070 * b + 28784 * c,
                28784 * a - 24103 * b - 4681 * c,
            ),
        }
    };
    let round = |v: i32| ((v + (1 << 15)) >> 16).clamp(0, 255) as u8;
    // One pass over each 2 × 2 block: its four lumas written, its chroma summed.
    for y in 0..ch {
        for x in 0..cw {
            let (mut u, mut v) = (0, 0);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let at = (2 * y + dy) * w + 2 * x + dx;
                let (luma_value, cb, cr) = ycc(&px[at * 3..]);
                luma[at] = round(luma_value);
                u += cb;
                v += cr;
            }
            us[y * cw + x] = round((128 << 16) + u / 4);
            vs[y * cw + x] = round((128 << 16) + v / 4);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cover_box_is_ffmpegs_scale_and_crop() {
        // 2400 × 1600 into 1280 × 720: scaled to 1280 × 853 (853.3 rounded), the crop's top
        // at 66 (66.5 rounded down to even).
        let b = cover_box(2400, 1600, 1280, 720);
        assert_eq!(b.left, 0.0);
        assert!((b.width - 2400.0).abs() < 1e-9);
        assert!((b.top - 66.0 * 1600.0 / 853.0).abs() < 1e-9);
        assert!((b.height - 720.0 * 1600.0 / 853.0).abs() < 1e-9);
        // A portrait photo into a landscape frame crops height; a panorama crops width.
        let p = cover_box(1000, 3000, 1280, 720);
        assert_eq!(p.left, 0.0);
        assert!(p.top > 1000.0 && p.height < 600.0, "{p:?}");
        // 4000 × 1000: scaled to 2880 × 720, the crop's left at 800 scaled pixels.
        let q = cover_box(4000, 1000, 1280, 720);
        assert_eq!((q.top, q.height), (0.0, 1000.0));
        assert!((q.left - 800.0 * 4000.0 / 2880.0).abs() < 1e-9, "{q:?}");
        assert!((q.width - 1280.0 * 4000.0 / 2880.0).abs() < 1e-9, "{q:?}");
        // The exact aspect: no crop at all.
        let e = cover_box(1920, 1080, 1280, 720);
        assert_eq!(
            (e.left, e.top, e.width, e.height),
            (0.0, 0.0, 1920.0, 1080.0)
        );
    }

    #[test]
    fn every_orientation_turns_as_ffmpegs_filters_do() {
        // A 3 × 2 picture whose pixels are numbered: (x, y) holds 10·y + x in every channel.
        let (sw, sh) = (3, 2);
        let src: Vec<u8> = (0..sh)
            .flat_map(|y| (0..sw).flat_map(move |x| [10 * y + x; 3]))
            .map(|v| v as u8)
            .collect();
        let shown = |o: u8| -> Vec<u8> {
            orient(&src, sw, sh, ExifOrientation(o))
                .chunks(3)
                .map(|p| p[0])
                .collect()
        };
        // Stored:  0  1  2
        //         10 11 12
        assert_eq!(shown(1), [0, 1, 2, 10, 11, 12]);
        assert_eq!(shown(2), [2, 1, 0, 12, 11, 10]); // hflip
        assert_eq!(shown(3), [12, 11, 10, 2, 1, 0]); // rotate 180
        assert_eq!(shown(4), [10, 11, 12, 0, 1, 2]); // vflip
        assert_eq!(shown(5), [0, 10, 1, 11, 2, 12]); // transpose
        assert_eq!(shown(6), [10, 0, 11, 1, 12, 2]); // rotate clockwise
        assert_eq!(shown(7), [12, 2, 11, 1, 10, 0]); // transverse
        assert_eq!(shown(8), [2, 12, 1, 11, 0, 10]); // rotate counter-clockwise
    }

    #[test]
    fn colours_narrow_to_video_range() {
        // Black, white and a mid grey in both kinds; pure red through BT.601.
        let px = |p: [u8; 3], kind| to_yuv420p(&p.repeat(4), 2, 2, kind);
        assert_eq!(
            px([0, 128, 128], Channels::YCbCr),
            [16, 16, 16, 16, 128, 128]
        );
        assert_eq!(
            px([255, 128, 128], Channels::YCbCr),
            [235, 235, 235, 235, 128, 128]
        );
        assert_eq!(px([0, 0, 0], Channels::Rgb), [16, 16, 16, 16, 128, 128]);
        assert_eq!(
            px([255, 255, 255], Channels::Rgb),
            [235, 235, 235, 235, 128, 128]
        );
        // BT.601 red: Y 81, Cb 90, Cr 240.
        assert_eq!(px([255, 0, 0], Channels::Rgb), [81, 81, 81, 81, 90, 240]);
    }

    #[test]
    fn cut_or_garbled_stills_never_panic_and_never_give_a_wrong_sized_frame() {
        let jpeg: &[u8] = include_bytes!("../../../../samples/house-bungalow.jpg");
        let png: &[u8] = include_bytes!("../../../../samples/logo.png");
        for (bytes, format) in [(jpeg, MediaFormat::Jpeg), (png, MediaFormat::Png)] {
            for cut in (1..8).map(|i| bytes.len() * i / 8) {
                let mut garbled = bytes.to_vec();
                garbled[cut..]
                    .iter_mut()
                    .step_by(97)
                    .for_each(|b| *b ^= 0x5a);
                for candidate in [&bytes[..cut], &garbled[..]] {
                    if let Some(frame) =
                        canvas_yuv420p(candidate, format, ExifOrientation(6), 64, 36, Fit::Cover)
                    {
                        assert_eq!(frame.frame.len(), 64 * 36 * 3 / 2);
                    }
                }
            }
        }
    }

    #[test]
    fn what_it_does_not_take_on_goes_to_ffmpeg() {
        let none = |bytes: &[u8], format| {
            canvas_yuv420p(bytes, format, ExifOrientation(1), 64, 36, Fit::Cover).is_none()
        };
        assert!(none(b"RIFF....WEBPVP8 ", MediaFormat::Webp));
        assert!(none(
            b"\xff\xd8\xff\xe0 not really a jpeg",
            MediaFormat::Jpeg
        ));
        assert!(none(b"\x89PNG\r\n\x1a\n truncated", MediaFormat::Png));
    }
}
