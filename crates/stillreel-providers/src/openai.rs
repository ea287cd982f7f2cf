//! OpenAI-compatible image edits (OpenAI itself, or a LiteLLM proxy in front of other image
//! models): `POST {base}/v1/images/edits`, a multipart form (`model`, `image`, `prompt`,
//! optional `mask`, `size`, `n`), `Authorization: Bearer`; the answer's `data[0].b64_json`
//! (or `data[0].url`, downloaded at once) is the edited picture. The form is built here by
//! hand (a few parts, no streaming), which keeps it a pure, testable function.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use super::error::ProviderError;
use super::http::{Answer, Driver, Exchange, safe_message};
use super::role::{Model, RoleConfig};
use stillreel_core::media::MediaFormat;

/// What one edit sends.
#[derive(Debug, Clone, Copy)]
pub struct Edit<'a> {
    pub image: &'a [u8],
    pub format: MediaFormat,
    pub prompt: &'a str,
    /// A PNG whose transparent pixels mark where to edit; none: the model decides.
    pub mask: Option<&'a [u8]>,
    /// The photo's width and height, to pick the output size nearest its shape.
    pub width: u32,
    pub height: u32,
}

/// The size to ask for: the `gpt-image` models take a landscape, portrait or square size
/// (the clip is cover-cropped from it); other models get no size (their default).
pub fn size_for(model: &str, width: u32, height: u32) -> Option<&'static str> {
    if !model.starts_with("gpt-image") {
        return None;
    }
    let (w, h) = (u64::from(width), u64::from(height));
    Some(if w * 4 > h * 5 {
        "1536x1024"
    } else if h * 4 > w * 5 {
        "1024x1536"
    } else {
        "1024x1024"
    })
}

/// The multipart request of one edit; `boundary` must not occur in the parts (callers pass a
/// random one; tests a fixed one).
pub fn edit_request(config: &RoleConfig, edit: &Edit<'_>, boundary: &str) -> Exchange {
    let model = match &config.model {
        Some(Model::Named(name)) => name.clone(),
        Some(other) => other.to_string(),
        None => "gpt-image-1".to_owned(),
    };
    let mut body = Vec::with_capacity(edit.image.len() + 1024);
    let mut text = |name: &str, value: &str| {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    };
    text("model", &model);
    text("prompt", edit.prompt);
    text("n", "1");
    if let Some(size) = size_for(&model, edit.width, edit.height) {
        text("size", size);
    }
    let mut file = |name: &str, filename: &str, media_type: &str, bytes: &[u8]| {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; \
                 filename=\"{filename}\"\r\nContent-Type: {media_type}\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    };
    let (media_type, extension) = match edit.format {
        MediaFormat::Png => ("image/png", "png"),
        MediaFormat::Webp => ("image/webp", "webp"),
        _ => ("image/jpeg", "jpg"),
    };
    file(
        "image",
        &format!("photo.{extension}"),
        media_type,
        edit.image,
    );
    if let Some(mask) = edit.mask {
        file("mask", "mask.png", "image/png", mask);
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Exchange {
        method: super::http::Method::Post,
        url: format!("{}/v1/images/edits", config.url),
        headers: vec![(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )],
        body,
    }
    .bearer(config.token.as_deref())
}

/// The edited picture in a 2xx answer: bytes, or a URL to download now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edited {
    Bytes(Vec<u8>),
    Url(String),
}

/// Reads `data[0]` of a 2xx answer.
pub fn parse_edit(answer: &Answer) -> Result<Edited, ProviderError> {
    let value: Value = serde_json::from_slice(&answer.body)
        .map_err(|_| ProviderError::Invalid("the image edit answer is not JSON".into()))?;
    let first = value
        .pointer("/data/0")
        .ok_or_else(|| ProviderError::Invalid("the image edit answer has no data".into()))?;
    if let Some(b64) = first.get("b64_json").and_then(Value::as_str) {
        if b64.len() / 4 * 3 > super::http::MAX_ANSWER_BYTES {
            return Err(ProviderError::Invalid("the picture is too large".into()));
        }
        return BASE64
            .decode(b64.as_bytes())
            .map(Edited::Bytes)
            .map_err(|_| ProviderError::Invalid("b64_json is not base64".into()));
    }
    match first.get("url").and_then(Value::as_str) {
        Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
            Ok(Edited::Url(url.to_owned()))
        }
        _ => Err(ProviderError::Invalid(
            "the image edit answer has neither b64_json nor url".into(),
        )),
    }
}

/// A refusal retrying will not change, from the `error` object's `code` and `type`:
/// `insufficient_quota` and billing limits; `content_policy_violation` and
/// `moderation_blocked`.
pub fn refusal(answer: &Answer) -> Option<ProviderError> {
    let value: Value = serde_json::from_slice(&answer.body).ok()?;
    let error = value.get("error")?;
    let field = |k: &str| error.get(k).and_then(Value::as_str).unwrap_or_default();
    let words = format!("{} {}", field("code"), field("type")).to_ascii_lowercase();
    if words.contains("quota") || words.contains("billing") {
        return Some(ProviderError::Quota);
    }
    if words.contains("content_policy") || words.contains("moderation") || words.contains("safety")
    {
        return Some(ProviderError::ContentPolicy);
    }
    None
}

