//! `VideoPreview` for JavaScript: a validated `create_video` body and a frame size in, then
//! the photos one row at a time, then any frame of the video or of one clip drawn into a byte
//! buffer the page hands to its `<canvas>`. Values cross as JSON-compatible objects
//! (serde-wasm-bindgen); pixels cross as `&mut [u8]` views the glue copies back.

use serde::Serialize;
use stillreel_camera::depth::DepthPolarity;
use stillreel_camera::geometry::clip_plan::{Pace, fnv1a};
use stillreel_core::CreateVideoRequest;
use stillreel_core::catalog::builtin_templates;
use wasm_bindgen::prelude::*;

use crate::clip::{ClipPreview, ClipSpec};
use crate::overlay::{self, Fades, Overlays};
use crate::pixels::{blend_yuv, yuv_to_rgba};
use crate::timeline::{BrandTiming, Moment, Shot, Timeline};

/// One clip's state, as the page is told it.
#[derive(Debug, Serialize)]
struct ClipInfo {
    /// Whether the clip's frames can be drawn.
    ready: bool,
    /// The motion the camera makes (`auto` resolved as the server resolves it).
    motion: Option<&'static str>,
    /// Whether a depth map bends the frames.
    depth: bool,
    /// Why the clip is not drawn, or why its depth map is not used.
    note: Option<String>,
}

/// A frame of the video: what it shows and how opaque the overlays are.
#[derive(Debug, Serialize)]
struct FrameInfo {
    moment: Moment,
    fades: Fades,
}

/// The `auto` rule's fingerprint of a file (64-bit FNV-1a), as the server computes it: the page
/// computes it once per file it holds and passes it to `setPhoto`.
#[wasm_bindgen]
pub fn fingerprint(bytes: &[u8]) -> u64 {
    fnv1a(bytes)
}

/// The preview of one video.
#[wasm_bindgen]
#[derive(Debug)]
pub struct VideoPreview {
    request: CreateVideoRequest,
    size: (u32, u32),
    timeline: Timeline,
    clips: Vec<Option<Result<ClipPreview, String>>>,
    /// Frame buffers, kept between frames: the shown clip's, the next one's, the blend.
    a: Vec<u8>,
    b: Vec<u8>,
    mixed: Vec<u8>,
}

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_error)
}

#[wasm_bindgen]
impl VideoPreview {
    /// `body`: a `create_video` body as validation normalized it; `width` × `height`: the
    /// preview's size (even, the video's aspect ratio).
    #[wasm_bindgen(constructor)]
    pub fn new(body: JsValue, width: u32, height: u32) -> Result<VideoPreview, JsError> {
        let request: CreateVideoRequest = serde_wasm_bindgen::from_value(body).map_err(|e| {
            JsError::new(&format!(
                "the preview takes the body validation normalized (validateCreateVideo(...).normalized): {e}"
            ))
        })?;
        Self::from_request(request, width, height).map_err(|e| JsError::new(&e))
    }

    /// Frames of the previewed video (the branded render's when the body asks for branding).
    pub fn frames(&self) -> u32 {
        self.timeline.total_frames()
    }

    pub fn fps(&self) -> u32 {
        self.timeline.fps
    }

    /// Frames of one clip.
    #[wasm_bindgen(js_name = clipFrames)]
    pub fn clip_frames(&self) -> u32 {
        self.timeline.clip_frames
    }

    /// Bytes of one RGBA frame.
    #[wasm_bindgen(js_name = rgbaLength)]
    pub fn rgba_length(&self) -> usize {
        self.size.0 as usize * self.size.1 as usize * 4
    }

    /// Bytes of one yuv420p frame.
    #[wasm_bindgen(js_name = yuvLength)]
    pub fn yuv_length(&self) -> usize {
        self.a.len()
    }

