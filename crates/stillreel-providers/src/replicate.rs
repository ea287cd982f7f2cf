//! Replicate's predictions protocol, and the same protocol as a self-hosted Cog container
//! speaks it (docs/PROVIDERS.md): request builders and answer parsers, pure, and [`run`],
//! which drives them through [`Driver`].
//!
//! Hosted: `POST {base}/v1/models/{owner}/{name}/predictions` (the model's latest version) or
//! `POST {base}/v1/predictions` with a `version`, `Authorization: Bearer`, `Prefer: wait=N`
//! (the host holds the answer up to N s); a prediction still `starting` or `processing` is
//! polled at its `urls.get` with backoff until `succeeded`, `failed` or `canceled`. Outputs
//! are URLs the host deletes after about an hour, so they are downloaded at once.
//!
//! Cog: `POST {base}/predictions` with an `id` of ours answers when the prediction is done,
//! outputs as `data:` URIs; `409` while it runs another prediction (retried like a rate
//! limit); `503` while it cannot take one, when `GET {base}/health-check` tells why (see
//! `health`); at the time limit, `POST {base}/predictions/{id}/cancel` frees the container.
//!
//! Over 400 lines on purpose: hosted Replicate and Cog are one protocol, sharing the request
//! body, the output parsing and the run loop, and differ in a few branches of each.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

use super::error::ProviderError;
use super::health::{self, Health, HealthBoard};
use super::http::{Answer, Driver, Exchange, poll_delay, safe_message};
use super::role::{Model, OutputKind, Protocol, RoleConfig};

/// The prediction's state, as the protocol names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Starting,
    Processing,
    Succeeded,
    Failed,
    Canceled,
}

impl State {
    fn parse(text: &str) -> Option<State> {
        Some(match text {
            "starting" => State::Starting,
            "processing" => State::Processing,
            "succeeded" => State::Succeeded,
            "failed" => State::Failed,
            "canceled" | "cancelled" => State::Canceled,
            _ => return None,
        })
    }

    pub fn is_running(self) -> bool {
        matches!(self, State::Starting | State::Processing)
    }
}

/// A prediction as an answer describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub state: State,
    pub output: Value,
    pub error: Option<String>,
    /// Where to poll it (hosted only).
    pub get_url: Option<String>,
    /// Its id (hosted: where to poll it when `urls.get` is missing).
    pub id: Option<String>,
}

/// How long a hosted create call asks the host to hold its answer (`Prefer: wait=N`): the
/// protocol allows 1 to 60 s.
pub fn prefer_wait_secs(config: &RoleConfig) -> u64 {
    config.timeout.as_secs().clamp(1, 60)
}

/// The request that starts a prediction with `input`; `id` names it on a Cog container (so
/// it can be canceled), hosted predictions get their id from the host.
pub fn create(config: &RoleConfig, input: Map<String, Value>, id: &str) -> Exchange {
    let base = &config.url;
    let token = config.token.as_deref();
    match config.protocol {
        Protocol::Cog => Exchange::post_json(
            format!("{base}/predictions"),
            &json!({ "id": id, "input": input }),
        )
        .bearer(token),
        _ => {
            let (url, body) = match &config.model {
                Some(Model::Replicate {
                    version: Some(version),
                    ..
                }) => (
                    format!("{base}/v1/predictions"),
                    json!({ "version": version, "input": input }),
                ),
                Some(Model::Replicate { owner, name, .. }) => (
                    format!("{base}/v1/models/{owner}/{name}/predictions"),
                    json!({ "input": input }),
                ),
                // A named model on a Replicate-compatible host: the model path as written.
                Some(Model::Named(name)) => (
                    format!("{base}/v1/models/{name}/predictions"),
                    json!({ "input": input }),
                ),
                None => (format!("{base}/v1/predictions"), json!({ "input": input })),
            };
            Exchange::post_json(url, &body)
                .bearer(token)
                .header("prefer", format!("wait={}", prefer_wait_secs(config)))
        }
    }
}

/// The request that reads a running prediction (its `urls.get`).
pub fn poll(config: &RoleConfig, get_url: &str) -> Exchange {
    Exchange::get(get_url).bearer(config.token.as_deref())
}

