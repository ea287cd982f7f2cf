//! The one error of the configuration layer, in a module of its own so the groups of
//! variables (`database.rs`, `http.rs`, …) name it without importing their parent.

/// A variable that is set but cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{var}: {message}")]
pub struct ConfigError {
    pub var: &'static str,
    pub message: String,
}
