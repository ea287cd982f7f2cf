//! `STILLREEL_METRICS_TOKEN`: the bearer token `/metrics` asks for, when set.

use sha2::{Digest, Sha256};

use super::error::ConfigError;

/// The shortest token accepted: 16 characters of a random string are out of reach of guessing
/// over HTTP, and shorter is more likely a placeholder left in a file.
const MIN_LEN: usize = 16;

/// A token `/metrics` requires as `Authorization: Bearer <token>`. Kept as its SHA-256 so the
/// comparison takes the same time wherever the presented token first differs, and the token
/// itself never reaches a log through `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsToken([u8; 32]);

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(<redacted>)")
    }
}

impl MetricsToken {
    /// Reads the variable's value (already trimmed, unset when empty).
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        if text.chars().count() < MIN_LEN || text.chars().any(|c| c.is_whitespace()) {
            return Err(ConfigError {
                var: "STILLREEL_METRICS_TOKEN",
                message: format!(
                    "must be at least {MIN_LEN} characters without spaces (e.g. the output of \
                     `openssl rand -hex 32`)"
                ),
            });
        }
        Ok(Self(Sha256::digest(text.as_bytes()).into()))
    }

    /// Whether an `Authorization` header value is `Bearer <this token>`.
    pub fn accepts(&self, authorization: Option<&str>) -> bool {
        let Some(presented) = authorization.and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        }) else {
            return false;
        };
        let digest: [u8; 32] = Sha256::digest(presented.trim().as_bytes()).into();
        digest == self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bearer_token_is_accepted() {
        let token = MetricsToken::parse("0123456789abcdef0123").expect("valid");
        assert!(token.accepts(Some("Bearer 0123456789abcdef0123")));
        for presented in [
            None,
            Some("0123456789abcdef0123"),
            Some("Bearer 0123456789abcdef012"),
            Some("Basic 0123456789abcdef0123"),
            Some("Bearer "),
        ] {
            assert!(!token.accepts(presented), "{presented:?}");
        }
        assert!(!format!("{token:?}").contains("0123"));
        for bad in ["short", "0123456789abcdef 0123"] {
            let err = MetricsToken::parse(bad).expect_err(bad);
            assert_eq!(err.var, "STILLREEL_METRICS_TOKEN");
        }
    }
}
