//! One clip's frames in the preview: the photo's canvas, its depth field and the clip plan,
//! made by the very calls the renderer's clip step makes (`stillreel-render`'s
//! `steps::clip` and `steps::framing`), then drawn one frame at a time by the camera's
//! [`warp::draw_frame`]. Only the thread count differs: the browser draws on one. Canvases and
//! depth fields come from [`crate::cache`] when the same photo was framed the same way lately.

use std::rc::Rc;

use stillreel_camera::depth::{DepthError, DepthField, DepthMap, DepthPolarity};
use stillreel_camera::draw::warp::{self, Canvas};
use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion, Pace, fnv1a, resolve_motion};
use stillreel_camera::input::canvas::canvas_yuv420p;
use stillreel_camera::input::orient::upright_size;
use stillreel_camera::input::{ExifOrientation, MediaFormat, sniff};
use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution};

use crate::cache::{self, CanvasKey, DepthKey, Field, Framed};

/// What decides one clip's frames, from the request and the preview's own size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipSpec {
    pub orientation: Orientation,
    /// The video's resolution: the `auto` motion is decided against its frame, as the server
    /// decides it.
    pub resolution: Resolution,
    /// The size the preview draws at (even, the video's aspect ratio).
    pub size: (u32, u32),
    pub engine: Engine,
    pub camera_motion: CameraMotion,
    pub fit: Fit,
    /// [`Pace::Through`] when the video asks for the speed ramp (the server paces its clips so).
    pub pace: Pace,
}

/// Why a clip cannot be previewed (the preview names it on the frame; the renderer may still
/// make the clip, through ffmpeg).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PreviewError {
    #[error("the preview draws JPEG and PNG photos; this file is {0}")]
    Format(String),
    #[error("the photo could not be decoded (or is over the in-process pixel limit)")]
    Undecodable,
    #[error("the preview size {0}x{1} is not even, or too small")]
    Size(u32, u32),
}

/// One clip, ready to draw any of its frames.
#[derive(Debug)]
pub struct ClipPreview {
    plan: ClipPlan,
    /// The framed canvas (always `Some` here; shared with the cache).
    framed: Rc<Framed>,
    /// The depth field, or why the map given is not used (the renderer's fallback note).
    field: Option<Rc<Field>>,
}

impl ClipPreview {
    /// The clip of `photo` (JPEG or PNG bytes) with an optional depth map (a grey PNG, as the
    /// server stores one), drawn at `spec.size`. `digest`: the `auto` rule's fingerprint
    /// (`fnv1a`) of the file as the server will fetch it: of the original when `photo` is the
    /// browser's PNG of a WebP, and computed once by a page that holds the file.
    pub fn new(
        photo: &[u8],
        digest: u64,
        depth: Option<(&[u8], DepthPolarity)>,
        spec: &ClipSpec,
    ) -> Result<Self, PreviewError> {
        let (width, height) = spec.size;
        if width < 16 || height < 16 || width % 2 == 1 || height % 2 == 1 {
            return Err(PreviewError::Size(width, height));
        }
        let format = sniff(photo).ok_or_else(|| PreviewError::Format("not a picture".into()))?;
        if !matches!(format, MediaFormat::Jpeg | MediaFormat::Png) {
            return Err(PreviewError::Format(format!("{format:?}")));
        }
        let orientation = ExifOrientation::read(photo);
        let upright = upright_size(photo, format, orientation).ok_or(PreviewError::Undecodable)?;
        let video_frame = spec.resolution.dimensions(spec.orientation);
        let motion = resolve_motion(
            spec.camera_motion,
            spec.engine,
            upright,
            video_frame,
            spec.fit,
            digest,
        );
        let plan = ClipPlan {
            width,
            height,
            ..ClipPlan::new(spec.orientation, spec.resolution, spec.engine, motion)
        }
        .with_pace(spec.pace);
        let key = CanvasKey {
            digest,
            len: photo.len(),
            size: spec.size,
            fit: spec.fit,
        };
        let framed = cache::canvas(key, || {
            let (bytes, placement) =
                canvas_yuv420p(photo, format, orientation, width, height, spec.fit)?;
            let canvas = Canvas::from_yuv420p(width, height, &bytes).ok()?;
            Some((canvas, placement))
        });
        if framed.is_none() {
            return Err(PreviewError::Undecodable);
        }
        // The renderer reads a depth map only on v25 (the flat camera otherwise).
        let depth = depth.filter(|_| spec.engine == Engine::V25);
        let field = depth.map(|(png, polarity)| {
            let depth_key = DepthKey {
                canvas: key,
                digest: fnv1a(png),
                len: png.len(),
                polarity,
            };
            cache::field(depth_key, || {
                let (canvas, placement) = framed.as_ref().as_ref().expect("framed");
                let map = checked_depth(png, polarity, upright).map_err(|e| e.to_string())?;
                Ok(DepthField::prepare_placed(
                    &map,
                    (width, height),
                    Some(&canvas.guide()),
                    Some(placement),
                ))
            })
        });
        Ok(ClipPreview {
            plan,
            framed,
            field,
        })
    }

    pub fn motion(&self) -> Motion {
        self.plan.motion
    }

    /// Whether the frames are bent by a depth map (engine v25 with a usable map).
    pub fn has_depth(&self) -> bool {
        self.depth_field().is_some() && self.plan.engine == Engine::V25
    }

    fn depth_field(&self) -> Option<&DepthField> {
        self.field.as_deref().and_then(|f| f.as_ref().ok())
    }

    pub fn depth_note(&self) -> Option<&str> {
        self.field
            .as_deref()
            .and_then(|f| f.as_ref().err())
            .map(String::as_str)
    }

    /// Draws frame `n` (clamped to the clip) into `out`, yuv420p. A model makes a generative
    /// clip: the preview holds its first frame (the photo as framed) rather than invent motion.
    pub fn draw_yuv(&self, n: u32, out: &mut [u8]) {
        let n = if self.plan.engine.is_generative() {
            0
        } else {
            n.min(self.plan.frames.saturating_sub(1))
        };
        let (canvas, _) = self.framed.as_ref().as_ref().expect("framed");
        warp::draw_frame(&self.plan, canvas, self.depth_field(), n, 1, out);
    }
}

/// The depth map as the renderer's clip step checks it: decoded, of the photo's aspect,
/// turned to its polarity and found usable.
fn checked_depth(
    png: &[u8],
    polarity: DepthPolarity,
    upright: (u32, u32),
) -> Result<DepthMap, DepthError> {
    let map = DepthMap::from_png(png)?;
    map.check_aspect(upright)?;
    let map = map.with_polarity(polarity);
    map.check_usable()?;
    Ok(map)
}
