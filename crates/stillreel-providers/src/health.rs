//! A role's health as its host last reported it. Cog containers answer `GET /health-check`
//! with one of seven states; stillreel reads it before a role's first call and whenever the
//! container answers 503, so a model whose setup failed fails the video at once with the
//! container's own error text instead of being retried as "busy" for the whole time limit.
//! Hosted protocols have no such check (`unchecked`); a host that could not be reached is
//! `unreachable`. `/get_engines` shows each role's last known state.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::error::ProviderError;
use super::http::{Answer, safe_message};

/// What a health check said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    /// Never checked (a hosted protocol, or no call yet).
    Unchecked,
    /// The host could not be reached when last asked.
    Unreachable,
    /// Cog's seven states; the failed ones keep the container's error text.
    Unknown,
    Starting,
    Ready,
    Busy,
    SetupFailed(String),
    Defunct(String),
    Unhealthy,
}

impl Health {
    /// The wire name (`/get_engines`, logs).
    pub fn as_str(&self) -> &'static str {
        match self {
            Health::Unchecked => "unchecked",
            Health::Unreachable => "unreachable",
            Health::Unknown => "unknown",
            Health::Starting => "starting",
            Health::Ready => "ready",
            Health::Busy => "busy",
            Health::SetupFailed(_) => "setup_failed",
            Health::Defunct(_) => "defunct",
            Health::Unhealthy => "unhealthy",
        }
    }

    /// Whether a prediction may be sent now (`READY`, or `BUSY`, which answers 409 and is
    /// retried).
    pub fn takes_predictions(&self) -> bool {
        matches!(self, Health::Ready | Health::Busy)
    }

    /// The failure for a state that will not pass without the operator: setup failed or
    /// defunct. `None` for every other state.
    pub fn failure(&self) -> Option<ProviderError> {
        let (state, text) = match self {
            Health::SetupFailed(text) => ("setup failed", text),
            Health::Defunct(text) => ("defunct", text),
            _ => return None,
        };
        Some(ProviderError::Unavailable {
            state: state.to_owned(),
            message: text.clone(),
        })
    }
}

/// Reads a Cog health check: `{"status": "SETUP_FAILED", "setup": {"logs": "…"}}`. The error
/// text of a failed setup is the last line of the setup logs, without the chain of
/// "… failed:" prefixes the container adds in front of the Python exception.
pub fn parse(answer: &Answer, token: Option<&str>) -> Result<Health, ProviderError> {
    let value: Value = serde_json::from_slice(&answer.body)
        .map_err(|_| ProviderError::Invalid("the health check is not JSON".into()))?;
    let text = || {
        let logs = value
            .pointer("/setup/logs")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let last = logs
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let cause = innermost_cause(last);
        if cause.is_empty() {
            "no error text".to_owned()
        } else {
            safe_message(cause, token)
        }
    };
    Ok(
        match value.get("status").and_then(Value::as_str).unwrap_or("") {
            "READY" => Health::Ready,
            "BUSY" => Health::Busy,
            "STARTING" => Health::Starting,
            "SETUP_FAILED" => Health::SetupFailed(text()),
            "DEFUNCT" => Health::Defunct(text()),
            "UNHEALTHY" => Health::Unhealthy,
            _ => Health::Unknown,
        },
    )
}

/// The text after the last "failed: " (case-insensitive) of a chain such as
/// "worker setup failed: … Setup failed: setup failed: RuntimeError: no weights", or the
/// whole text when there is none.
pub fn innermost_cause(text: &str) -> &str {
    let lower = text.to_ascii_lowercase();
    match lower.rfind("failed: ") {
        Some(at) => text[at + "failed: ".len()..].trim(),
        None => text.trim(),
    }
}

/// A role's last known health, shared by every clone of its client.
#[derive(Debug, Clone)]
pub struct HealthBoard(Arc<Mutex<Health>>);

impl Default for HealthBoard {
    fn default() -> Self {
        HealthBoard(Arc::new(Mutex::new(Health::Unchecked)))
    }
}

impl HealthBoard {
    pub fn get(&self) -> Health {
        self.0.lock().map(|h| h.clone()).unwrap_or(Health::Unknown)
    }

    pub fn set(&self, health: Health) {
        if let Ok(mut h) = self.0.lock() {
            *h = health;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(body: &str) -> Answer {
        Answer {
            status: 200,
            retry_after: None,
            content_type: Some("application/json".into()),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn cog_states_parse_with_their_error_text() {
        // As Cog 0.23.1 (coglet) answers when `setup()` raised.
        let failed = answer(
            r#"{"status":"SETUP_FAILED","setup":{"status":"failed","logs":"worker setup failed: worker setup failed (slot 0ca2): Setup failed: setup failed: RuntimeError: weights missing: /src/weights.pt not found"}}"#,
        );
        let h = parse(&failed, None).expect("parse");
        assert_eq!(
            h,
            Health::SetupFailed("RuntimeError: weights missing: /src/weights.pt not found".into())
        );
        assert_eq!(h.as_str(), "setup_failed");
        assert_eq!(
            h.failure().expect("fails").describe("the depth model"),
            "the depth model is unavailable (setup failed): RuntimeError: weights missing: \
             /src/weights.pt not found"
        );
        for (status, want) in [
            ("READY", Health::Ready),
            ("BUSY", Health::Busy),
            ("STARTING", Health::Starting),
            ("UNHEALTHY", Health::Unhealthy),
            ("UNKNOWN", Health::Unknown),
            ("SOMETHING_NEW", Health::Unknown),
        ] {
            let h = parse(&answer(&format!(r#"{{"status":"{status}"}}"#)), None).expect("parse");
            assert_eq!(h, want, "{status}");
            assert!(h.failure().is_none());
        }
        let defunct = parse(
            &answer(r#"{"status":"DEFUNCT","setup":{"logs":"line one\nworker died: CUDA error at http://10.0.0.1:5000\n"}}"#),
            None,
        )
        .expect("parse");
        assert_eq!(
            defunct,
            Health::Defunct("worker died: CUDA error at […]".into())
        );
        assert!(Health::Ready.takes_predictions() && Health::Busy.takes_predictions());
        assert!(!Health::Starting.takes_predictions());
        assert!(parse(&answer("<html>"), None).is_err());
    }
}
