//! The one error type of the HTTP layer and its envelope (docs/API-DESIGN.md#error-envelope).
//!
//! Which error where: the core reports field errors (`Rejection`); the database layer reports
//! `DbError`; handlers turn both into [`ApiError`], which alone knows status codes. Internal
//! faults are logged once, here, with the request's span, and answered as a bare `internal`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use stillreel_core::limits::MAX_FIELD_ERRORS;
use stillreel_core::{FieldError, Rejection};
use utoipa::ToSchema;

use crate::db::DbError;

/// Every failure a request can end in.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    MalformedJson(String),
    #[error("a valid API key is required in the Authorization header")]
    Unauthorized,
    #[error("{message}")]
    NotFound {
        message: String,
        details: Vec<FieldError>,
    },
    #[error("this method is not allowed on this path")]
    MethodNotAllowed,
    #[error("a request with this Idempotency-Key is still being handled; retry later")]
    IdempotencyInProgress,
    /// The body did not arrive within `STILLREEL_HTTP_BODY_TIMEOUT_SECS`.
    #[error("the request body was not received in time")]
    RequestTimeout,
    #[error("the request body is larger than 1 MiB")]
    PayloadTooLarge,
    #[error("send the body as JSON with Content-Type: application/json")]
    UnsupportedMediaType,
    /// At most [`MAX_FIELD_ERRORS`] `errors` (build with [`ApiError::invalid`] or from the
    /// core's `Rejection`); `total` counts every error found.
    #[error("validation failed")]
    Validation {
        errors: Vec<FieldError>,
        total: usize,
    },
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    /// Over the operator's per-account limit; `retry_after` is whole seconds, at least 1.
    #[error("too many requests for this API key; retry in {retry_after} s")]
    RateLimited { retry_after: u64 },
    /// `/readyz`: why this process should get no work now.
    #[error("the service is not ready: {0}")]
    Unavailable(String),
    /// The data folder's file system has less free space than `STILLREEL_MIN_FREE_BYTES`
    /// (`crate::disk`): refused before anything is created.
    #[error("the server is out of disk space, so nothing was created; try again later")]
    InsufficientStorage,
    /// A refusal with its own status and code: an upload over a limit or of the wrong kind,
    /// a video that cannot be deleted yet (docs/API-DESIGN.md#uploads, #library).
    #[error("{message}")]
    Refused {
        status: StatusCode,
        code: &'static str,
        message: String,
    },
    #[error("internal error: {0}")]
    Internal(String),
    /// `STILLREEL_METRICS_TOKEN` is set and the request did not present it.
    #[error("/metrics needs the operator's token: Authorization: Bearer <STILLREEL_METRICS_TOKEN>")]
    MetricsUnauthorized,
    /// This client address sent more unknown API keys this minute than
    /// `STILLREEL_HTTP_AUTH_FAILURES_PER_MIN`; a valid key is still accepted.
    #[error(
        "too many unknown API keys from this client address; retry in {retry_after} s (a valid key is still accepted)"
    )]
    AuthFailuresLimited { retry_after: u64 },
}

/// Every non-2xx answer: `{"error": {...}}`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorEnvelope)]
pub struct Envelope<'a> {
    pub error: EnvelopeBody<'a>,
}

/// Inside the error envelope.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ErrorBody)]
pub struct EnvelopeBody<'a> {
    /// Stable snake_case code, e.g. `validation_failed`.
    pub code: &'a str,
    /// A sentence for people; for `validation_failed`, the full count of failing fields.
    pub message: String,
    /// At most 100 field errors, in the validator's stable order.
    pub details: &'a [FieldError],
    /// `true` when `details` was cut at 100 (`MAX_FIELD_ERRORS`); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl ApiError {
    /// A 422 for `errors`, cut to the first [`MAX_FIELD_ERRORS`] like the core's lists.
    pub fn invalid(mut errors: Vec<FieldError>) -> Self {
        let total = errors.len();
        errors.truncate(MAX_FIELD_ERRORS);
        ApiError::Validation { errors, total }
    }

    /// A 404 for a resource named by the URL (no details).
    pub fn not_found(what: &str) -> Self {
        ApiError::NotFound {
            message: format!("{what} not found"),
            details: Vec::new(),
        }
    }

    /// A 404 for ids that came from the body, one detail per field. The message repeats the
    /// detail's own when there is one (the two never disagree), else counts them.
    pub fn not_found_fields(details: Vec<FieldError>) -> Self {
        let message = match details.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!(
                "{} ids in the body were not found; each detail says why",
                many.len()
            ),
        };
        ApiError::NotFound { message, details }
    }

    /// Status and stable code.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::MalformedJson(_) => (StatusCode::BAD_REQUEST, "malformed_json"),
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::NotFound { .. } => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
            ApiError::IdempotencyInProgress => (StatusCode::CONFLICT, "idempotency_in_progress"),
            ApiError::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "request_timeout"),
            ApiError::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            ApiError::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
            }
            ApiError::Validation { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            ApiError::IdempotencyKeyReused => {
                (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_key_reused")
            }
            ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ApiError::InsufficientStorage => {
                (StatusCode::INSUFFICIENT_STORAGE, "insufficient_storage")
            }
            ApiError::Refused { status, code, .. } => (*status, code),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            ApiError::MetricsUnauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::AuthFailuresLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        }
    }
}

