//! What handlers read besides a JSON body: the query string ([`QueryPairs`]) and the body of
//! the delete endpoints ([`uuid_body`]), with their errors as field errors.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use stillreel_core::{ErrorCode, FieldError};
use uuid::Uuid;

use crate::error::ApiError;

/// The `uuid` of a body that holds only that (the delete endpoints'), with the usual
/// envelopes: not JSON or not an object is `malformed_json`, any other member `unknown_field`.
pub fn uuid_body(body: &str) -> Result<Uuid, ApiError> {
    let invalid = |code: ErrorCode, message: &str| {
        ApiError::invalid(vec![FieldError::new("uuid", code, message)])
    };
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| ApiError::MalformedJson(format!("the body is not valid JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(ApiError::MalformedJson(
            "the body must be a JSON object".to_owned(),
        ));
    };
    let unknown: Vec<FieldError> = map
        .keys()
        .filter(|k| k.as_str() != "uuid")
        .map(|k| {
            FieldError::new(
                stillreel_core::error::clipped(k),
                ErrorCode::UnknownField,
                format!(
                    "{} is not a field of this body; its only field is uuid",
                    stillreel_core::error::echoed(k)
                ),
            )
        })
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::invalid(unknown));
    }
    match map.get("uuid") {
        None => Err(invalid(ErrorCode::Required, "uuid is required")),
        Some(serde_json::Value::String(text)) => Uuid::try_parse(text.trim()).map_err(|_| {
            invalid(
                ErrorCode::InvalidUuid,
                "uuid must be a UUID like 67e55044-10b1-426f-9247-bb680e5fe0c8",
            )
        }),
        Some(_) => Err(invalid(ErrorCode::InvalidType, "uuid must be a string")),
    }
}

/// The query string as pairs; its errors are field errors named after the parameter.
#[derive(Debug, Default)]
pub struct QueryPairs(pub Vec<(String, String)>);

impl QueryPairs {
    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A required UUID parameter.
    pub fn uuid(&self, name: &str) -> Result<Uuid, ApiError> {
        let Some(text) = self.get(name) else {
            return Err(ApiError::invalid(vec![FieldError::new(
                name,
                ErrorCode::Required,
                format!("the query parameter {name} is required"),
            )]));
        };
        Uuid::try_parse(text.trim()).map_err(|_| {
            ApiError::invalid(vec![FieldError::new(
                name,
                ErrorCode::InvalidUuid,
                format!("{name} must be a UUID like 67e55044-10b1-426f-9247-bb680e5fe0c8"),
            )])
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryPairs {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let pairs = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map(|q| q.0)
            .map_err(|_| {
                ApiError::invalid(vec![FieldError::new(
                    "",
                    ErrorCode::InvalidValue,
                    "the query string is not valid",
                )])
            })?;
        Ok(QueryPairs(pairs))
    }
}
