//! One clip's frames in the preview: made by the camera's one call for a clip
//! ([`stillreel_camera::clip::Clip`]), the call the renderer's clip step makes, then drawn one
//! frame at a time. Only the thread count differs: the browser draws on one. The framed
//! picture comes from [`crate::cache`] when the same photo was framed the same way lately.

use stillreel_camera::clip::{Clip, DepthPng, InProcessOnly, Photo};
use stillreel_camera::depth::DepthPolarity;
use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion, Pace, fnv1a, resolve_motion};
use stillreel_camera::input::ExifOrientation;
use stillreel_camera::input::orient::upright_size;
use stillreel_core::media::{MediaFormat, sniff};
use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution};

use crate::cache::{self, PictureKey};

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
    clip: Clip,
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
        // The renderer reads a depth map only on v25 (the flat camera otherwise).
        let depth = depth.filter(|_| spec.engine == Engine::V25);
        let key = PictureKey {
            digest,
            len: photo.len(),
            size: spec.size,
            fit: spec.fit,
            depth: depth.map(|(png, polarity)| (fnv1a(png), png.len(), polarity)),
        };
        let picture = cache::picture(key, || {
            let photo = Photo {
                bytes: photo,
                format,
                orientation,
                upright: Some(upright),
            };
            let depth = depth.map(|(png, polarity)| DepthPng { png, polarity });
            Clip::new(&photo, spec.fit, plan, depth, &mut InProcessOnly)
                .ok()
                .map(|clip| clip.picture().clone())
        });
        match picture.as_ref() {
            Some(picture) => Ok(ClipPreview {
                clip: Clip::over(picture.clone(), plan),
            }),
            None => Err(PreviewError::Undecodable),
        }
    }

    pub fn motion(&self) -> Motion {
        self.clip.plan().motion
    }

    /// Whether the frames are bent by a depth map (engine v25 with a usable map).
    pub fn has_depth(&self) -> bool {
        self.clip.depth().is_some() && self.clip.plan().engine == Engine::V25
    }

    pub fn depth_note(&self) -> Option<String> {
        self.clip.depth_note()
    }

    /// Draws frame `n` (clamped to the clip) into `out`, yuv420p. A model makes a generative
    /// clip: the preview holds its first frame (the photo as framed) rather than invent motion.
    pub fn draw_yuv(&self, n: u32, out: &mut [u8]) {
        let plan = self.clip.plan();
        let n = if plan.engine.is_generative() {
            0
        } else {
            n.min(plan.frames.saturating_sub(1))
        };
        self.clip.draw_frame(n, 1, out);
    }
}
