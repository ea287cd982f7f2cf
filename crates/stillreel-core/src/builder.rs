//! Builders for both POST bodies that are valid by default, for tests and Rust clients.
//! A test breaks exactly one field of a valid body.

use uuid::Uuid;

use crate::types::{
    BrandingRequest, CameraMotion, CombineVideoClipsRequest, CreateVideoRequest, Engine, Fit,
    ImageInput, Orientation, Resolution, TemplateSlot, TemplateValue, Transition, Vfx,
};

/// Builds a `POST /create_video` body. `CreateVideoBuilder::new().build()` is valid: one image,
/// defaults everywhere else.
#[derive(Debug, Clone)]
pub struct CreateVideoBuilder {
    request: CreateVideoRequest,
}

impl Default for CreateVideoBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl CreateVideoBuilder {
    pub fn new() -> Self {
        Self {
            request: CreateVideoRequest {
                image_inputs: vec![image("https://example.com/listing/front.jpg")],
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                audio_url: None,
                transition: Transition::Cut,
                ai_engine: Engine::V25,
                project: None,
                branding: None,
                webhook_url: None,
                title: None,
            },
        }
    }

    /// Replaces the images with `count` distinct ones.
    pub fn images(mut self, count: usize) -> Self {
        self.request.image_inputs = (0..count)
            .map(|i| image(&format!("https://example.com/listing/{i}.jpg")))
            .collect();
        self
    }

    /// Replaces the images with one per URL (default motion, no effect).
    pub fn image_urls<S: AsRef<str>>(mut self, urls: impl IntoIterator<Item = S>) -> Self {
        self.request.image_inputs = urls.into_iter().map(|url| image(url.as_ref())).collect();
        self
    }

    /// Appends an image input.
    pub fn image(mut self, input: ImageInput) -> Self {
        self.request.image_inputs.push(input);
        self
    }

    /// Sets the camera motion of every image.
    pub fn motion(mut self, motion: CameraMotion) -> Self {
        for input in &mut self.request.image_inputs {
            input.camera_motion = motion;
        }
        self
    }

    /// Sets the effect of every image.
    pub fn vfx(mut self, vfx: Vfx) -> Self {
        for input in &mut self.request.image_inputs {
            input.vfx = Some(vfx.clone());
        }
        self
    }

    pub fn orientation(mut self, orientation: Orientation) -> Self {
        self.request.orientation = orientation;
        self
    }

    pub fn resolution(mut self, resolution: Resolution) -> Self {
        self.request.resolution = resolution;
        self
    }

    pub fn engine(mut self, engine: Engine) -> Self {
        self.request.ai_engine = engine;
        self
    }

    pub fn audio(mut self, url: &str) -> Self {
        self.request.audio_url = Some(url.to_owned());
        self
    }

    pub fn transition(mut self, transition: Transition) -> Self {
        self.request.transition = transition;
        self
    }

    pub fn webhook(mut self, url: &str) -> Self {
        self.request.webhook_url = Some(url.to_owned());
        self
    }

    pub fn title(mut self, title: &str) -> Self {
        self.request.title = Some(title.to_owned());
        self
    }

    pub fn project(mut self, project: Uuid) -> Self {
        self.request.project = Some(project);
        self
    }

    pub fn branding(mut self, branding: BrandingRequest) -> Self {
        self.request.branding = Some(branding);
        self
    }

    pub fn build(self) -> CreateVideoRequest {
        self.request
    }

    /// The body as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.request).unwrap_or_default()
    }
}

/// Builds a `POST /combine_video_clips` body; valid by default (two clips, 720p landscape).
#[derive(Debug, Clone)]
pub struct CombineBuilder {
    request: CombineVideoClipsRequest,
}

impl Default for CombineBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl CombineBuilder {
    pub fn new() -> Self {
        Self {
            request: CombineVideoClipsRequest {
                video_clip_uuids: vec![
                    Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8),
                    Uuid::from_u128(0x1f0e_2b6c_8d4a_4e3b_9c5d_2a1b_0c9d_8e7f),
                ],
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                audio_url: None,
                transition: Transition::Cut,
                project: None,
                branding: None,
                webhook_url: None,
                title: None,
            },
        }
    }

    pub fn clips(mut self, clips: Vec<Uuid>) -> Self {
        self.request.video_clip_uuids = clips;
        self
    }

    pub fn orientation(mut self, orientation: Orientation) -> Self {
        self.request.orientation = orientation;
        self
    }

    pub fn resolution(mut self, resolution: Resolution) -> Self {
        self.request.resolution = resolution;
        self
    }

    pub fn audio(mut self, url: &str) -> Self {
        self.request.audio_url = Some(url.to_owned());
        self
    }

    pub fn transition(mut self, transition: Transition) -> Self {
        self.request.transition = transition;
        self
    }

    pub fn webhook(mut self, url: &str) -> Self {
        self.request.webhook_url = Some(url.to_owned());
        self
    }

    pub fn title(mut self, title: &str) -> Self {
        self.request.title = Some(title.to_owned());
        self
    }

    pub fn project(mut self, project: Uuid) -> Self {
        self.request.project = Some(project);
        self
    }

    pub fn branding(mut self, branding: BrandingRequest) -> Self {
        self.request.branding = Some(branding);
        self
    }

    pub fn build(self) -> CombineVideoClipsRequest {
        self.request
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.request).unwrap_or_default()
    }
}

/// A realistic body of `count` images: push-in everywhere; day-to-twilight, word-drop and
/// shadows on three of every four images; full branding. The benchmark's and profiler's input.
pub fn showcase(count: usize) -> CreateVideoRequest {
    let mut request = CreateVideoBuilder::new()
        .images(count)
        .motion(CameraMotion::PushIn)
        .branding(full_branding())
        .build();
    for (i, input) in request.image_inputs.iter_mut().enumerate() {
        input.vfx = match i % 4 {
            0 => Some(Vfx::DayToTwilight),
            1 => Some(Vfx::WordDrop {
                config: crate::types::WordDropConfig {
                    text: "Just Listed €1.2".to_owned(),
                    color: crate::types::WordDropColor::Gold,
                },
            }),
            2 => Some(Vfx::Shadows),
            _ => None,
        };
    }
    request
}

/// An image input with the default motion and no effect.
pub fn image(url: &str) -> ImageInput {
    ImageInput {
        image_url: url.to_owned(),
        camera_motion: CameraMotion::Auto,
        vfx: None,
        fit: Fit::Auto,
        caption: None,
    }
}

/// A slot of `template` with text fields.
pub fn slot(template: &str, texts: &[(&str, &str)]) -> TemplateSlot {
    TemplateSlot {
        template: template.to_owned(),
        config: texts
            .iter()
            .map(|(k, v)| {
                (
                    (*k).to_owned(),
                    TemplateValue::Text {
                        value: (*v).to_owned(),
                    },
                )
            })
            .collect(),
    }
}

/// Branding that asks for the speed ramp only.
pub fn speed_ramp() -> BrandingRequest {
    BrandingRequest {
        speed_ramp: true,
        ..BrandingRequest::default()
    }
}

/// Branding with the built-in intro and outro filled in and the speed ramp on.
pub fn full_branding() -> BrandingRequest {
    BrandingRequest {
        intro: Some(slot(
            "intro-lower-third",
            &[("address", "12 Oak Lane"), ("agent_name", "Ana Díaz")],
        )),
        outro: Some(slot(
            "outro-contact-card",
            &[("agent_name", "Ana Díaz"), ("phone", "+1 555 0100")],
        )),
        speed_ramp: true,
        brand_kit: None,
    }
}
