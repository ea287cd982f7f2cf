//! [`FetchError`]: why a media download failed, and which wire code that maps to
//! (docs/API-DESIGN.md#render-failures).

/// Which wire code a media problem maps to (docs/API-DESIGN.md#render-failures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaErrorKind {
    /// Could not be downloaded: refused address, DNS, connection, timeout, HTTP error, redirects.
    Unreachable,
    /// Over the byte limit, or an image whose header declares too many pixels.
    TooLarge,
    /// Not one of the accepted image or audio formats (by content).
    Unsupported,
}

impl MediaErrorKind {
    /// The wire code.
    pub const fn code(self) -> &'static str {
        match self {
            MediaErrorKind::Unreachable => "media_unreachable",
            MediaErrorKind::TooLarge => "media_too_large",
            MediaErrorKind::Unsupported => "media_unsupported",
        }
    }
}

/// A failed media download.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct FetchError {
    pub kind: MediaErrorKind,
    /// Worth retrying later (timeouts, 5xx, 429, connection failures); permanent otherwise.
    pub transient: bool,
    /// A sentence for the user; names the URL's host, never internal paths.
    pub message: String,
}

impl FetchError {
    pub(super) fn permanent(kind: MediaErrorKind, message: impl Into<String>) -> Self {
        FetchError {
            kind,
            transient: false,
            message: message.into(),
        }
    }

    pub(super) fn transient(kind: MediaErrorKind, message: impl Into<String>) -> Self {
        FetchError {
            kind,
            transient: true,
            message: message.into(),
        }
    }

    /// The wire code (`media_unreachable`, `media_too_large`, `media_unsupported`).
    pub const fn code(&self) -> &'static str {
        self.kind.code()
    }
}