impl From<Rejection> for ApiError {
    fn from(rejection: Rejection) -> Self {
        match rejection {
            Rejection::Malformed(message) => ApiError::MalformedJson(message),
            Rejection::Invalid { errors, total } => ApiError::Validation { errors, total },
        }
    }
}

impl From<DbError> for ApiError {
    fn from(err: DbError) -> Self {
        ApiError::Internal(err.to_string())
    }
}

/// Renders an envelope; used by [`ApiError`] and by the panic handler.
pub fn envelope_response(
    status: StatusCode,
    code: &str,
    message: String,
    details: &[FieldError],
) -> Response {
    envelope_response_cut(status, code, message, details, false)
}

fn envelope_response_cut(
    status: StatusCode,
    code: &str,
    message: String,
    details: &[FieldError],
    truncated: bool,
) -> Response {
    let body = Envelope {
        error: EnvelopeBody {
            code,
            message,
            details,
            truncated,
        },
    };
    let bytes = serde_json::to_vec(&body).unwrap_or_else(|_| {
        br#"{"error":{"code":"internal","message":"internal error","details":[]}}"#.to_vec()
    });
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let mut truncated = false;
        let (message, details): (String, &[FieldError]) = match &self {
            ApiError::Validation { errors, total } => {
                let n = (*total).max(errors.len());
                // Belt and braces: lists built outside `invalid` are cut here too.
                let shown = &errors[..errors.len().min(MAX_FIELD_ERRORS)];
                truncated = n > shown.len();
                let mut message =
                    format!("{n} field{} invalid", if n == 1 { " is" } else { "s are" });
                if truncated {
                    message.push_str(&format!("; the first {} are listed", shown.len()));
                }
                (message, shown)
            }
            ApiError::NotFound { message, details } => (message.clone(), details),
            ApiError::Internal(detail) => {
                // Logged once, inside the request's span (so with its request id); never sent.
                tracing::error!(error = %detail, "internal error");
                (
                    "internal error; the fault is ours and has been logged".to_owned(),
                    &[],
                )
            }
            other => (other.to_string(), &[]),
        };
        let mut response = envelope_response_cut(status, code, message, details, truncated);
        if matches!(self, ApiError::RequestTimeout) {
            // The rest of the body may still be on its way: the connection cannot be reused.
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        if let ApiError::RateLimited { retry_after }
        | ApiError::AuthFailuresLimited { retry_after } = self
        {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, retry_after.into());
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use stillreel_core::ErrorCode;

    use super::*;

    async fn body(err: ApiError) -> (StatusCode, serde_json::Value) {
        let response = err.into_response();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        (status, serde_json::from_slice(&bytes).expect("json"))
    }

    #[tokio::test]
    async fn validation_envelope_lists_every_field() {
        let (status, json) = body(ApiError::invalid(vec![
            FieldError::new("a", ErrorCode::Required, "a is required"),
            FieldError::new("b[0]", ErrorCode::InvalidUrl, "bad url"),
        ]))
        .await;
        assert_eq!(json["error"].get("truncated"), None);
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(json["error"]["code"], "validation_failed");
        assert_eq!(json["error"]["message"], "2 fields are invalid");
        assert_eq!(json["error"]["details"][1]["field"], "b[0]");
        assert_eq!(json["error"]["details"][1]["code"], "invalid_url");
    }

    #[tokio::test]
    async fn long_lists_are_cut_and_counted() {
        let errors = (0..250)
            .map(|i| FieldError::new(format!("x[{i}]"), ErrorCode::InvalidType, "bad"))
            .collect();
        let (status, json) = body(ApiError::invalid(errors)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        let details = json["error"]["details"].as_array().expect("list");
        assert_eq!(details.len(), MAX_FIELD_ERRORS);
        assert_eq!(details[0]["field"], "x[0]");
        assert_eq!(details[99]["field"], "x[99]");
        assert_eq!(json["error"]["truncated"], true);
        assert_eq!(
            json["error"]["message"],
            "250 fields are invalid; the first 100 are listed"
        );
    }

    #[tokio::test]
    async fn rate_limited_says_when_to_retry() {
        let response = ApiError::RateLimited { retry_after: 7 }.into_response();
        assert_eq!(
            response.headers().get(axum::http::header::RETRY_AFTER),
            Some(&axum::http::HeaderValue::from(7u64))
        );
        let (status, json) = body(ApiError::RateLimited { retry_after: 7 }).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(json["error"]["code"], "rate_limited");
        assert_eq!(
            json["error"]["message"],
            "too many requests for this API key; retry in 7 s"
        );
        assert_eq!(json["error"]["details"], serde_json::json!([]));
    }

    #[tokio::test]
    async fn internal_errors_leak_nothing() {
        let (status, json) = body(ApiError::Internal("password=hunter2 at db".to_owned())).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(json["error"]["code"], "internal");
        assert!(!json.to_string().contains("hunter2"));
        assert_eq!(json["error"]["details"], serde_json::json!([]));
    }
}
