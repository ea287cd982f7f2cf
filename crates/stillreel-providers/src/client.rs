//! One configured role as a client ([`RoleClient`]), every configured role ([`Providers`]),
//! and the checks every answer passes before the renderer touches it: a model's answer is
//! untrusted input, like a user's media.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use stillreel_core::{CameraMotion, Vfx, VfxType};

use super::error::ProviderError;
use super::health::{self, Health, HealthBoard};
use super::http::{Driver, MAX_ANSWER_BYTES};
use super::prompt::{self, InputFacts, PromptFacts};
use super::role::{OutputKind, Protocol, ProviderRoles, Role, RoleConfig};
use super::stillreel::{OutputSpec, Provider, ProviderConfig, ProviderOutput, ProviderSetupError};
use super::{openai, replicate};
use stillreel_camera::depth::DepthMap;
use stillreel_core::media::{MediaClass, MediaFormat, sniff};

/// The largest picture a model may answer, in pixels (as for a user's photo).
pub const MAX_ANSWER_PIXELS: u64 = stillreel_core::limits::MAX_IMAGE_PIXELS;

/// What one call is about.
#[derive(Debug, Clone, Copy)]
pub struct RoleRequest<'a> {
    /// The photo, as stored after the checks of user media.
    pub image: &'a [u8],
    pub format: MediaFormat,
    /// The photo's width and height (upright).
    pub size: (u32, u32),
    /// The clip's effect (the prompt's room, style, people).
    pub vfx: Option<&'a Vfx>,
    pub motion: CameraMotion,
    pub output: OutputSpec,
}

/// One role's client.
#[derive(Debug, Clone)]
pub struct RoleClient {
    config: RoleConfig,
    http: reqwest::Client,
    health: HealthBoard,
}

impl RoleClient {
    pub fn new(config: RoleConfig) -> Result<Self, ProviderSetupError> {
        // reqwest is built without a bundled crypto provider (see fetch); use ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::limited(3))
            .no_proxy()
            .build()
            .map_err(|e| ProviderSetupError::Client(e.to_string()))?;
        Ok(RoleClient {
            config,
            http,
            health: HealthBoard::default(),
        })
    }

    pub fn config(&self) -> &RoleConfig {
        &self.config
    }

    /// The role's health as last seen (by a call, or by [`RoleClient::check_health`]).
    pub fn health(&self) -> Health {
        self.health.get()
    }

    /// Asks a Cog container for its health once, within `limit`, and keeps the answer (what
    /// the server logs at start-up). Other protocols have no health check: `unchecked`.
    pub async fn check_health(&self, limit: Duration) -> Health {
        if self.config.protocol != Protocol::Cog {
            return self.health.get();
        }
        let driver = Driver::new(self.http.clone(), limit);
        let state = match driver.send(&replicate::health_check(&self.config)).await {
            Ok(answer) => {
                health::parse(&answer, self.config.token.as_deref()).unwrap_or(Health::Unknown)
            }
            Err(ProviderError::TimedOut(_)) => Health::Unknown,
            Err(_) => Health::Unreachable,
        };
        self.health.set(state.clone());
        state
    }

    /// The parameters that decide the answer besides the picture (for the result cache): the
    /// protocol, model, prompt and filled input template, without the picture.
    pub fn parameters(&self, request: &RoleRequest<'_>) -> String {
        let prompt = self.prompt(request);
        let input = self.input(request, "{{image}}", &prompt);
        format!(
            "{}|{}|{}|{}x{}|{}",
            self.config.protocol.as_str(),
            self.config.model_label(),
            prompt,
            request.output.width,
            request.output.height,
            serde_json::Value::Object(input)
        )
    }

    fn prompt(&self, request: &RoleRequest<'_>) -> String {
        prompt::build_prompt(
            self.config.role,
            self.config.prompt.as_deref(),
            PromptFacts {
                vfx: request.vfx,
                motion: request.motion,
            },
        )
    }

    fn input(
        &self,
        request: &RoleRequest<'_>,
        image: &str,
        prompt: &str,
    ) -> serde_json::Map<String, serde_json::Value> {
        let template = self
            .config
            .input
            .clone()
            .unwrap_or_else(|| prompt::default_input(self.config.role));
        prompt::build_input(
            &template,
            &InputFacts {
                image,
                prompt,
                width: request.output.width,
                height: request.output.height,
                seconds: request.output.seconds,
                fps: request.output.fps,
            },
        )
    }

