//! One clip, one call: the photo framed for the clip's frame, its depth map checked and laid on
//! that framing, and the clip's frames drawn through the plan's window. The renderer's clip
//! step, the browser's preview and the renderer's reference frames all make a clip with
//! [`Clip::new`] and draw it with [`Clip::write_frames`] or [`Clip::draw_frame`], so what the
//! preview shows is what the clip step encodes.
//!
//! The framing is decided here once, for both ways a canvas is made: in process, when this
//! crate decodes the still (JPEG, PNG under the pixel limit: [`crate::input::canvas`]), or by
//! a [`Decoder`] the caller supplies for everything else (the renderer's ffmpeg runs for WebP,
//! HEIC, CMYK JPEGs and large stills), which is told exactly what to cut ([`CanvasFraming`]).
//!
//! The depth map's checks run in the order the clip's record explains them: a PNG, grey, of the
//! photo's aspect ratio, neither flat nor garbled nor inverted ([`crate::depth`]). A map that
//! fails one is not an error: the clip is drawn with the flat camera and
//! [`Clip::depth_note`] says why.

use std::sync::Arc;

use stillreel_core::{Engine, Fit, MediaFormat};

use crate::depth::{DepthError, DepthField, DepthMap, DepthPolarity};
use crate::draw::warp::{self, Canvas, CanvasSizeError};
use crate::geometry::clip_plan::ClipPlan;
use crate::input::ExifOrientation;
use crate::input::canvas::canvas_yuv420p;
use crate::input::framing::{self, Decision, Placement, THUMB_LONG_SIDE, Thumb};

/// The photo a clip is made from.
#[derive(Debug, Clone, Copy)]
pub struct Photo<'a> {
    pub bytes: &'a [u8],
    pub format: MediaFormat,
    pub orientation: ExifOrientation,
    /// Its size as displayed, when known without decoding it (the renderer's fetch step reads
    /// it from the header): what `auto` framing weighs when a [`Decoder`] makes the canvas.
    pub upright: Option<(u32, u32)>,
}

/// A depth map for the clip: a grey PNG of the upright photo, as stored.
#[derive(Debug, Clone, Copy)]
pub struct DepthPng<'a> {
    pub png: &'a [u8],
    pub polarity: DepthPolarity,
}

/// What the canvas of a photo this crate does not decode is cut to, for the decoder that makes
/// it (the renderer's `canvas_command`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CanvasFraming {
    /// Scaled to cover the frame, the cut at `position` along the axis it cuts (0 start, 1
    /// end; 0.5 is the centred crop of ffmpeg's `crop` filter).
    Cover { position: f64 },
    /// The whole photo contained, over a blurred, dimmed cover of itself.
    ContainBlur,
}

/// How a still this crate does not decode becomes pixels (the renderer runs ffmpeg for it).
pub trait Decoder {
    type Error;
    /// The upright still scaled to at most `long_side` on its long side: width, height and
    /// RGB bytes (what `smart` framing reads the content from).
    fn thumbnail(&mut self, long_side: u32) -> Result<(u32, u32, Vec<u8>), Self::Error>;
    /// The canvas of the still for a `frame`, cut as `framing` says: yuv420p bytes.
    fn canvas(&mut self, framing: CanvasFraming, frame: (u32, u32))
    -> Result<Vec<u8>, Self::Error>;
}

/// A [`Decoder`] for a caller that decodes nothing itself (the browser's preview): every still
/// this crate does not decode is refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct InProcessOnly;

/// What [`InProcessOnly`] answers: the still needs a decoder this build does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the photo could not be decoded in process (or is over the in-process pixel limit)")]
pub struct NotInProcess;

impl Decoder for InProcessOnly {
    type Error = NotInProcess;
    fn thumbnail(&mut self, _: u32) -> Result<(u32, u32, Vec<u8>), NotInProcess> {
        Err(NotInProcess)
    }
    fn canvas(&mut self, _: CanvasFraming, _: (u32, u32)) -> Result<Vec<u8>, NotInProcess> {
        Err(NotInProcess)
    }
}

/// Why a clip could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ClipError<E> {
    /// The decoder failed on the still.
    #[error(transparent)]
    Decoder(E),
    /// The decoder answered, but with no frame (a broken picture it exits 0 on).
    #[error("the picture decoded to no frame: {0}")]
    NoFrame(String),
}

