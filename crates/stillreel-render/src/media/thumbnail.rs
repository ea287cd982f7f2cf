//! A plain clip's JPEG thumbnail made in process from the frame the camera drew, the still the
//! encoder's graph would otherwise split off (`command::add_still_output`).
//!
//! Why: a second output on the clip's ffmpeg run (split, select, scale, an MJPEG encoder) made
//! ffmpeg fault in fresh pages for most of the 150 raw frames it reads from the pipe (46,000
//! page faults against 14,000 without it, `perf stat`), about a tenth of a 720p clip's wall
//! time and CPU (docs/BENCHMARKS.md). Here the frame is already in memory: scaling it to
//! [`STILL_WIDTH`] and encoding 640 × 360 takes a few milliseconds.
//!
//! Fidelity to the ffmpeg still: the same size (`scale=640:-2`, [`still_size`]), a bicubic
//! kind of filter (Catmull-Rom; swscale's default is bicubic), the same full-range YCbCr 4:2:0
//! (`format=yuvj420p`: video range widened to 0..255), at [`QUALITY`].
//! Clips with an effect or a caption still take the graph's still: their thumbnail must show
//! what ffmpeg draws after the camera.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

use crate::ffmpeg::command::STILL_WIDTH;
use crate::ffmpeg::runner::{RenderError, Step, io_error};
use std::path::Path;
use stillreel_camera::geometry::clip_plan::ClipPlan;

/// JPEG quality (1–100) of the thumbnail: no visible blocking at 640 px, files 1.2–1.3 × the
/// size of ffmpeg's `-q:v 3` (34–46 KB against 26–39 KB on the samples at 720p).
pub const QUALITY: u8 = 85;

/// Why no thumbnail could be made.
#[derive(Debug, thiserror::Error)]
pub enum ThumbnailError {
    #[error("a {width}x{height} yuv420p frame is {expected} bytes, not {got}")]
    FrameSize {
        width: u32,
        height: u32,
        expected: usize,
        got: usize,
    },
    #[error("scaling the thumbnail: {0}")]
    Scale(String),
    #[error("encoding the thumbnail: {0}")]
    Encode(#[from] jpeg_encoder::EncodingError),
}

/// The thumbnail's size for a `width` × `height` frame, as ffmpeg's `scale=640:-2` works it
/// out: the height keeping the aspect, rounded to the nearest multiple of two (halves up).
pub fn still_size(width: u32, height: u32) -> (u32, u32) {
    let (w, h) = (u64::from(width.max(1)), u64::from(height));
    let wide = u64::from(STILL_WIDTH);
    let halves = (wide * h + w) / (2 * w);
    (
        STILL_WIDTH,
        u32::try_from(halves * 2).unwrap_or(u32::MAX).max(2),
    )
}

/// The JPEG thumbnail of a raw yuv420p `frame` of `width` × `height` (video range), at
/// [`still_size`], full-range YCbCr 4:2:0 (`yuvj420p`).
pub fn jpeg_from_yuv420p(frame: &[u8], width: u32, height: u32) -> Result<Vec<u8>, ThumbnailError> {
    // yuv420p: full-size luma, two quarter-size chroma planes.
    let (w2, h2) = (width as usize / 2, height as usize / 2);
    let expected = width as usize * height as usize + 2 * w2 * h2;
    if frame.len() != expected || width < 2 || height < 2 || width % 2 == 1 || height % 2 == 1 {
        return Err(ThumbnailError::FrameSize {
            width,
            height,
            expected,
            got: frame.len(),
        });
    }
    let (w, h) = (width as usize, height as usize);
    let (cw, ch) = (w / 2, h / 2);
    let (luma, chroma) = frame.split_at(w * h);
    let (cb, cr) = chroma.split_at(cw * ch);
    let (tw, th) = still_size(width, height);
    let y = scaled(luma, (width, height), (tw, th))?;
    let u = scaled(cb, (width / 2, height / 2), (tw / 2, th / 2))?;
    let v = scaled(cr, (width / 2, height / 2), (tw / 2, th / 2))?;
    let full = ranges();
    let (tw, th) = (tw as usize, th as usize);
    // Interleaved YCbCr a pixel, each chroma sample repeated over its 2 × 2 block: the
    // encoder's 4:2:0 takes the block's top-left sample back ("nearest"), so nothing moves.
    let mut ycbcr = vec![0u8; tw * th * 3];
    for (row, out) in ycbcr.chunks_exact_mut(tw * 3).enumerate() {
        let luma_row = &y[row * tw..][..tw];
        let chroma_at = (row / 2) * (tw / 2);
        for (x, px) in out.chunks_exact_mut(3).enumerate() {
            px[0] = full.luma[usize::from(luma_row[x])];
            px[1] = full.chroma[usize::from(u[chroma_at + x / 2])];
            px[2] = full.chroma[usize::from(v[chroma_at + x / 2])];
        }
    }
    let mut jpeg = Vec::with_capacity(tw * th / 4);
    let mut encoder = Encoder::new(&mut jpeg, QUALITY);
    encoder.set_sampling_factor(SamplingFactor::F_2_2);
    let too_big = || ThumbnailError::Scale(format!("{tw}x{th} is beyond JPEG's size"));
    encoder.encode(
        &ycbcr,
        u16::try_from(tw).map_err(|_| too_big())?,
        u16::try_from(th).map_err(|_| too_big())?,
        ColorType::Ycbcr,
    )?;
    Ok(jpeg)
}

/// One 8-bit plane of `from` size scaled to `to`.
fn scaled(plane: &[u8], from: (u32, u32), to: (u32, u32)) -> Result<Vec<u8>, ThumbnailError> {
    let scale = |e: &dyn std::fmt::Display| ThumbnailError::Scale(e.to_string());
    let src = ImageRef::new(from.0, from.1, plane, PixelType::U8).map_err(|e| scale(&e))?;
    let mut dst = Image::new(to.0, to.1, PixelType::U8);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| scale(&e))?;
    Ok(dst.into_vec())
}