    /// Gives clip `index` its photo (JPEG or PNG bytes) and optionally a depth map (grey PNG;
    /// `depth_darker_is_nearer` for a distance map). `digest`: [`fingerprint`] of the file as
    /// the server will fetch it (of the original, when `photo` is the browser's PNG of a WebP);
    /// computed here when left out. Returns the clip's state.
    #[wasm_bindgen(js_name = setPhoto)]
    pub fn set_photo(
        &mut self,
        index: u32,
        photo: &[u8],
        depth: Option<Vec<u8>>,
        depth_darker_is_nearer: Option<bool>,
        digest: Option<u64>,
    ) -> Result<JsValue, JsError> {
        let i = index as usize;
        let input = self
            .request
            .image_inputs
            .get(i)
            .ok_or_else(|| JsError::new(&format!("the body has no image_inputs[{i}]")))?;
        let spec = ClipSpec {
            orientation: self.request.orientation,
            resolution: self.request.resolution,
            size: self.size,
            engine: self.request.ai_engine,
            camera_motion: input.camera_motion,
            fit: input.fit,
            pace: self.pace(),
        };
        let polarity = if depth_darker_is_nearer == Some(true) {
            DepthPolarity::DarkerIsNearer
        } else {
            DepthPolarity::BrighterIsNearer
        };
        let made = ClipPreview::new(
            photo,
            digest.unwrap_or_else(|| fnv1a(photo)),
            depth.as_deref().map(|d| (d, polarity)),
            &spec,
        )
        .map_err(|e| e.to_string());
        self.clips[i] = Some(made);
        self.clip_info(index)
    }

    /// Clip `index`'s state.
    #[wasm_bindgen(js_name = clipInfo)]
    pub fn clip_info(&self, index: u32) -> Result<JsValue, JsError> {
        let info = match self.clips.get(index as usize) {
            Some(Some(Ok(clip))) => ClipInfo {
                ready: true,
                motion: Some(clip.motion().as_camera_motion().as_str()),
                depth: clip.has_depth(),
                note: clip
                    .depth_note()
                    .map(|n| format!("depth map not used: {n}")),
            },
            Some(Some(Err(e))) => ClipInfo {
                ready: false,
                motion: None,
                depth: false,
                note: Some(e.clone()),
            },
            _ => ClipInfo {
                ready: false,
                motion: None,
                depth: false,
                note: Some("no photo yet".to_owned()),
            },
        };
        to_js(&info)
    }

    /// The overlays of the whole video (captions, intro, outro, effect names), laid out.
    pub fn overlays(&self) -> Result<JsValue, JsError> {
        to_js(&self.overlay_data())
    }

    /// What frame `frame` of the video shows and the overlays' opacities on it.
    pub fn moment(&self, frame: u32) -> Result<JsValue, JsError> {
        let moment = self.timeline.at(frame);
        let frame = frame.min(self.frames().saturating_sub(1));
        to_js(&FrameInfo {
            fades: overlay::fades(
                &moment,
                frame,
                self.timeline.clip_frames,
                self.timeline.fps,
                self.timeline.transition,
            ),
            moment,
        })
    }

    /// `[first frame, frames]` of the music's fade-out (linear to silence, as the renderer's
    /// `afade`).
    #[wasm_bindgen(js_name = musicFade)]
    pub fn music_fade(&self) -> Vec<u32> {
        let (start, frames) = self.timeline.music_fade();
        vec![start, frames]
    }

    /// A caption's opacity at frame `n` of its clip (the renderer's fade).
    #[wasm_bindgen(js_name = captionAlpha)]
    pub fn caption_alpha(&self, n: u32) -> f64 {
        overlay::caption_alpha(n, self.timeline.clip_frames, self.timeline.fps)
    }

    /// Draws frame `frame` of the video into `out` (RGBA). A clip without a drawable photo,
    /// and the outro card, are left black for the page to draw over.
    #[wasm_bindgen(js_name = drawFrame)]
    pub fn draw_frame(&mut self, frame: u32, out: &mut [u8]) -> Result<(), JsError> {
        self.check_rgba(out)?;
        match self.timeline.at(frame) {
            Moment::Outro { .. } => black(out),
            Moment::Clips {
                shot,
                next,
                progress,
                ..
            } => {
                let drew_a = self.draw_shot(shot, true);
                let drew_b = next.is_some_and(|s| self.draw_shot(s, false));
                let transition = self.timeline.transition;
                match (drew_a, next.is_some() && drew_b) {
                    (true, true) => {
                        blend_yuv(
                            transition,
                            progress,
                            &self.a,
                            &self.b,
                            self.size,
                            &mut self.mixed,
                        );
                        yuv_to_rgba(&self.mixed, self.size, out);
                    }
                    (true, false) => yuv_to_rgba(&self.a, self.size, out),
                    (false, true) => yuv_to_rgba(&self.b, self.size, out),
                    (false, false) => black(out),
                }
            }
        }
        Ok(())
    }

