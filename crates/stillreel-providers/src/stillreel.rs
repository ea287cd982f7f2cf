//! The `stillreel` provider protocol (stillreel's own JSON contract, one of the four a role may
//! speak, see `role.rs`), and the error and output types every protocol shares: an HTTP
//! service (run by the operator or a vendor) that turns a still into a processed still or a
//! short clip for `virtual-staging`, `lifestyle` and `spin-ceiling-fan`, which need a model
//! stillreel cannot run. The JSON contract is in `docs/EFFECTS.md` ("Generative provider").
//!
//! Configured by three settings, which the server reads with the rest of its configuration and
//! hands to [`ProviderConfig::from_values`]: `STILLREEL_PROVIDER_URL` (the endpoint, `http` or
//! `https`), `STILLREEL_PROVIDER_TOKEN` (sent as `Authorization: Bearer`), and
//! `STILLREEL_PROVIDER_TIMEOUT_SECS` (default 120). Without a URL the three types are
//! unavailable (`/get_engines` omits them and requests get `vfx_unavailable`).
//!
//! The provider is the operator's own choice, so the public-address rule for user media does not
//! apply to it; its answers are still checked like user media (size limit, sniffed format).

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use stillreel_core::{Vfx, VfxType};

use super::error::ProviderError;
use super::http::{Driver, Exchange, MAX_ANSWER_BYTES, Method};
use stillreel_core::media::{MediaClass, MediaFormat, sniff};

/// Default time one provider call may take.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// Where the provider is and how to call it.
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    pub url: String,
    pub token: Option<String>,
    pub timeout: Duration,
}

/// The token never reaches a log line.
impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ProviderConfig {
    /// From the values of `STILLREEL_PROVIDER_URL`, `STILLREEL_PROVIDER_TOKEN` and
    /// `STILLREEL_PROVIDER_TIMEOUT_SECS` (the server's `Config` reads them). `Ok(None)` when no
    /// URL is set (or it is empty).
    pub fn from_values(
        url: Option<&str>,
        token: Option<&str>,
        timeout_secs: Option<&str>,
    ) -> Result<Option<ProviderConfig>, ProviderSetupError> {
        let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
            return Ok(None);
        };
        let parsed = reqwest::Url::parse(url).map_err(|e| ProviderSetupError::NotAUrl {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(ProviderSetupError::NotHttp(url.to_owned()));
        }
        let timeout = match timeout_secs.map(str::trim).filter(|t| !t.is_empty()) {
            None => DEFAULT_TIMEOUT_SECS,
            Some(t) => t
                .parse::<u64>()
                .ok()
                // The same bounds as a role's own `_TIMEOUT_SECS`.
                .filter(|s| (1..=3600).contains(s))
                .ok_or_else(|| ProviderSetupError::BadTimeout(t.to_owned()))?,
        };
        Ok(Some(ProviderConfig {
            url: url.to_owned(),
            token: token
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            timeout: Duration::from_secs(timeout),
        }))
    }
}

/// Why the provider cannot be set up: a bad `STILLREEL_PROVIDER_*` setting, or an HTTP client
/// that could not be built. Raised at start-up, never by a render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderSetupError {
    #[error("STILLREEL_PROVIDER_URL {url:?} is not a URL: {reason}")]
    NotAUrl { url: String, reason: String },
    #[error("STILLREEL_PROVIDER_URL {0:?} must be an http or https URL with a host")]
    NotHttp(String),
    #[error(
        "STILLREEL_PROVIDER_TIMEOUT_SECS {0:?} is not a whole number of seconds from 1 to 3600"
    )]
    BadTimeout(String),
    #[error("provider client: {0}")]
    Client(String),
}

/// What the provider made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderOutput {
    /// A processed still (JPEG, PNG or WebP); the clip is made from it with the camera motion.
    Image { bytes: Vec<u8>, format: MediaFormat },
    /// A finished clip (MP4); it is conformed to the video's size, rate and 5 s.
    Clip { bytes: Vec<u8> },
}

/// The request body (contract version 1).
#[derive(Debug, Serialize)]
struct Request<'a> {
    version: u32,
    effect: VfxType,
    config: serde_json::Value,
    image: Media<'a>,
    output: OutputSpec,
}

#[derive(Debug, Serialize)]
struct Media<'a> {
    media_type: &'a str,
    data: String,
}

/// What the clip will be, so a provider can size its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OutputSpec {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub seconds: u32,
}

#[derive(Debug, Deserialize)]
struct Answer {
    kind: String,
    media_type: String,
    data: String,
}

#[derive(Debug, Deserialize)]
struct ErrorAnswer {
    error: ErrorBody,
}

#[derive(Debug, Deserialize)]
struct ErrorBody {
    code: Option<String>,
    message: Option<String>,
}

/// A configured provider client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Provider {
    config: ProviderConfig,
    client: reqwest::Client,
}