    /// Makes the role's output for `request`, checked (see [`check_answer`]).
    pub async fn call(&self, request: &RoleRequest<'_>) -> Result<ProviderOutput, ProviderError> {
        let kind = self.config.role.output();
        let driver = Driver::new(self.http.clone(), self.config.timeout);
        let prompt = self.prompt(request);
        // What the host labelled its answer is not used: `check_answer` reads the bytes.
        let bytes = match self.config.protocol {
            Protocol::Replicate | Protocol::Cog => {
                let image = format!(
                    "data:{};base64,{}",
                    media_type(request.format),
                    BASE64.encode(request.image)
                );
                let input = self.input(request, &image, &prompt);
                replicate::run(&driver, &self.config, input, kind, &self.health)
                    .await?
                    .0
            }
            Protocol::OpenAi => {
                let edit = openai::Edit {
                    image: request.image,
                    format: request.format,
                    prompt: &prompt,
                    mask: None,
                    width: request.size.0,
                    height: request.size.1,
                };
                openai::run(&driver, &self.config, &edit).await?
            }
            Protocol::Stillreel => {
                return self.stillreel(request).await;
            }
        };
        check_answer(kind, bytes, request.size)
    }

    /// Today's contract: one request per call, the effect named in it.
    async fn stillreel(&self, request: &RoleRequest<'_>) -> Result<ProviderOutput, ProviderError> {
        let provider = Provider::new(ProviderConfig {
            url: self.config.url.clone(),
            token: self.config.token.clone(),
            timeout: self.config.timeout,
        })
        .map_err(|_| ProviderError::Unreachable)?;
        let fallback;
        let vfx = match request.vfx {
            Some(v) => v,
            None => {
                let kind = self.config.role.vfx().unwrap_or(VfxType::VirtualStaging);
                fallback = Vfx::plain(kind).ok_or(ProviderError::NotConfigured(kind))?;
                &fallback
            }
        };
        provider
            .process(vfx, request.image, request.format, request.output)
            .await
    }
}

fn media_type(format: MediaFormat) -> &'static str {
    match format {
        MediaFormat::Png => "image/png",
        MediaFormat::Webp => "image/webp",
        _ => "image/jpeg",
    }
}

/// The longest clip a model may answer (it is cut to the clip's 5 s; more is a wrong answer).
pub const MAX_ANSWER_CLIP_SECS: f64 = 120.0;

/// Checks a model's answer in full for what its role needs, before it is stored or used
/// (whatever the host labelled it). A still: a JPEG, PNG or WebP by its content, of a readable
/// size within the pixel limit. A clip: an MP4 whose movie header gives a duration above zero
/// and at most [`MAX_ANSWER_CLIP_SECS`] (it is then conformed by the clip render). A depth
/// map: a grey PNG (one channel, or three equal ones; a colourised one refused) at the aspect
/// ratio of the upright `photo`.
pub fn check_answer(
    kind: OutputKind,
    bytes: Vec<u8>,
    photo: (u32, u32),
) -> Result<ProviderOutput, ProviderError> {
    if bytes.len() > MAX_ANSWER_BYTES {
        return Err(ProviderError::Invalid("the answer is too large".into()));
    }
    match kind {
        OutputKind::Still => {
            let format = sniff(&bytes)
                .filter(|f| f.class() == MediaClass::Image)
                .ok_or_else(|| {
                    ProviderError::Invalid("the answer is not a JPEG, PNG or WebP picture".into())
                })?;
            let size = imagesize::blob_size(&bytes)
                .map_err(|_| ProviderError::Invalid("the picture's size is unreadable".into()))?;
            let pixels = (size.width as u64).saturating_mul(size.height as u64);
            if pixels > MAX_ANSWER_PIXELS || pixels == 0 {
                return Err(ProviderError::Invalid(format!(
                    "the picture is {}x{}, over the pixel limit",
                    size.width, size.height
                )));
            }
            Ok(ProviderOutput::Image { bytes, format })
        }
        OutputKind::Clip => {
            if bytes.get(4..8) != Some(b"ftyp") {
                return Err(ProviderError::Invalid(
                    "the answer is not an MP4 clip".into(),
                ));
            }
            match super::mp4::duration_secs(&bytes) {
                Some(secs) if secs > 0.0 && secs <= MAX_ANSWER_CLIP_SECS => {
                    Ok(ProviderOutput::Clip { bytes })
                }
                Some(secs) => Err(ProviderError::Invalid(format!(
                    "the clip lasts {secs:.1} s (at most {MAX_ANSWER_CLIP_SECS:.0} s, above 0)"
                ))),
                None => Err(ProviderError::Invalid(
                    "the clip's duration is unreadable (no movie header)".into(),
                )),
            }
        }
        OutputKind::DepthMap => {
            let invalid =
                |e: stillreel_camera::depth::DepthError| ProviderError::Invalid(e.to_string());
            DepthMap::from_png(&bytes)
                .map_err(invalid)?
                .check_aspect(photo)
                .map_err(invalid)?;
            Ok(ProviderOutput::Image {
                bytes,
                format: MediaFormat::Png,
            })
        }
    }
}

