//! The OpenAPI 3.1 document: everything around the paths, which come with the router.
//!
//! The schemas are the core's own wire types (`stillreel-core`'s `schema` feature), the error
//! envelope is [`crate::error::Envelope`], and the operations are the handlers'
//! `#[utoipa::path]` attributes, collected by the one route list ([`crate::routes::api`]).
//! This module adds what is the same for every operation or outside any: the API key scheme,
//! the shared 401/429/500 answers, the `webhooks` section, and the reader's rule that a
//! `null` member counts as absent. [`json`] builds the served document once.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Value, json};
use stillreel_core::Video;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;

/// Kinds of completion events.
#[derive(Debug, Serialize, ToSchema)]
pub enum WebhookEventType {
    #[serde(rename = "video.completed")]
    VideoCompleted,
    #[serde(rename = "video.failed")]
    VideoFailed,
    #[serde(rename = "branding.completed")]
    BrandingCompleted,
    #[serde(rename = "branding.failed")]
    BrandingFailed,
}

/// The body of every webhook delivery, signed per Standard Webhooks (`webhook-id`,
/// `webhook-timestamp`, `webhook-signature` headers; see docs/WEBHOOKS.md).
// Schema only: the worker builds this body as JSON (`worker/webhook.rs`).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEvent {
    #[serde(rename = "type")]
    event_type: WebhookEventType,
    /// When the video or branded render settled (RFC 3339).
    #[schema(format = DateTime)]
    timestamp: String,
    /// The video record exactly as `get_video` answered it when the event was first sent.
    data: Video,
}

#[derive(Debug)]
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "The API key, as is or after `Bearer `.",
            ))),
        );
    }
}

/// Everything but the paths.
#[derive(Debug, OpenApi)]
#[openapi(
    info(title = "stillreel", description = "Turns still photos into short videos."),
    components(schemas(WebhookEvent)),
    modifiers(&Security),
)]
struct ApiDoc;

/// The answers every operation that takes an API key can give, besides its own.
fn shared_responses() -> [(&'static str, Value); 3] {
    let envelope = |description: &str| {
        json!({"description": description, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}})
    };
    let mut limited = envelope("Over the account's rate limit (only when the operator sets one)");
    limited["headers"] = json!({"Retry-After": {
        "description": "Whole seconds to wait before the next request; at least 1",
        "schema": {"type": "integer", "format": "int64", "minimum": 0}}});
    [
        ("401", envelope("No or unknown API key")),
        ("429", limited),
        ("500", envelope("Internal error")),
    ]
}

/// OpenAPI 3.1's top-level `webhooks` (utoipa 5 has no model for it): one POST per event
/// type, each with the signature headers and the `WebhookEvent` body.
fn webhooks() -> Value {
    let header = |name: &str, description: &str| {
        json!({"name": name, "in": "header", "required": true,
               "description": description, "schema": {"type": "string"}})
    };
    let mut out = serde_json::Map::new();
    for (event, when) in [
        (
            "video.completed",
            "the video is complete (`status: complete`, `video_url` set)",
        ),
        (
            "video.failed",
            "the video ended in `error` (its `error` says why)",
        ),
        (
            "branding.completed",
            "the branded render is complete (`branding.video_url` set)",
        ),
        ("branding.failed", "the branded render ended in `error`"),
    ] {
        out.insert(
            event.to_owned(),
            json!({"post": {
                "summary": format!("`{event}`: {when}"),
                "description": "Sent to the request's `webhook_url`. Any 2xx answer is success; `410 Gone` stops retries; anything else is retried on the schedule of docs/WEBHOOKS.md with the same `webhook-id`.",
                "parameters": [
                    header("webhook-id", "Stable across retries of one event: drop duplicates by it."),
                    header("webhook-timestamp", "Seconds since the Unix epoch of this attempt."),
                    header("webhook-signature", "Space-separated `v1,<base64 HMAC-SHA256 of {id}.{timestamp}.{body}>`, one per valid account secret."),
                ],
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/WebhookEvent"}}}},
                "responses": {
                    "200": {"description": "Any 2xx: delivered."},
                    "410": {"description": "Gone: no more attempts for this event."},
                },
            }}),
        );
    }
    Value::Object(out)
}

/// Whether `schema` already admits `null`.
fn admits_null(schema: &Value) -> bool {
    let is_null = |s: &Value| match s.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    is_null(schema)
        || schema
            .get("oneOf")
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().any(is_null))
}

/// The reader treats a `null` member as absent, so in a request body every member that may be
/// left out may also be `null`. The core's schemas describe the Rust types, where a member
/// with a default is not an `Option`; this widens those members, in every object of `schema`.
fn null_means_absent(schema: &mut Value) {
    match schema {
        Value::Array(items) => items.iter_mut().for_each(null_means_absent),
        Value::Object(map) => {
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if required.contains(name) || admits_null(property) {
                        continue;
                    }
                    *property = match property.get("type").cloned() {
                        Some(Value::String(t)) if property.get("$ref").is_none() => {
                            property["type"] = json!([t, "null"]);
                            property.take()
                        }
                        _ => {
                            // Keep the member's description and default beside the `oneOf`,
                            // as utoipa places them for an `Option`.
                            let mut inner = property.take();
                            let mut outer = serde_json::Map::new();
                            for key in ["description", "default"] {
                                if let Some(v) = inner.as_object_mut().and_then(|o| o.remove(key)) {
                                    outer.insert(key.to_owned(), v);
                                }
                            }
                            // utoipa wraps a `$ref` with a default in a one-branch `oneOf`.
                            if let Some([single]) = inner
                                .get("oneOf")
                                .and_then(Value::as_array)
                                .map(Vec::as_slice)
                                && inner.as_object().is_some_and(|o| o.len() == 1)
                            {
                                inner = single.clone();
                            }
                            outer.insert("oneOf".into(), json!([{"type": "null"}, inner]));
                            Value::Object(outer)
                        }
                    };
                }
            }
            map.values_mut().for_each(null_means_absent);
        }
        _ => {}
    }
}

/// The components a request body reaches, by name.
fn request_schemas(doc: &Value) -> Vec<String> {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref")
                    && let Some(name) = r.strip_prefix("#/components/schemas/")
                {
                    out.push(name.to_owned());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    for item in doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.values())
    {
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            refs(&op["requestBody"], &mut names);
        }
    }
    let mut seen = 0;
    while seen < names.len() {
        let mut found = Vec::new();
        refs(&doc["components"]["schemas"][&names[seen]], &mut found);
        for name in found {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        seen += 1;
    }
    names
}

/// The whole document as JSON, from the paths the router collected.
pub fn document(paths: utoipa::openapi::OpenApi) -> Value {
    let mut api = ApiDoc::openapi();
    api.merge(paths);
    let mut doc = serde_json::to_value(api).unwrap_or_default();
    for op in doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut())
        .flat_map(|item| {
            item.as_object_mut()
                .into_iter()
                .flat_map(|o| o.values_mut())
        })
    {
        if op.get("security").is_some() {
            for (status, response) in shared_responses() {
                op["responses"][status] = response;
            }
        }
    }
    for name in request_schemas(&doc) {
        null_means_absent(&mut doc["components"]["schemas"][&name]);
    }
    doc["webhooks"] = webhooks();
    doc
}

/// The OpenAPI document of [`crate::routes::api`] (under `/api/v1`), as JSON text, built once.
pub fn json() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        let (_, paths) = OpenApiRouter::new()
            .nest("/api/v1", crate::routes::api())
            .split_for_parts();
        document(paths).to_string()
    })
}

#[cfg(test)]
mod tests;