    /// Draws frame `n` of clip `index` into `out` (RGBA). Returns whether the clip drew.
    #[wasm_bindgen(js_name = drawClipFrame)]
    pub fn draw_clip_frame(&mut self, index: u32, n: u32, out: &mut [u8]) -> Result<bool, JsError> {
        self.check_rgba(out)?;
        let drew = self.draw_shot(
            Shot {
                clip: index,
                frame: n,
            },
            true,
        );
        if drew {
            yuv_to_rgba(&self.a, self.size, out);
        } else {
            black(out);
        }
        Ok(drew)
    }

    /// Draws frame `n` of clip `index` into `out` as yuv420p: the bytes the renderer hands its
    /// encoder (the same-pixels tests compare these).
    #[wasm_bindgen(js_name = drawClipYuv)]
    pub fn draw_clip_yuv(&mut self, index: u32, n: u32, out: &mut [u8]) -> Result<bool, JsError> {
        if out.len() != self.a.len() {
            return Err(JsError::new(&format!(
                "the yuv420p buffer must hold {} bytes, not {}",
                self.a.len(),
                out.len()
            )));
        }
        match self.clips.get(index as usize) {
            Some(Some(Ok(clip))) => {
                clip.draw_yuv(n, out);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

impl VideoPreview {
    /// The preview of `request` at `width` × `height`.
    pub fn from_request(
        request: CreateVideoRequest,
        width: u32,
        height: u32,
    ) -> Result<VideoPreview, String> {
        if width < 16
            || height < 16
            || width % 2 == 1
            || height % 2 == 1
            || width > 3840
            || height > 3840
        {
            return Err(format!(
                "the preview size {width}x{height} must be even, from 16 to 3840 on each side"
            ));
        }
        let branding = request.branding.as_ref();
        let brand = BrandTiming {
            intro: branding.is_some_and(|b| b.intro.is_some()),
            outro: branding.is_some_and(|b| b.outro.is_some()),
            speed_ramp: branding.is_some_and(|b| b.speed_ramp),
        };
        let clips = u32::try_from(request.image_inputs.len()).unwrap_or(u32::MAX);
        let timeline = Timeline::new(clips, request.transition, brand);
        let len = stillreel_camera::draw::warp::frame_bytes(width, height);
        Ok(VideoPreview {
            clips: (0..request.image_inputs.len()).map(|_| None).collect(),
            request,
            size: (width, height),
            timeline,
            a: vec![0; len],
            b: vec![0; len],
            mixed: vec![0; len],
        })
    }

    /// How the server paces this video's clips: through their ends when the ramp will show
    /// (asked for, and two or more clips: the server records `speed_ramp` only then).
    fn pace(&self) -> Pace {
        let ramp = self.request.branding.as_ref().is_some_and(|b| b.speed_ramp);
        if ramp && self.request.image_inputs.len() >= 2 {
            Pace::Through
        } else {
            Pace::Engine
        }
    }

    pub fn overlay_data(&self) -> Overlays {
        overlay::overlays(&self.request, builtin_templates(), self.size)
    }

    /// Draws `shot` into the first (or second) buffer; false when its clip has no frames.
    fn draw_shot(&mut self, shot: Shot, first: bool) -> bool {
        let Some(Some(Ok(clip))) = self.clips.get(shot.clip as usize) else {
            return false;
        };
        let out = if first { &mut self.a } else { &mut self.b };
        clip.draw_yuv(shot.frame, out);
        true
    }

    fn check_rgba(&self, out: &[u8]) -> Result<(), JsError> {
        if out.len() == self.rgba_length() {
            Ok(())
        } else {
            Err(JsError::new(&format!(
                "the RGBA buffer must hold {} bytes, not {}",
                self.rgba_length(),
                out.len()
            )))
        }
    }
}

fn black(out: &mut [u8]) {
    for px in out.chunks_exact_mut(4) {
        px.copy_from_slice(&[0, 0, 0, 255]);
    }
}