/// Every configured role's client.
#[derive(Debug, Clone, Default)]
pub struct Providers {
    roles: ProviderRoles,
    clients: BTreeMap<Role, RoleClient>,
}

impl Providers {
    /// Clients for `roles`.
    pub fn new(roles: ProviderRoles) -> Result<Self, ProviderSetupError> {
        let clients = roles
            .iter()
            .map(|c| Ok((c.role, RoleClient::new(c.clone())?)))
            .collect::<Result<_, ProviderSetupError>>()?;
        Ok(Providers { roles, clients })
    }

    pub fn get(&self, role: Role) -> Option<&RoleClient> {
        self.clients.get(&role)
    }

    pub fn roles(&self) -> &ProviderRoles {
        &self.roles
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, color: png::ColorType, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("header");
        writer.write_image_data(pixels).expect("data");
        drop(writer);
        out
    }

    #[test]
    fn answers_are_untrusted() {
        let grey = png(
            4,
            2,
            png::ColorType::Grayscale,
            &[0, 40, 80, 120, 160, 200, 240, 255],
        );
        assert!(matches!(
            check_answer(OutputKind::Still, grey.clone(), (4, 2)),
            Ok(ProviderOutput::Image {
                format: MediaFormat::Png,
                ..
            })
        ));
        // HTML labelled PNG.
        assert!(matches!(
            check_answer(OutputKind::Still, b"<html>nope</html>".to_vec(), (4, 2)),
            Err(ProviderError::Invalid(_))
        ));
        assert!(check_answer(OutputKind::DepthMap, grey.clone(), (4000, 2000)).is_ok());
        // The right map for another photo: refused before it is stored.
        let wrong = check_answer(OutputKind::DepthMap, grey, (1080, 1920)).expect_err("aspect");
        assert!(wrong.to_string().contains("aspect ratio"), "{wrong}");
        let rgb: Vec<u8> = (0..8).flat_map(|i| [i * 30, 255 - i * 30, 7]).collect();
        let colour = png(4, 2, png::ColorType::Rgb, &rgb);
        let err = check_answer(OutputKind::DepthMap, colour, (4, 2)).expect_err("colourised");
        assert!(err.to_string().contains("colourised"), "{err}");
        let photo = (1920, 1080);
        assert!(
            check_answer(
                OutputKind::Clip,
                super::super::mp4::tests::movie(1000, 5000),
                photo
            )
            .is_ok()
        );
        for (scale, duration) in [(1000, 0), (1, 121)] {
            let e = check_answer(
                OutputKind::Clip,
                super::super::mp4::tests::movie(scale, duration),
                photo,
            )
            .expect_err("duration");
            assert!(e.to_string().contains("lasts"), "{e}");
        }
        let headless = b"\0\0\0\x18ftypmp42rest".to_vec();
        assert!(check_answer(OutputKind::Clip, headless, photo).is_err());
        assert!(check_answer(OutputKind::Clip, b"GIF89a".to_vec(), photo).is_err());
        assert!(check_answer(OutputKind::Still, vec![0; MAX_ANSWER_BYTES + 1], photo).is_err());
    }
}