/// The photo framed for one frame size: the canvas, where the photo lies on it (`None`: the
/// centred cover of a photo whose size was not learnt) and its depth field, or why its map is
/// not used. Independent of the motion: the preview keeps one across rebuilds.
#[derive(Debug)]
pub struct Picture {
    canvas: Canvas,
    placement: Option<Placement>,
    depth: Option<Result<DepthField, DepthError>>,
}

/// One clip: a framed [`Picture`] and the plan that moves the camera over it.
#[derive(Debug, Clone)]
pub struct Clip {
    plan: ClipPlan,
    picture: Arc<Picture>,
}

impl Clip {
    /// The clip of `photo` framed by `fit` for `plan`'s frame, with `depth` checked and laid on
    /// the framing when the plan's engine reads depth (v25; the flat camera otherwise).
    /// `decoder` makes the canvas of a still this crate does not decode.
    pub fn new<D: Decoder>(
        photo: &Photo<'_>,
        fit: Fit,
        plan: ClipPlan,
        depth: Option<DepthPng<'_>>,
        decoder: &mut D,
    ) -> Result<Self, ClipError<D::Error>> {
        let frame = (plan.width, plan.height);
        let (canvas, placement, upright) = framed_canvas(photo, fit, frame, decoder)?;
        let depth = depth
            .filter(|_| plan.engine == Engine::V25)
            .map(|d| depth_field(d, upright, frame, &canvas, placement.as_ref()));
        Ok(Clip {
            plan,
            picture: Arc::new(Picture {
                canvas,
                placement,
                depth,
            }),
        })
    }

    /// The clip `plan` draws over a picture framed before, for the same frame size (another
    /// motion, pace or length over the same photo).
    pub fn over(picture: Arc<Picture>, plan: ClipPlan) -> Self {
        Clip { plan, picture }
    }

    pub fn plan(&self) -> &ClipPlan {
        &self.plan
    }

    /// The framed picture, to keep for [`Clip::over`].
    pub fn picture(&self) -> &Arc<Picture> {
        &self.picture
    }

    /// The canvas the camera moves over (an effect's masks are made from it).
    pub fn canvas(&self) -> &Canvas {
        &self.picture.canvas
    }

    /// Where the photo lies on the canvas.
    pub fn placement(&self) -> Option<&Placement> {
        self.picture.placement.as_ref()
    }

    /// The depth field the frames are bent by, if a usable map was given on v25.
    pub fn depth(&self) -> Option<&DepthField> {
        self.picture.depth.as_ref().and_then(|d| d.as_ref().ok())
    }

    /// Why the depth map given is not used (the clip is drawn flat), as the record says it.
    pub fn depth_note(&self) -> Option<String> {
        self.picture
            .depth
            .as_ref()
            .and_then(|d| d.as_ref().err())
            .map(ToString::to_string)
    }

    /// Draws frame `n` into `out` (yuv420p, the plan's size) on `threads` threads.
    pub fn draw_frame(&self, n: u32, threads: usize, out: &mut [u8]) {
        warp::draw_frame(&self.plan, self.canvas(), self.depth(), n, threads, out);
    }

    /// Writes every frame, in order, to `out` (the encoder's standard input).
    pub fn write_frames(
        &self,
        threads: usize,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        warp::write_frames(&self.plan, self.canvas(), self.depth(), threads, out)
    }

