//! Request extractors. Each turns its failure into an [`ApiError`], so every rejection wears
//! the same envelope.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use std::time::Duration;

use axum::body::BodyDataStream;
use futures_util::StreamExt;
use stillreel_core::limits::{IDEMPOTENCY_KEY_MAX_CHARS, MAX_BODY_BYTES};
use stillreel_core::{ErrorCode, FieldError};

use crate::error::ApiError;
use crate::repo::accounts::AccountCtx;
use crate::state::{AppState, AuthRefusal};

/// The calling account (docs/API-DESIGN.md#authentication): `Authorization: <key>` or
/// `Authorization: Bearer <key>`. A verified key also counts one request against the account's rate
/// limit, when the operator set one (`rate_limit.rs`); unknown keys are refused before, so they
/// spend nobody's budget.
#[derive(Debug, Clone, Copy)]
pub struct Auth(pub AccountCtx);

/// The key in an `Authorization` value, or `None` when there is none.
pub fn key_of(value: &str) -> Option<&str> {
    let value = value.trim();
    let key = match value.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        Some(_) => return None,
        None => value,
    };
    (!key.is_empty() && !key.contains(char::is_whitespace)).then_some(key)
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let key = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(key_of)
            .ok_or(ApiError::Unauthorized)?;
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.ip());
        let ctx = state
            .auth_cache
            .authenticate_from(&state.db, key, peer)
            .await
            .map_err(|refusal| match refusal {
                AuthRefusal::Unknown => ApiError::Unauthorized,
                AuthRefusal::TooManyFailures(retry_after) => {
                    ApiError::AuthFailuresLimited { retry_after }
                }
                AuthRefusal::Db(err) => err.into(),
            })?;
        if let Some(limiter) = &state.rate_limiter {
            limiter
                .check(ctx.account_id)
                .map_err(|retry_after| ApiError::RateLimited { retry_after })?;
        }
        Ok(Auth(ctx))
    }
}

/// A JSON request body as text, for the core's validators (which need the raw body so that a
/// wrong type or an unknown member becomes a field error, not a deserializer message).
/// Checks the content type (415), the size (413) and UTF-8 (400); JSON syntax is the core's.
#[derive(Debug)]
pub struct JsonBody(pub String);

/// Whether a `Content-Type` is JSON: `application/json` or `application/<x>+json`, any
/// parameters (charset) allowed.
pub fn is_json_content_type(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        // One deadline for the whole body, not per chunk: a client trickling a byte every few
        // seconds would otherwise hold the connection (and its buffer) indefinitely.
        tokio::time::timeout(state.config.http.body_timeout, read_json_body(req))
            .await
            .unwrap_or(Err(ApiError::RequestTimeout))
    }
}

async fn read_json_body(req: Request) -> Result<JsonBody, ApiError> {
    {
        if !is_json_content_type(req.headers()) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let mut body = req.into_body().into_data_stream();
        if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            drain(&mut body).await;
            return Err(ApiError::PayloadTooLarge);
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|err| {
                ApiError::MalformedJson(format!("the body could not be read: {err}"))
            })?;
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                drain(&mut body).await;
                return Err(ApiError::PayloadTooLarge);
            }
            bytes.extend_from_slice(&chunk);
        }
        String::from_utf8(bytes)
            .map(JsonBody)
            .map_err(|_| ApiError::MalformedJson("the body is not valid UTF-8".to_owned()))
    }
}

/// Reads and discards the rest of a rejected body, up to [`DRAIN_MAX_BYTES`] or
/// [`DRAIN_MAX_TIME`]. Closing a socket with unread data makes the kernel send a reset, which
/// can destroy the 413 before the client reads it; draining a bounded amount first (a
/// "lingering close", as nginx does) lets ordinary clients see the answer.
async fn drain(body: &mut BodyDataStream) {
    let read_rest = async {
        let mut seen = 0usize;
        while let Some(Ok(chunk)) = body.next().await {
            seen += chunk.len();
            if seen > DRAIN_MAX_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_MAX_TIME, read_rest).await;
}

/// Most bytes of an oversized body read (and dropped) before answering 413.
const DRAIN_MAX_BYTES: usize = 16 * 1024 * 1024;
/// Longest time spent draining an oversized body.
const DRAIN_MAX_TIME: Duration = Duration::from_secs(5);

/// The optional `Idempotency-Key` header (docs/API-DESIGN.md#idempotency).
#[derive(Debug, Clone)]
pub struct IdempotencyKey(pub Option<String>);

/// Name of the header, also the `field` of its errors.
pub const IDEMPOTENCY_HEADER: &str = "Idempotency-Key";

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let Some(value) = parts.headers.get(IDEMPOTENCY_HEADER) else {
            return Ok(IdempotencyKey(None));
        };
        let invalid = |code, message: &str| {
            ApiError::invalid(vec![FieldError::new(IDEMPOTENCY_HEADER, code, message)])
        };
        let text = value
            .to_str()
            .map_err(|_| {
                invalid(
                    ErrorCode::InvalidValue,
                    "Idempotency-Key must be printable ASCII",
                )
            })?
            .trim();
        if text.is_empty() {
            return Err(invalid(
                ErrorCode::Empty,
                "Idempotency-Key must not be empty",
            ));
        }
        if text.chars().count() > IDEMPOTENCY_KEY_MAX_CHARS {
            return Err(invalid(
                ErrorCode::TooLong,
                "Idempotency-Key must be at most 255 characters",
            ));
        }
        Ok(IdempotencyKey(Some(text.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_authorization_forms() {
        assert_eq!(key_of("sr_abc"), Some("sr_abc"));
        assert_eq!(key_of("Bearer sr_abc"), Some("sr_abc"));
        assert_eq!(key_of("bearer   sr_abc "), Some("sr_abc"));
        assert_eq!(key_of("Basic dXNlcg=="), None);
        assert_eq!(key_of("Bearer"), Some("Bearer"));
        assert_eq!(key_of("Bearer "), Some("Bearer"));
        assert_eq!(key_of(""), None);
        assert_eq!(key_of("Bearer a b"), None);
    }

    #[test]
    fn json_content_types() {
        let check = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, v.parse().expect("header"));
            is_json_content_type(&h)
        };
        assert!(check("application/json"));
        assert!(check("Application/JSON; charset=utf-8"));
        assert!(check("application/merge-patch+json"));
        assert!(!check("text/plain"));
        assert!(!check("application/x-www-form-urlencoded"));
        assert!(!is_json_content_type(&HeaderMap::new()));
    }
}