/// What another non-2xx answer fails with.
pub fn refused(answer: &Answer, token: Option<&str>) -> ProviderError {
    let value: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let error = value.as_ref().and_then(|v| v.get("error"));
    let pick = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str);
    ProviderError::Refused {
        status: answer.status,
        code: pick("code").map(|c| c.chars().take(64).collect()),
        message: safe_message(pick("message").unwrap_or("no error details"), token),
    }
}

/// Runs one edit; answers the picture's bytes.
pub async fn run(
    driver: &Driver,
    config: &RoleConfig,
    edit: &Edit<'_>,
) -> Result<Vec<u8>, ProviderError> {
    let boundary = format!("stillreel-{:016x}{:016x}", rand_u64(), rand_u64());
    let request = edit_request(config, edit, &boundary);
    let answer = driver.send_retrying(&request, refusal).await?;
    if !answer.is_success() {
        return Err(refused(&answer, config.token.as_deref()));
    }
    match parse_edit(&answer)? {
        Edited::Bytes(bytes) => Ok(bytes),
        Edited::Url(url) => {
            let answer = driver.send_retrying(&Exchange::get(url), |_| None).await?;
            if answer.is_success() {
                Ok(answer.body)
            } else {
                Err(ProviderError::ModelFailed(
                    "the edited picture was gone before it could be downloaded".into(),
                ))
            }
        }
    }
}

/// A boundary need not be secret, only absent from the parts: the clock and the address of a
/// stack value differ on every call.
fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::role::{Protocol, Role};

    fn config() -> RoleConfig {
        RoleConfig {
            role: Role::Staging,
            protocol: Protocol::OpenAi,
            url: "https://api.openai.com".into(),
            token: Some("sk-test".into()),
            model: Some(Model::Named("gpt-image-1".into())),
            input: None,
            prompt: None,
            timeout: Duration::from_secs(60),
        }
    }

    fn answer(status: u16, body: &str) -> Answer {
        Answer {
            status,
            retry_after: None,
            content_type: Some("application/json".into()),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn the_form_holds_every_part() {
        let edit = Edit {
            image: b"\x89PNGdata",
            format: MediaFormat::Png,
            prompt: "stage the room",
            mask: Some(b"MASK"),
            width: 1920,
            height: 1080,
        };
        let e = edit_request(&config(), &edit, "BOUND");
        assert_eq!(e.url, "https://api.openai.com/v1/images/edits");
        assert!(
            e.headers
                .contains(&("authorization", "Bearer sk-test".into()))
        );
        assert!(
            e.headers
                .contains(&("content-type", "multipart/form-data; boundary=BOUND".into()))
        );
        let body = String::from_utf8_lossy(&e.body);
        for part in [
            "--BOUND\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\ngpt-image-1\r\n",
            "name=\"prompt\"\r\n\r\nstage the room\r\n",
            "name=\"size\"\r\n\r\n1536x1024\r\n",
            "name=\"image\"; filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n\u{fffd}PNGdata\r\n",
            "name=\"mask\"; filename=\"mask.png\"\r\nContent-Type: image/png\r\n\r\nMASK\r\n",
        ] {
            assert!(body.contains(part), "{part:?} in {body:?}");
        }
        assert!(body.ends_with("--BOUND--\r\n"));
        assert_eq!(size_for("gpt-image-1", 1080, 1920), Some("1024x1536"));
        assert_eq!(size_for("gpt-image-1", 1000, 1000), Some("1024x1024"));
        assert_eq!(size_for("dall-e-2", 1920, 1080), None);
    }

    #[test]
    fn answers_and_refusals() {
        assert_eq!(
            parse_edit(&answer(
                200,
                r#"{"created":1,"data":[{"b64_json":"aGk="}]}"#
            )),
            Ok(Edited::Bytes(b"hi".to_vec()))
        );
        assert_eq!(
            parse_edit(&answer(200, r#"{"data":[{"url":"https://cdn/x.png"}]}"#)),
            Ok(Edited::Url("https://cdn/x.png".into()))
        );
        for bad in [
            "{}",
            r#"{"data":[]}"#,
            r#"{"data":[{"b64_json":"!!"}]}"#,
            "<html>",
        ] {
            assert!(parse_edit(&answer(200, bad)).is_err(), "{bad}");
        }
        assert_eq!(
            refusal(&answer(
                429,
                r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#
            )),
            Some(ProviderError::Quota)
        );
        assert_eq!(
            refusal(&answer(
                400,
                r#"{"error":{"message":"rejected by the safety system","type":"image_generation_user_error","code":"moderation_blocked"}}"#
            )),
            Some(ProviderError::ContentPolicy)
        );
        assert_eq!(
            refusal(&answer(
                429,
                r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#
            )),
            None
        );
        let e = refused(
            &answer(
                401,
                r#"{"error":{"message":"Incorrect API key provided: sk-test.","code":"invalid_api_key"}}"#,
            ),
            Some("sk-test"),
        );
        assert_eq!(
            e,
            ProviderError::Refused {
                status: 401,
                code: Some("invalid_api_key".into()),
                message: "Incorrect API key provided: […]".into()
            }
        );
    }
}