    /// [`Clip::write_frames`], keeping a copy of frame `keep` (the clip's still, drawn once).
    pub fn write_frames_keeping(
        &self,
        threads: usize,
        keep: u32,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Vec<u8>> {
        let mut frame = vec![0u8; warp::frame_bytes(self.plan.width, self.plan.height)];
        let mut kept = Vec::new();
        for n in 0..self.plan.frames {
            self.draw_frame(n, threads, &mut frame);
            out.write_all(&frame)?;
            if n == keep {
                kept.clone_from(&frame);
            }
        }
        out.flush()?;
        Ok(kept)
    }
}

/// The canvas of `photo` for `frame`, framed by `fit`, where the photo lies on it and the
/// photo's upright size when learnt.
type Framed = (Canvas, Option<Placement>, Option<(u32, u32)>);

fn framed_canvas<D: Decoder>(
    photo: &Photo<'_>,
    fit: Fit,
    frame: (u32, u32),
    decoder: &mut D,
) -> Result<Framed, ClipError<D::Error>> {
    let (width, height) = frame;
    if let Some(made) = canvas_yuv420p(
        photo.bytes,
        photo.format,
        photo.orientation,
        width,
        height,
        fit,
    ) {
        let canvas = Canvas::from_yuv420p(width, height, &made.frame).map_err(no_frame)?;
        return Ok((canvas, Some(made.placement), Some(made.upright)));
    }
    let (framing, placement, upright) = outside_framing(photo.upright, fit, frame, decoder)?;
    let bytes = decoder.canvas(framing, frame).map_err(ClipError::Decoder)?;
    let canvas = Canvas::from_yuv420p(width, height, &bytes).map_err(no_frame)?;
    Ok((canvas, placement, upright))
}

fn no_frame<E>(e: CanvasSizeError) -> ClipError<E> {
    ClipError::NoFrame(e.to_string())
}

/// What the decoder is asked to cut, where the photo will lie, and the photo's upright size
/// when the header gave it.
type Outside = (CanvasFraming, Option<Placement>, Option<(u32, u32)>);

/// The framing of a still the decoder makes the canvas of, decided by [`framing::decide`] as
/// the in-process canvas decides it: `cover` needs nothing of the photo (the centred crop);
/// `auto` needs its shape (the header's, else the thumbnail's) and `smart` its content (the
/// thumbnail). Also the photo's upright size when learnt.
fn outside_framing<D: Decoder>(
    upright: Option<(u32, u32)>,
    fit: Fit,
    frame: (u32, u32),
    decoder: &mut D,
) -> Result<Outside, ClipError<D::Error>> {
    if fit == Fit::Cover && upright.is_none() {
        return Ok((CanvasFraming::Cover { position: 0.5 }, None, None));
    }
    let thumb = |d: &mut D| {
        d.thumbnail(THUMB_LONG_SIDE)
            .map(|(w, h, pixels)| Thumb {
                pixels,
                size: (w, h),
                ycbcr: false,
            })
            .map_err(ClipError::Decoder)
    };
    let (shape, mut made) = match upright {
        Some(shape) => (shape, None),
        None => {
            let made = thumb(decoder)?;
            (made.size, Some(made))
        }
    };
    let decision = framing::decide(fit, shape, frame, || match made.take() {
        Some(made) => Ok(made),
        None => thumb(decoder),
    })?;
    let framing = match decision {
        Decision::Cover { position, .. } => CanvasFraming::Cover {
            position: position.unwrap_or(0.5),
        },
        Decision::Contain { .. } => CanvasFraming::ContainBlur,
    };
    // The depth map's aspect is checked against the header's size only: a thumbnail's
    // rounding is no measure of it.
    Ok((framing, Some(decision.placement(shape, frame)), upright))
}

/// The depth field of `depth` for the framed canvas, or why the map is not used: decoded, of
/// the photo's aspect (when its size is known), turned to its polarity, found usable, then laid
/// on the canvas as the photo is and smoothed under the canvas's edges.
fn depth_field(
    depth: DepthPng<'_>,
    upright: Option<(u32, u32)>,
    frame: (u32, u32),
    canvas: &Canvas,
    placement: Option<&Placement>,
) -> Result<DepthField, DepthError> {
    let map = DepthMap::from_png(depth.png)?;
    if let Some(upright) = upright {
        map.check_aspect(upright)?;
    }
    let map = map.with_polarity(depth.polarity);
    map.check_usable()?;
    Ok(DepthField::prepare_placed(
        &map,
        frame,
        Some(&canvas.guide()),
        placement,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::clip_plan::Motion;
    use crate::input::framing::cover_box;
    use stillreel_core::{Orientation, Resolution};

    /// An RGB PNG of `w` × `h` with a bright block at the right (a subject for `smart`).
    fn photo_png(w: u32, h: u32) -> Vec<u8> {
        let data: Vec<u8> = (0..h)
            .flat_map(|y| {
                (0..w).flat_map(move |x| {
                    let subject = x > w * 3 / 4 && y > h / 3 && y < h * 2 / 3;
                    let v = if subject {
                        250
                    } else {
                        ((x + 2 * y) % 40 + 60) as u8
                    };
                    [v, if subject { 40 } else { v }, v / 2]
                })
            })
            .collect();
        grey_or_rgb_png(w, h, png::ColorType::Rgb, &data)
    }

    fn grey_or_rgb_png(w: u32, h: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(color);
            enc.set_depth(png::BitDepth::Eight);
            let mut writer = enc.write_header().expect("header");
            writer.write_image_data(data).expect("data");
        }
        out
    }

    fn plan(engine: Engine) -> ClipPlan {
        ClipPlan {
            width: 64,
            height: 36,
            ..ClipPlan::new(
                Orientation::Landscape,
                Resolution::P720,
                engine,
                Motion::PushIn,
            )
        }
    }

    /// A decoder double standing in for the renderer's ffmpeg runs: it records what it was
    /// asked, answers the thumbnail with `thumb` and the canvas with a flat grey frame.
    struct Recording {
        thumb: (u32, u32, Vec<u8>),
        thumbnails: usize,
        framings: Vec<CanvasFraming>,
    }

    impl Decoder for Recording {
        type Error = ();
        fn thumbnail(&mut self, long_side: u32) -> Result<(u32, u32, Vec<u8>), ()> {
            assert_eq!(long_side, THUMB_LONG_SIDE);
            self.thumbnails += 1;
            Ok(self.thumb.clone())
        }
        fn canvas(&mut self, framing: CanvasFraming, frame: (u32, u32)) -> Result<Vec<u8>, ()> {
            self.framings.push(framing);
            Ok(vec![128; warp::frame_bytes(frame.0, frame.1)])
        }
    }

    fn recording(w: u32, h: u32) -> Recording {
        Recording {
            thumb: (w, h, vec![100; (w * h * 3) as usize]),
            thumbnails: 0,
            framings: Vec::new(),
        }
    }

    /// The same photo as a format this crate does not decode: the decoder makes its canvas.
    fn outside(bytes: &[u8], upright: Option<(u32, u32)>) -> Photo<'_> {
        Photo {
            bytes,
            format: MediaFormat::Webp,
            orientation: ExifOrientation(1),
            upright,
        }
    }

    #[test]
    fn a_still_decoded_in_process_asks_the_decoder_nothing() {
        let bytes = photo_png(120, 80);
        let photo = Photo {
            format: MediaFormat::Png,
            ..outside(&bytes, None)
        };
        let mut decoder = recording(3, 2);
        let clip =
            Clip::new(&photo, Fit::Auto, plan(Engine::V25), None, &mut decoder).expect("clip");
        assert_eq!((decoder.thumbnails, decoder.framings.len()), (0, 0));
        assert_eq!((clip.canvas().width(), clip.canvas().height()), (64, 36));
        assert!(clip.placement().is_some());
        let mut frame = vec![0; warp::frame_bytes(64, 36)];
        clip.draw_frame(0, 1, &mut frame);
        assert!(frame.iter().any(|&v| v != frame[0]), "a drawn picture");
    }

    #[test]
    fn the_kept_frame_is_the_one_drawn_and_every_frame_is_written() {
        let bytes = photo_png(120, 80);
        let photo = Photo {
            format: MediaFormat::Png,
            ..outside(&bytes, None)
        };
        let clip = Clip::new(
            &photo,
            Fit::Cover,
            plan(Engine::V25),
            None,
            &mut InProcessOnly,
        )
        .expect("clip");
        let mut stream = Vec::new();
        let kept = clip
            .write_frames_keeping(2, 75, &mut stream)
            .expect("written");
        let len = warp::frame_bytes(64, 36);
        assert_eq!(stream.len(), len * 150);
        let mut drawn = vec![0; len];
        clip.draw_frame(75, 1, &mut drawn);
        assert_eq!(kept, drawn);
        assert_eq!(&stream[75 * len..76 * len], &drawn[..]);
        let mut whole = Vec::new();
        clip.write_frames(1, &mut whole).expect("written");
        assert_eq!(whole, stream);
    }

    #[test]
    fn cover_through_the_decoder_needs_no_thumbnail() {
        let bytes = photo_png(120, 80);
        let mut decoder = recording(128, 85);
        Clip::new(
            &outside(&bytes, None),
            Fit::Cover,
            plan(Engine::V25),
            None,
            &mut decoder,
        )
        .expect("clip");
        assert_eq!(decoder.thumbnails, 0);
        assert_eq!(decoder.framings, [CanvasFraming::Cover { position: 0.5 }]);
    }

    #[test]
    fn the_decoder_is_told_the_in_process_decision() {
        // A portrait photo in a landscape frame: `auto` contains it, from the header's size
        // alone (no thumbnail), placed where the in-process canvas places it.
        let bytes = photo_png(80, 120);
        let mut decoder = recording(3, 2);
        let clip = Clip::new(
            &outside(&bytes, Some((80, 120))),
            Fit::Auto,
            plan(Engine::V25),
            None,
            &mut decoder,
        )
        .expect("clip");
        assert_eq!(decoder.thumbnails, 0);
        assert_eq!(decoder.framings, [CanvasFraming::ContainBlur]);
        let photo = Photo {
            format: MediaFormat::Png,
            ..outside(&bytes, None)
        };
        let inside = Clip::new(
            &photo,
            Fit::Auto,
            plan(Engine::V25),
            None,
            &mut InProcessOnly,
        )
        .expect("in process");
        assert_eq!(clip.placement(), inside.placement());
        // Without the header's size, the thumbnail's shape decides.
        let mut decoder = recording(85, 128);
        Clip::new(
            &outside(&bytes, None),
            Fit::Auto,
            plan(Engine::V25),
            None,
            &mut decoder,
        )
        .expect("clip");
        assert_eq!(decoder.thumbnails, 1);
        assert_eq!(decoder.framings, [CanvasFraming::ContainBlur]);
    }

    #[test]
    fn smart_through_the_decoder_reads_one_thumbnail() {
        let bytes = photo_png(240, 80);
        let mut decoder = recording(128, 43);
        Clip::new(
            &outside(&bytes, Some((240, 80))),
            Fit::Smart,
            plan(Engine::V25),
            None,
            &mut decoder,
        )
        .expect("clip");
        assert_eq!(decoder.thumbnails, 1);
        assert!(matches!(
            decoder.framings[..],
            [CanvasFraming::Cover { .. }]
        ));
    }

    #[test]
    fn a_decoder_that_gives_no_frame_fails_the_clip() {
        struct Empty;
        impl Decoder for Empty {
            type Error = ();
            fn thumbnail(&mut self, _: u32) -> Result<(u32, u32, Vec<u8>), ()> {
                Err(())
            }
            fn canvas(&mut self, _: CanvasFraming, _: (u32, u32)) -> Result<Vec<u8>, ()> {
                Ok(Vec::new())
            }
        }
        let bytes = photo_png(120, 80);
        let made = Clip::new(
            &outside(&bytes, None),
            Fit::Cover,
            plan(Engine::V25),
            None,
            &mut Empty,
        );
        assert!(matches!(made, Err(ClipError::NoFrame(_))));
        let made = Clip::new(
            &outside(&bytes, None),
            Fit::Smart,
            plan(Engine::V25),
            None,
            &mut Empty,
        );
        assert!(matches!(made, Err(ClipError::Decoder(()))));
    }

    #[test]
    fn an_unusable_depth_map_is_a_note_and_v24_reads_none() {
        let bytes = photo_png(120, 80);
        let photo = Photo {
            format: MediaFormat::Png,
            ..outside(&bytes, None)
        };
        let flat = grey_or_rgb_png(12, 8, png::ColorType::Grayscale, &[90; 96]);
        let depth = Some(DepthPng {
            png: &flat,
            polarity: DepthPolarity::BrighterIsNearer,
        });
        let clip = Clip::new(
            &photo,
            Fit::Cover,
            plan(Engine::V25),
            depth,
            &mut InProcessOnly,
        )
        .expect("clip");
        assert!(clip.depth().is_none());
        let note = clip.depth_note().expect("a note");
        assert!(note.contains("flat"), "{note}");
        // The wrong aspect is found before anything else is weighed.
        let wide = grey_or_rgb_png(30, 8, png::ColorType::Grayscale, &[90; 240]);
        let depth = Some(DepthPng {
            png: &wide,
            polarity: DepthPolarity::BrighterIsNearer,
        });
        let clip = Clip::new(
            &photo,
            Fit::Cover,
            plan(Engine::V25),
            depth,
            &mut InProcessOnly,
        )
        .expect("clip");
        assert!(clip.depth_note().expect("a note").contains("aspect ratio"));
        // v24 draws flat and reads no map: no note either.
        let clip = Clip::new(
            &photo,
            Fit::Cover,
            plan(Engine::V24),
            depth,
            &mut InProcessOnly,
        )
        .expect("clip");
        assert_eq!((clip.depth().is_some(), clip.depth_note()), (false, None));
    }

    #[test]
    fn a_cover_cut_at_an_end_places_the_photos_end() {
        // A portrait photo in a landscape frame, cut at the top.
        let (shape, frame) = ((600, 900), (1280, 720));
        let cut = cover_box(600, 900, 1280, 720).cut_at(0.0, shape);
        let placement = Decision::Cover {
            cut,
            position: Some(0.0),
        }
        .placement(shape, frame);
        assert_eq!(placement.photo[1], 0.0);
        assert!((placement.photo[3] - 0.375).abs() < 0.01);
        assert_eq!(placement.canvas, [0.0, 0.0, 1280.0, 720.0]);
    }
}