/// Where a running hosted prediction is read: its `urls.get`, or, when the host left that
/// out, the predictions endpoint with its id.
pub fn poll_url(config: &RoleConfig, prediction: &Prediction) -> Option<String> {
    prediction.get_url.clone().or_else(|| {
        prediction
            .id
            .as_deref()
            .filter(|id| {
                !id.is_empty()
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
            .map(|id| format!("{}/v1/predictions/{id}", config.url))
    })
}

/// The request that cancels Cog prediction `id` (the container then takes the next one).
pub fn cancel(config: &RoleConfig, id: &str) -> Exchange {
    Exchange {
        method: super::http::Method::Post,
        url: format!("{}/predictions/{id}/cancel", config.url),
        headers: Vec::new(),
        body: Vec::new(),
    }
    .bearer(config.token.as_deref())
}

/// The request that asks a Cog container whether its model is ready.
pub fn health_check(config: &RoleConfig) -> Exchange {
    Exchange::get(format!("{}/health-check", config.url)).bearer(config.token.as_deref())
}

/// A 2xx answer describing a prediction.
pub fn parse_prediction(answer: &Answer) -> Result<Prediction, ProviderError> {
    let value: Value = serde_json::from_slice(&answer.body)
        .map_err(|_| ProviderError::Invalid("the prediction is not JSON".into()))?;
    let state = value
        .get("status")
        .and_then(Value::as_str)
        .and_then(State::parse)
        .ok_or_else(|| ProviderError::Invalid("the prediction has no known status".into()))?;
    let error = match value.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    Ok(Prediction {
        state,
        output: value.get("output").cloned().unwrap_or(Value::Null),
        error,
        get_url: value
            .pointer("/urls/get")
            .and_then(Value::as_str)
            .map(str::to_owned),
        id: value.get("id").and_then(Value::as_str).map(str::to_owned),
    })
}

/// A refusal that retrying will not change: 402 (payment), a 429 whose detail is about credit,
/// quota or billing rather than the request rate, and a content-policy refusal.
pub fn refusal(answer: &Answer) -> Option<ProviderError> {
    let detail = error_text(&answer.body).to_ascii_lowercase();
    match answer.status {
        402 => Some(ProviderError::Quota),
        429 if mentions_quota(&detail) => Some(ProviderError::Quota),
        400 | 403 | 422 if mentions_policy(&detail) => Some(ProviderError::ContentPolicy),
        _ => None,
    }
}

/// What a non-2xx answer that is neither retried nor a [`refusal`] fails with.
pub fn refused(answer: &Answer, token: Option<&str>) -> ProviderError {
    ProviderError::Refused {
        status: answer.status,
        code: None,
        message: safe_message(&error_text(&answer.body), token),
    }
}

/// What a `failed` or `canceled` prediction fails with.
pub fn failure(prediction: &Prediction, token: Option<&str>) -> ProviderError {
    if prediction.state == State::Canceled {
        return ProviderError::ModelFailed("the prediction was canceled".into());
    }
    let text = prediction.error.clone().unwrap_or_default();
    if mentions_policy(&text.to_ascii_lowercase()) {
        return ProviderError::ContentPolicy;
    }
    let text = without_failed_prefix(&text);
    if text.is_empty() {
        return ProviderError::ModelFailed("no reason given".into());
    }
    ProviderError::ModelFailed(safe_message(text, token))
}

/// Cog puts "Prediction failed: " in front of the model's exception, twice in 0.23; the
/// message already says the model failed.
fn without_failed_prefix(text: &str) -> &str {
    let mut rest = text.trim();
    while let Some(tail) = rest
        .get(.."prediction failed:".len())
        .filter(|head| head.eq_ignore_ascii_case("prediction failed:"))
        .map(|head| &rest[head.len()..])
    {
        rest = tail.trim_start();
    }
    rest
}

fn mentions_quota(detail: &str) -> bool {
    [
        "quota",
        "billing",
        "credit",
        "payment",
        "spend limit",
        "monthly limit",
    ]
    .iter()
    .any(|w| detail.contains(w))
}

fn mentions_policy(detail: &str) -> bool {
    [
        "nsfw",
        "content policy",
        "safety",
        "flagged",
        "sensitive",
        "moderation",
    ]
    .iter()
    .any(|w| detail.contains(w))
}

/// The human part of an error answer: problem details' `detail` (and `title`), a validation
/// error list's `detail: [{loc, msg}]` (Cog's 422: `input_image: Field required`), a plain
/// `error` string or object's `message`, or nothing.
pub fn error_text(body: &[u8]) -> String {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return String::from("no error details");
    };
    let pick = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    pick(&value, "detail")
        .or_else(|| value.get("detail").and_then(validation_list))
        .or_else(|| pick(&value, "title"))
        .or_else(|| pick(&value, "error"))
        .or_else(|| value.get("error").and_then(|e| pick(e, "message")))
        .unwrap_or_else(|| String::from("no error details"))
}

/// `[{loc: ["body", "input", "input_image"], msg: "Field required"}, …]` as
/// `input_image: Field required; …`: the last part of `loc` names the input.
fn validation_list(detail: &Value) -> Option<String> {
    let items = detail.as_array()?;
    let lines: Vec<String> = items
        .iter()
        .filter_map(|item| {
            let msg = item.get("msg").and_then(Value::as_str)?;
            let name = item
                .get("loc")
                .and_then(Value::as_array)
                .and_then(|loc| loc.last())
                .map(|last| match last {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            Some(match name {
                Some(name) => format!("{name}: {msg}"),
                None => msg.to_owned(),
            })
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

/// Where a prediction's output is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputRef {
    /// Decoded from a `data:` URI.
    Bytes { bytes: Vec<u8>, media_type: String },
    /// To download now (the host deletes it after about an hour).
    Url(String),
}

/// The one output a role uses: a string, the first of a list, or, in an object, the member
/// whose name says grey (a depth model answering a grey and a coloured map), else the first
/// string member.
pub fn output_ref(output: &Value, kind: OutputKind) -> Result<OutputRef, ProviderError> {
    let text = match output {
        Value::String(s) => Some(s.as_str()),
        Value::Array(items) => items.iter().find_map(Value::as_str),
        Value::Object(members) => {
            let grey = members
                .iter()
                .filter(|_| kind == OutputKind::DepthMap)
                .find(|(k, _)| k.contains("grey") || k.contains("gray"))
                .and_then(|(_, v)| v.as_str());
            grey.or_else(|| members.values().find_map(Value::as_str))
        }
        _ => None,
    };
    let text = text.ok_or_else(|| ProviderError::Invalid("the prediction has no output".into()))?;
    if let Some(rest) = text.strip_prefix("data:") {
        let (meta, data) = rest
            .split_once(',')
            .ok_or_else(|| ProviderError::Invalid("a data: output without data".into()))?;
        let media_type = meta.split(';').next().unwrap_or_default().to_owned();
        if !meta.ends_with(";base64") {
            return Err(ProviderError::Invalid(
                "a data: output not in base64".into(),
            ));
        }
        if data.len() / 4 * 3 > super::http::MAX_ANSWER_BYTES {
            return Err(ProviderError::Invalid("the output is too large".into()));
        }
        let bytes = BASE64
            .decode(data.as_bytes())
            .map_err(|_| ProviderError::Invalid("a data: output that is not base64".into()))?;
        return Ok(OutputRef::Bytes { bytes, media_type });
    }
    if text.starts_with("https://") || text.starts_with("http://") {
        return Ok(OutputRef::Url(text.to_owned()));
    }
    Err(ProviderError::Invalid(
        "the output is neither a URL nor a data: URI".into(),
    ))
}

/// The request that downloads an output URL: with the key only when the URL is on the
/// configured host (hosted file URLs need it; a delivery host must never see it).
pub fn download(config: &RoleConfig, url: &str) -> Exchange {
    let same_host = reqwest::Url::parse(url)
        .ok()
        .zip(reqwest::Url::parse(&config.url).ok())
        .is_some_and(|(a, b)| a.origin() == b.origin());
    Exchange::get(url).bearer(config.token.as_deref().filter(|_| same_host))
}

/// Runs one prediction to its end and answers its output's bytes and media type. A Cog
/// container's health is read first (see `health`), and its prediction canceled when the time
/// limit passes; `health` keeps what was learnt for `/get_engines`.
pub async fn run(
    driver: &Driver,
    config: &RoleConfig,
    input: Map<String, Value>,
    kind: OutputKind,
    health: &HealthBoard,
) -> Result<(Vec<u8>, Option<String>), ProviderError> {
    let id = format!("stillreel-{}", uuid::Uuid::new_v4().simple());
    let result = predict(driver, config, input, kind, health, &id).await;
    if config.protocol == Protocol::Cog {
        match &result {
            Err(ProviderError::TimedOut(_)) => cancel_quietly(driver, config, &id).await,
            Err(ProviderError::Unreachable) => health.set(Health::Unreachable),
            Ok(_) => health.set(Health::Ready),
            Err(_) => {}
        }
    }
    result
}

async fn predict(
    driver: &Driver,
    config: &RoleConfig,
    input: Map<String, Value>,
    kind: OutputKind,
    health: &HealthBoard,
    id: &str,
) -> Result<(Vec<u8>, Option<String>), ProviderError> {
    let token = config.token.as_deref();
    let cog = config.protocol == Protocol::Cog;
    if cog && !health.get().takes_predictions() {
        await_ready(driver, config, health).await?;
    }
    let request = create(config, input, id);
    let mut unavailable = 0u32;
    let answer = loop {
        // A Cog 503 means the container cannot take predictions: its health check says why.
        let sent = driver
            .send_retrying(&request, |a| {
                if cog && a.status == 503 {
                    Some(refused(a, token))
                } else {
                    refusal(a)
                }
            })
            .await;
        match sent {
            Err(ProviderError::Refused { status: 503, .. }) if cog => {
                await_ready(driver, config, health).await?;
                driver
                    .pause(super::http::retry_delay(unavailable, None))
                    .await?;
                unavailable += 1;
            }
            other => break other?,
        }
    };
    if !answer.is_success() {
        return Err(refused(&answer, token));
    }
    let mut prediction = parse_prediction(&answer)?;
    let mut polls = 0;
    while prediction.state.is_running() {
        let Some(get_url) = poll_url(config, &prediction) else {
            return Err(ProviderError::Invalid(
                "a running prediction without urls.get or an id".into(),
            ));
        };
        driver.pause(poll_delay(polls)).await?;
        polls += 1;
        let answer = driver
            .send_retrying(&poll(config, &get_url), refusal)
            .await?;
        if !answer.is_success() {
            return Err(refused(&answer, token));
        }
        prediction = parse_prediction(&answer)?;
    }
    if prediction.state != State::Succeeded {
        return Err(failure(&prediction, token));
    }
    match output_ref(&prediction.output, kind)? {
        OutputRef::Bytes { bytes, media_type } => Ok((bytes, Some(media_type))),
        OutputRef::Url(url) => {
            let answer = driver
                .send_retrying(&download(config, &url), |_| None)
                .await?;
            match answer.status {
                200..=299 => Ok((answer.body, answer.content_type)),
                404 | 410 | 403 => Err(ProviderError::ModelFailed(
                    "the model's output was gone before it could be downloaded".into(),
                )),
                _ => Err(refused(&answer, token)),
            }
        }
    }
}

/// Reads a Cog container's health until it takes predictions: a failed setup or a defunct
/// container fails at once with its own error text; `STARTING` (and Cog's initial `UNKNOWN`,
/// and `UNHEALTHY`) is asked again with backoff within the time limit. A host without a
/// readable health check, or one that cannot be reached, is left to the prediction request
/// (and its retries) to judge.
pub async fn await_ready(
    driver: &Driver,
    config: &RoleConfig,
    health: &HealthBoard,
) -> Result<(), ProviderError> {
    let token = config.token.as_deref();
    let mut attempt = 0;
    loop {
        let state = match driver.send(&health_check(config)).await {
            Ok(answer) => match health::parse(&answer, token) {
                Ok(state) => state,
                Err(_) => return Ok(()),
            },
            Err(ProviderError::Unreachable) => {
                health.set(Health::Unreachable);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        health.set(state.clone());
        if let Some(failure) = state.failure() {
            return Err(failure);
        }
        if state.takes_predictions() {
            return Ok(());
        }
        driver.pause(poll_delay(attempt)).await?;
        attempt += 1;
    }
}

/// Cancels a Cog prediction whose time limit passed, so the container is free for the next
/// call (dropping the connection also cancels it on Cog 0.23; this says so explicitly). Best
/// effort, within a few seconds of its own.
async fn cancel_quietly(driver: &Driver, config: &RoleConfig, id: &str) {
    let driver = driver.with_limit(std::time::Duration::from_secs(5));
    if driver.send(&cancel(config, id)).await.is_err() {
        tracing::debug!(
            role = config.role.as_str(),
            "the prediction could not be canceled"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::role::Role;

    fn config(protocol: Protocol, model: Option<Model>) -> RoleConfig {
        RoleConfig {
            role: Role::Staging,
            protocol,
            url: "https://api.replicate.com".into(),
            token: Some("r8_key".into()),
            model,
            input: None,
            prompt: None,
            timeout: Duration::from_secs(120),
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

    fn input() -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("prompt".into(), Value::from("stage"));
        m
    }

    #[test]
    fn create_names_the_model_or_the_version() {
        let model = |version: Option<&str>| Model::Replicate {
            owner: "black-forest-labs".into(),
            name: "flux-kontext-pro".into(),
            version: version.map(str::to_owned),
        };
        let e = create(
            &config(Protocol::Replicate, Some(model(None))),
            input(),
            "p1",
        );
        assert_eq!(
            e.url,
            "https://api.replicate.com/v1/models/black-forest-labs/flux-kontext-pro/predictions"
        );
        assert!(
            e.headers
                .contains(&("authorization", "Bearer r8_key".into()))
        );
        assert!(e.headers.contains(&("prefer", "wait=60".into())));
        let body: Value = serde_json::from_slice(&e.body).expect("json");
        assert_eq!(body, json!({"input": {"prompt": "stage"}}));

        let e = create(
            &config(Protocol::Replicate, Some(model(Some("5bd0")))),
            input(),
            "p1",
        );
        assert_eq!(e.url, "https://api.replicate.com/v1/predictions");
        let body: Value = serde_json::from_slice(&e.body).expect("json");
        assert_eq!(
            body,
            json!({"version": "5bd0", "input": {"prompt": "stage"}})
        );

        let mut cog = config(Protocol::Cog, None);
        cog.url = "http://gpu:5000".into();
        cog.token = None;
        let e = create(&cog, input(), "stillreel-1");
        assert_eq!(e.url, "http://gpu:5000/predictions");
        let body: Value = serde_json::from_slice(&e.body).expect("json");
        assert_eq!(
            body,
            json!({"id": "stillreel-1", "input": {"prompt": "stage"}})
        );
        assert_eq!(
            cancel(&cog, "stillreel-1").url,
            "http://gpu:5000/predictions/stillreel-1/cancel"
        );
        assert!(
            e.headers
                .iter()
                .all(|(n, _)| *n != "prefer" && *n != "authorization")
        );
        assert_eq!(health_check(&cog).url, "http://gpu:5000/health-check");
    }

    #[test]
    fn predictions_parse_and_fail_clearly() {
        let p = parse_prediction(&answer(
            201,
            r#"{"id":"x","status":"starting","output":null,"error":null,
                "urls":{"get":"https://api.replicate.com/v1/predictions/x","cancel":"c"}}"#,
        ))
        .expect("parse");
        assert_eq!(p.state, State::Starting);
        assert_eq!(
            p.get_url.as_deref(),
            Some("https://api.replicate.com/v1/predictions/x")
        );
        let failed = parse_prediction(&answer(
            200,
            r#"{"status":"failed","error":"CUDA out of memory on http://10.1.1.1/"}"#,
        ))
        .expect("parse");
        assert_eq!(
            failure(&failed, None),
            ProviderError::ModelFailed("CUDA out of memory on […]".into())
        );
        let nsfw = parse_prediction(&answer(
            200,
            r#"{"status":"failed","error":"NSFW content detected. Try another prompt."}"#,
        ))
        .expect("parse");
        assert_eq!(failure(&nsfw, None), ProviderError::ContentPolicy);
        let canceled = parse_prediction(&answer(200, r#"{"status":"canceled"}"#)).expect("parse");
        assert_eq!(failure(&canceled, None).code(), "provider_failed");
        assert!(parse_prediction(&answer(200, "<html>")).is_err());
        assert!(parse_prediction(&answer(200, r#"{"status":"dreaming"}"#)).is_err());
    }

    #[test]
    fn refusals_are_told_apart() {
        assert_eq!(
            refusal(&answer(402, r#"{"detail":"You have insufficient credit"}"#)),
            Some(ProviderError::Quota)
        );
        assert_eq!(
            refusal(&answer(
                429,
                r#"{"detail":"Monthly spend limit reached; see billing"}"#
            )),
            Some(ProviderError::Quota)
        );
        assert_eq!(
            refusal(&answer(
                429,
                r#"{"detail":"Request was throttled. Expected available in 1 second."}"#
            )),
            None
        );
        assert_eq!(
            refusal(&answer(
                422,
                r#"{"detail":"input flagged by the safety checker"}"#
            )),
            Some(ProviderError::ContentPolicy)
        );
        assert_eq!(refusal(&answer(409, r#"{"detail":"busy"}"#)), None);
        let e = refused(
            &answer(
                401,
                r#"{"title":"Unauthenticated","detail":"Invalid token r8_key"}"#,
            ),
            Some("r8_key"),
        );
        assert_eq!(
            e,
            ProviderError::Refused {
                status: 401,
                code: None,
                message: "Invalid token […]".into()
            }
        );
    }

    #[test]
    fn cog_details_and_doubled_prefixes_read_cleanly() {
        // Cog's 422 for an input the model does not have (its validation list).
        let e = refused(
            &answer(
                422,
                r#"{"detail":[{"loc":["body","input","input_image"],"msg":"Field required","type":"missing"},{"loc":["body","input","steps"],"msg":"Input should be a valid integer","type":"int_parsing"}]}"#,
            ),
            None,
        );
        assert_eq!(
            e.describe("the depth model"),
            "the depth model refused the call (422): input_image: Field required; steps: Input \
             should be a valid integer"
        );
        assert_eq!(error_text(br#"{"detail":[]}"#), "no error details");
        // Cog 0.23 doubles its prefix in front of the model's exception.
        let p = parse_prediction(&answer(
            200,
            r#"{"status":"failed","error":"Prediction failed: Prediction failed: ValueError: boom"}"#,
        ))
        .expect("parse");
        assert_eq!(
            failure(&p, None).describe("the staging model"),
            "the staging model failed: ValueError: boom"
        );
        let p = parse_prediction(&answer(
            200,
            r#"{"status":"failed","error":"Prediction failed: "}"#,
        ))
        .expect("parse");
        assert_eq!(
            failure(&p, None),
            ProviderError::ModelFailed("no reason given".into())
        );
    }

    #[test]
    fn a_prediction_without_urls_get_is_read_by_its_id() {
        let c = config(Protocol::Replicate, None);
        let p = parse_prediction(&answer(
            201,
            r#"{"id":"ufawqhfynnddngldkgtslldrkq","status":"starting"}"#,
        ))
        .expect("parse");
        assert_eq!(
            poll_url(&c, &p).as_deref(),
            Some("https://api.replicate.com/v1/predictions/ufawqhfynnddngldkgtslldrkq")
        );
        let odd = parse_prediction(&answer(201, r#"{"id":"../x?y","status":"starting"}"#))
            .expect("parse");
        assert_eq!(poll_url(&c, &odd), None);
    }

    #[test]
    fn outputs_are_urls_or_data() {
        assert_eq!(
            output_ref(
                &json!("https://replicate.delivery/x/out.png"),
                OutputKind::Still
            ),
            Ok(OutputRef::Url(
                "https://replicate.delivery/x/out.png".into()
            ))
        );
        assert_eq!(
            output_ref(
                &json!(["https://d/a.mp4", "https://d/b.mp4"]),
                OutputKind::Clip
            ),
            Ok(OutputRef::Url("https://d/a.mp4".into()))
        );
        assert_eq!(
            output_ref(
                &json!({"color_depth": "https://d/c.png", "grey_depth": "https://d/g.png"}),
                OutputKind::DepthMap
            ),
            Ok(OutputRef::Url("https://d/g.png".into()))
        );
        assert_eq!(
            output_ref(&json!("data:image/png;base64,iVBORw=="), OutputKind::Still),
            Ok(OutputRef::Bytes {
                bytes: BASE64.decode("iVBORw==").expect("b64"),
                media_type: "image/png".into()
            })
        );
        for bad in [
            json!(null),
            json!(3),
            json!("ftp://x"),
            json!("data:image/png,raw"),
        ] {
            assert!(output_ref(&bad, OutputKind::Still).is_err(), "{bad}");
        }
        let c = config(Protocol::Replicate, None);
        let own = download(&c, "https://api.replicate.com/v1/files/abc");
        assert!(own.headers.iter().any(|(n, _)| *n == "authorization"));
        let other = download(&c, "https://replicate.delivery/x/out.png");
        assert!(other.headers.iter().all(|(n, _)| *n != "authorization"));
    }
}