impl Provider {
    pub fn new(config: ProviderConfig) -> Result<Provider, ProviderSetupError> {
        // reqwest is built without a bundled crypto provider (see fetch); use ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| ProviderSetupError::Client(e.to_string()))?;
        Ok(Provider { config, client })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Sends `image` (as fetched) with the effect and its config; returns the checked answer.
    pub async fn process(
        &self,
        vfx: &Vfx,
        image: &[u8],
        format: MediaFormat,
        output: OutputSpec,
    ) -> Result<ProviderOutput, ProviderError> {
        let config = serde_json::to_value(vfx)
            .ok()
            .and_then(|v| v.get("config").cloned())
            .unwrap_or(serde_json::Value::Null);
        let body = Request {
            version: 1,
            effect: vfx.kind(),
            config,
            image: Media {
                media_type: media_type(format),
                data: BASE64.encode(image),
            },
            output,
        };
        let body = serde_json::to_vec(&body).map_err(|e| ProviderError::Invalid(e.to_string()))?;
        let exchange = Exchange {
            method: Method::Post,
            url: self.config.url.clone(),
            headers: vec![
                ("content-type", "application/json".to_owned()),
                ("accept", "application/json".to_owned()),
            ],
            body,
        }
        .bearer(self.config.token.as_deref());
        // One request, no retry: the contract's host answers or fails, and the job retries.
        let answer = Driver::new(self.client.clone(), self.config.timeout)
            .send(&exchange)
            .await?;
        let (status, bytes) = (answer.status, answer.body);
        if !(200..300).contains(&status) {
            let parsed: Option<ErrorAnswer> = serde_json::from_slice(&bytes).ok();
            let (code, message) = match parsed {
                Some(ErrorAnswer { error }) => (
                    error.code.map(|c| c.chars().take(64).collect()),
                    error
                        .message
                        .unwrap_or_default()
                        .chars()
                        .take(200)
                        .collect(),
                ),
                None => (None, String::from("no error details")),
            };
            return Err(ProviderError::Refused {
                status,
                code,
                message,
            });
        }
        decode_answer(&bytes)
    }
}

/// Checks a 2xx answer against the contract.
pub fn decode_answer(bytes: &[u8]) -> Result<ProviderOutput, ProviderError> {
    let answer: Answer = serde_json::from_slice(bytes)
        .map_err(|_| ProviderError::Invalid("not the JSON object of the contract".into()))?;
    if answer.data.len() / 4 * 3 > MAX_ANSWER_BYTES {
        return Err(ProviderError::Invalid("answer is too large".into()));
    }
    let data = BASE64
        .decode(answer.data.as_bytes())
        .map_err(|_| ProviderError::Invalid("data is not base64".into()))?;
    match answer.kind.as_str() {
        "image" => {
            let format = sniff(&data)
                .filter(|f| f.class() == MediaClass::Image)
                .ok_or_else(|| {
                    ProviderError::Invalid("data is not a JPEG, PNG or WebP image".into())
                })?;
            if imagesize::blob_size(&data).is_err() {
                return Err(ProviderError::Invalid("image size unreadable".into()));
            }
            // `media_type` is informative for images: the content decides.
            Ok(ProviderOutput::Image {
                bytes: data,
                format,
            })
        }
        "clip" => {
            if data.get(4..8) != Some(b"ftyp") || answer.media_type != "video/mp4" {
                return Err(ProviderError::Invalid("clip is not an MP4".into()));
            }
            Ok(ProviderOutput::Clip { bytes: data })
        }
        other => Err(ProviderError::Invalid(format!(
            "unknown kind {:?}",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

fn media_type(format: MediaFormat) -> &'static str {
    match format {
        MediaFormat::Jpeg => "image/jpeg",
        MediaFormat::Png => "image/png",
        MediaFormat::Webp => "image/webp",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_from_values() {
        assert_eq!(ProviderConfig::from_values(None, None, None), Ok(None));
        assert_eq!(
            ProviderConfig::from_values(Some("  "), Some("t"), None),
            Ok(None)
        );
        let c = ProviderConfig::from_values(
            Some("http://127.0.0.1:9/v1/process"),
            Some("tok"),
            Some("7"),
        )
        .expect("valid")
        .expect("some");
        assert_eq!(c.timeout, Duration::from_secs(7));
        assert_eq!(c.token.as_deref(), Some("tok"));
        assert!(!format!("{c:?}").contains("tok\""), "token redacted: {c:?}");
        assert_eq!(
            ProviderConfig::from_values(Some("ftp://x/"), None, None),
            Err(ProviderSetupError::NotHttp("ftp://x/".into()))
        );
        assert!(matches!(
            ProviderConfig::from_values(Some("nope"), None, None),
            Err(ProviderSetupError::NotAUrl { .. })
        ));
        assert_eq!(
            ProviderConfig::from_values(Some("http://x/"), None, Some("0")),
            Err(ProviderSetupError::BadTimeout("0".into()))
        );
        let d = ProviderConfig::from_values(Some("https://p.example/"), None, None)
            .expect("ok")
            .expect("some");
        assert_eq!(d.timeout, Duration::from_secs(DEFAULT_TIMEOUT_SECS));
    }

    #[test]
    fn answers_are_checked() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x02\0\0\0\x02\x08\x02\0\0\0";
        let ok = format!(
            r#"{{"kind":"image","media_type":"image/png","data":"{}"}}"#,
            BASE64.encode(png)
        );
        assert!(matches!(
            decode_answer(ok.as_bytes()),
            Ok(ProviderOutput::Image {
                format: MediaFormat::Png,
                ..
            })
        ));
        for bad in [
            "garbage".to_owned(),
            r#"{"kind":"image","media_type":"image/png","data":"!!"}"#.to_owned(),
            format!(
                r#"{{"kind":"image","media_type":"image/png","data":"{}"}}"#,
                BASE64.encode(b"<html>")
            ),
            format!(
                r#"{{"kind":"clip","media_type":"video/mp4","data":"{}"}}"#,
                BASE64.encode(png)
            ),
            format!(
                r#"{{"kind":"poem","media_type":"text/plain","data":"{}"}}"#,
                BASE64.encode(png)
            ),
        ] {
            assert!(
                matches!(
                    decode_answer(bad.as_bytes()),
                    Err(ProviderError::Invalid(_))
                ),
                "{bad}"
            );
        }
        assert!(ProviderError::TimedOut(3).is_transient());
        assert!(!ProviderError::Invalid("x".into()).is_transient());
        assert!(
            ProviderError::Refused {
                status: 503,
                code: None,
                message: String::new()
            }
            .is_transient()
        );
    }
}
