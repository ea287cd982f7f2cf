//! The error vocabulary of the API: a field path, a stable code, and a sentence for people.

use serde::{Deserialize, Serialize};

/// The most characters of a client's own text (an unknown member's name, a value) that an error
/// repeats: a longer one is cut there, so an error answer stays small whatever was sent.
pub const ECHO_MAX_CHARS: usize = 64;

/// `text` cut to its first [`ECHO_MAX_CHARS`] characters, for a field path.
pub fn clipped(text: &str) -> &str {
    match text.char_indices().nth(ECHO_MAX_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `text` cut as [`clipped`] does, marked with `…` when it was cut, for a message.
pub fn echoed(text: &str) -> String {
    let cut = clipped(text);
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        text.to_owned()
    }
}

/// Stable snake_case code of one failing field (docs/API-DESIGN.md#field-error-codes). Clients
/// switch on these.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Required,
    InvalidType,
    InvalidValue,
    UnknownField,
    Empty,
    TooLong,
    TooMany,
    InvalidUrl,
    InvalidUuid,
    EngineUnsupported,
    ConfigNotAllowed,
    EmptyAfterSanitizing,
    TemplateUnknown,
    TemplateSlotMismatch,
    TemplateFieldUnknown,
    TemplateFieldType,
    Mismatch,
    NotFound,
    VfxUnavailable,
    EngineUnavailable,
}

impl ErrorCode {
    /// Every code, in the order `docs/API-DESIGN.md` lists them.
    pub const ALL: [ErrorCode; 20] = [
        Self::Required,
        Self::InvalidType,
        Self::InvalidValue,
        Self::UnknownField,
        Self::Empty,
        Self::TooLong,
        Self::TooMany,
        Self::InvalidUrl,
        Self::InvalidUuid,
        Self::EngineUnsupported,
        Self::ConfigNotAllowed,
        Self::EmptyAfterSanitizing,
        Self::TemplateUnknown,
        Self::TemplateSlotMismatch,
        Self::TemplateFieldUnknown,
        Self::TemplateFieldType,
        Self::Mismatch,
        Self::NotFound,
        Self::VfxUnavailable,
        Self::EngineUnavailable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::InvalidType => "invalid_type",
            Self::InvalidValue => "invalid_value",
            Self::UnknownField => "unknown_field",
            Self::Empty => "empty",
            Self::TooLong => "too_long",
            Self::TooMany => "too_many",
            Self::InvalidUrl => "invalid_url",
            Self::InvalidUuid => "invalid_uuid",
            Self::EngineUnsupported => "engine_unsupported",
            Self::ConfigNotAllowed => "config_not_allowed",
            Self::EmptyAfterSanitizing => "empty_after_sanitizing",
            Self::TemplateUnknown => "template_unknown",
            Self::TemplateSlotMismatch => "template_slot_mismatch",
            Self::TemplateFieldUnknown => "template_field_unknown",
            Self::TemplateFieldType => "template_field_type",
            Self::Mismatch => "mismatch",
            Self::NotFound => "not_found",
            Self::VfxUnavailable => "vfx_unavailable",
            Self::EngineUnavailable => "engine_unavailable",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failing field: where (form-field notation, e.g. `image_inputs[0].vfx.type`), what, and
/// a sentence for people.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// Path in the request body (`image_inputs[0].vfx.type`), or a parameter/header name.
    pub field: String,
    pub code: ErrorCode,
    /// A sentence for people.
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            code,
            message: message.into(),
        }
    }
}

/// Why a body was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// Not JSON, or JSON but not an object: the server answers 400 `malformed_json`.
    Malformed(String),
    /// A JSON object that breaks rules: the server answers 422 `validation_failed` with the
    /// errors in document order (the order of the offending members in the body; absent
    /// members at the end of their object), at most [`MAX_FIELD_ERRORS`](crate::limits::MAX_FIELD_ERRORS)
    /// of them; `total` counts every error found (more than `errors.len()` when cut).
    Invalid {
        errors: Vec<FieldError>,
        total: usize,
    },
}

impl Rejection {
    /// The field errors, or an empty slice for a malformed body.
    pub fn field_errors(&self) -> &[FieldError] {
        match self {
            Self::Malformed(_) => &[],
            Self::Invalid { errors, .. } => errors,
        }
    }

    /// Whether the error list was cut at [`MAX_FIELD_ERRORS`](crate::limits::MAX_FIELD_ERRORS).
    pub fn truncated(&self) -> bool {
        matches!(self, Self::Invalid { errors, total } if *total > errors.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_text_is_cut_at_the_limit() {
        let long = "é".repeat(ECHO_MAX_CHARS + 10);
        assert_eq!(clipped(&long).chars().count(), ECHO_MAX_CHARS);
        assert_eq!(echoed(&long), format!("{}…", "é".repeat(ECHO_MAX_CHARS)));
        assert_eq!(echoed("short"), "short");
        assert_eq!(
            clipped(&"a".repeat(ECHO_MAX_CHARS)),
            "a".repeat(ECHO_MAX_CHARS)
        );
    }
}