/// Video range to full range (`yuvj420p`), as tables: luma 16..235 and chroma 16..240 widened
/// to 0..255 around their middle, clamped.
struct Ranges {
    luma: [u8; 256],
    chroma: [u8; 256],
}

fn ranges() -> Ranges {
    let widen = |value: usize, low: f64, span: f64, centre: f64| {
        let v = (value as f64 - low) * 255.0 / span + centre;
        v.round().clamp(0.0, 255.0) as u8
    };
    let mut luma = [0u8; 256];
    let mut chroma = [0u8; 256];
    for i in 0..256 {
        luma[i] = widen(i, 16.0, 219.0, 0.0);
        chroma[i] = widen(i, 128.0, 224.0, 128.0);
    }
    Ranges { luma, chroma }
}

/// Encodes the drawn `frame` as the clip's JPEG still at `path`; the error, if any.
pub(crate) fn write_still(
    frame: Option<&[u8]>,
    plan: &ClipPlan,
    path: &Path,
    step: Step,
) -> Option<RenderError> {
    let fail = |message: String| Some(RenderError::Io { step, message });
    let Some(frame) = frame else {
        return fail("the thumbnail's frame was not drawn".to_owned());
    };
    match jpeg_from_yuv420p(frame, plan.width, plan.height) {
        Ok(jpeg) => std::fs::write(path, jpeg).err().map(|e| io_error(step, e)),
        Err(e) => fail(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zune_jpeg::JpegDecoder;
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;

    /// A yuv420p frame of one colour.
    fn flat(width: u32, height: u32, yuv: (u8, u8, u8)) -> Vec<u8> {
        let (w, h) = (width as usize, height as usize);
        let mut frame = vec![yuv.0; w * h];
        frame.extend(std::iter::repeat_n(yuv.1, w * h / 4));
        frame.extend(std::iter::repeat_n(yuv.2, w * h / 4));
        frame
    }

    /// Decodes a JPEG to (width, height, YCbCr pixels).
    fn decode(jpeg: &[u8]) -> (usize, usize, Vec<u8>) {
        let options = DecoderOptions::default().jpeg_set_out_colorspace(ColorSpace::YCbCr);
        let mut decoder = JpegDecoder::new_with_options(ZCursor::new(jpeg), options);
        let pixels = decoder.decode().expect("a JPEG");
        let info = decoder.info().expect("its header");
        (usize::from(info.width), usize::from(info.height), pixels)
    }

    #[test]
    fn the_size_is_ffmpegs_scale_640_minus_2() {
        // The sizes `scale=640:-2` gives (ffmpeg 5.1), every frame size a clip can have.
        assert_eq!(still_size(1280, 720), (640, 360));
        assert_eq!(still_size(1920, 1080), (640, 360));
        assert_eq!(still_size(720, 1280), (640, 1138));
        assert_eq!(still_size(1080, 1920), (640, 1138));
        assert_eq!(still_size(640, 480), (640, 480));
        // 640 × 363 / 640 is 363: the nearest even heights are 362 and 364, halves go up.
        assert_eq!(still_size(640, 363), (640, 364));
    }

    #[test]
    fn video_range_becomes_full_range() {
        for (yuv, want) in [
            ((16, 128, 128), (0, 128, 128)),
            ((235, 128, 128), (255, 128, 128)),
            ((126, 16, 240), (128, 0, 255)),
        ] {
            let jpeg = jpeg_from_yuv420p(&flat(1280, 720, yuv), 1280, 720).expect("thumbnail");
            let (w, h, pixels) = decode(&jpeg);
            assert_eq!((w, h), (640, 360));
            for px in pixels.chunks_exact(3).step_by(997) {
                for (got, want) in px.iter().zip([want.0, want.1, want.2]) {
                    assert!(got.abs_diff(want) <= 2, "{yuv:?}: {px:?} against {want:?}");
                }
            }
        }
    }

    #[test]
    fn the_picture_keeps_its_place() {
        // Left half dark, right half light, in a portrait frame: the edge stays in the middle.
        let (width, height) = (720u32, 1280u32);
        let mut frame = flat(width, height, (16, 128, 128));
        for row in frame[..(width * height) as usize].chunks_exact_mut(width as usize) {
            row[width as usize / 2..].fill(235);
        }
        let (w, h, pixels) = decode(&jpeg_from_yuv420p(&frame, width, height).expect("thumbnail"));
        assert_eq!((w, h), (640, 1138));
        let luma_at = |x: usize, y: usize| pixels[(y * w + x) * 3];
        for y in [0, h / 2, h - 1] {
            assert!(luma_at(300, y) < 10 && luma_at(340, y) > 245, "row {y}");
        }
    }

    #[test]
    fn a_frame_of_the_wrong_size_is_an_error() {
        let short = vec![0u8; 100];
        assert!(matches!(
            jpeg_from_yuv420p(&short, 1280, 720),
            Err(ThumbnailError::FrameSize { got: 100, .. })
        ));
        assert!(jpeg_from_yuv420p(&flat(64, 36, (16, 128, 128)), 63, 36).is_err());
    }
}
