//! The small HTTP driver under the protocol adapters: an [`Exchange`] (a request the adapters
//! build as plain data) sent with a size cap on the answer, and the retry rule for rate limits
//! and server errors. The adapters stay pure (request builders, answer parsers); only this
//! module touches the network.

use std::time::{Duration, Instant};

use futures_util::StreamExt as _;

use super::error::ProviderError;

/// Largest answer accepted, and largest decoded answer (a clip may be larger than an input
/// picture): every protocol's answers come through [`Driver::send`].
pub const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// A request, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub method: Method,
    pub url: String,
    /// Header names and values (the `Authorization` one among them when the protocol sends a
    /// key).
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Exchange {
    pub fn get(url: impl Into<String>) -> Self {
        Exchange {
            method: Method::Get,
            url: url.into(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn post_json(url: impl Into<String>, body: &serde_json::Value) -> Self {
        Exchange {
            method: Method::Post,
            url: url.into(),
            headers: vec![("content-type", "application/json".to_owned())],
            body: serde_json::to_vec(body).unwrap_or_default(),
        }
    }

    #[must_use]
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// `Authorization: Bearer <token>` when there is a token.
    #[must_use]
    pub fn bearer(self, token: Option<&str>) -> Self {
        match token {
            Some(t) => self.header("authorization", format!("Bearer {t}")),
            None => self,
        }
    }
}

/// An answer: its status, its `Retry-After` (seconds form) and its body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<Duration>,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// The HTTP client of one role.
#[derive(Debug, Clone)]
pub struct Driver {
    client: reqwest::Client,
    /// The end of the whole call (every request, poll and download of it).
    pub deadline: Instant,
    /// The role's time limit, in seconds, for the error message.
    pub limit_secs: u64,
}

impl Driver {
    pub fn new(client: reqwest::Client, limit: Duration) -> Self {
        Driver {
            client,
            deadline: Instant::now() + limit,
            limit_secs: limit.as_secs(),
        }
    }

    /// A driver on the same client with a time limit of its own (a call after this one's
    /// deadline, such as the cancel of a prediction that ran out of time).
    pub fn with_limit(&self, limit: Duration) -> Driver {
        Driver::new(self.client.clone(), limit)
    }

    fn left(&self) -> Result<Duration, ProviderError> {
        self.deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(ProviderError::TimedOut(self.limit_secs))
    }

    /// Sends once; the answer's body is read up to [`MAX_ANSWER_BYTES`].
    pub async fn send(&self, exchange: &Exchange) -> Result<Answer, ProviderError> {
        let left = self.left()?;
        let mut request = match exchange.method {
            Method::Get => self.client.get(&exchange.url),
            Method::Post => self.client.post(&exchange.url).body(exchange.body.clone()),
        };
        for (name, value) in &exchange.headers {
            request = request.header(*name, value);
        }
        let limit = self.limit_secs;
        let sent = tokio::time::timeout(left, async {
            let response = request.send().await?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header("retry-after").and_then(|v| parse_retry_after(&v));
            let content_type = header("content-type");
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Ok(Err(ProviderError::Invalid(format!(
                        "the answer is larger than {} MB",
                        MAX_ANSWER_BYTES / (1024 * 1024)
                    ))));
                }
                body.extend_from_slice(&chunk);
            }
            Ok::<_, reqwest::Error>(Ok(Answer {
                status,
                retry_after,
                content_type,
                body,
            }))
        })
        .await;
        match sent {
            Err(_) => Err(ProviderError::TimedOut(limit)),
            Ok(Err(e)) if e.is_timeout() => Err(ProviderError::TimedOut(limit)),
            Ok(Err(_)) => Err(ProviderError::Unreachable),
            Ok(Ok(answer)) => answer,
        }
    }

    /// Sends, and again after a delay while the answer is a rate limit (429 that is not a
    /// quota refusal, or Cog's 409 busy) or a server error, honouring `Retry-After`, until the
    /// call's deadline. `refusal` tells a permanent refusal from a transient one.
    pub async fn send_retrying(
        &self,
        exchange: &Exchange,
        refusal: impl Fn(&Answer) -> Option<ProviderError>,
    ) -> Result<Answer, ProviderError> {
        let mut attempt = 0u32;
        let mut unreachable_since: Option<Instant> = None;
        loop {
            let answer = self.send(exchange).await;
            if matches!(answer, Err(ProviderError::Unreachable)) {
                // A host that refuses connections for this long is down, not restarting: the
                // job is retried later instead of waiting out the role's whole time limit.
                let since = *unreachable_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= UNREACHABLE_BUDGET {
                    return answer;
                }
            } else {
                unreachable_since = None;
            }
            let wait = match &answer {
                Ok(a) if a.is_success() => return answer,
                Ok(a) => {
                    if let Some(permanent) = refusal(a) {
                        return Err(permanent);
                    }
                    if !is_retryable(a.status) {
                        return answer;
                    }
                    retry_delay(attempt, a.retry_after)
                }
                Err(ProviderError::Unreachable) => retry_delay(attempt, None),
                Err(_) => return answer,
            };
            attempt += 1;
            let left = self.left()?;
            if wait >= left {
                // The host asks for longer than the call may still take: the job is retried
                // later rather than sleeping into the time limit.
                return match answer {
                    Ok(_) => Err(ProviderError::Busy),
                    Err(e) => Err(e),
                };
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// Waits `delay` if the deadline allows it.
    pub async fn pause(&self, delay: Duration) -> Result<(), ProviderError> {
        let left = self.left()?;
        if delay >= left {
            tokio::time::sleep(left).await;
            return Err(ProviderError::TimedOut(self.limit_secs));
        }
        tokio::time::sleep(delay).await;
        Ok(())
    }
}

/// How long one call keeps retrying a host that cannot be reached at all.
pub const UNREACHABLE_BUDGET: Duration = Duration::from_secs(30);

/// 429, Cog's 409 (busy with another prediction), 5xx.
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 409 | 429) || (500..600).contains(&status)
}

/// The delay before retry `attempt` (0 for the first): the host's `Retry-After` when it sent
/// one (at most 60 s), otherwise 1 s, 2 s, 4 s … up to 30 s.
pub fn retry_delay(attempt: u32, retry_after: Option<Duration>) -> Duration {
    match retry_after {
        Some(d) => d.min(Duration::from_secs(60)),
        None => Duration::from_secs(1u64 << attempt.min(5)).min(Duration::from_secs(30)),
    }
}

/// The delay before poll `attempt` of a running prediction: 0.5 s, 1 s, 2 s, then every 5 s.
pub fn poll_delay(attempt: u32) -> Duration {
    Duration::from_millis((500u64 << attempt.min(4)).min(5000))
}

/// `Retry-After` in seconds (the HTTP-date form is not used by the hosts we speak to).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A message from a host, safe to store and show: at most 200 characters, with every word
/// that looks like an address or holds the key replaced.
pub fn safe_message(text: &str, token: Option<&str>) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            let core = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            let lower = core.to_ascii_lowercase();
            let is_address = lower.contains("://")
                || lower.starts_with("www.")
                || lower.contains('@')
                || core.parse::<std::net::IpAddr>().is_ok()
                || core
                    .split(':')
                    .next()
                    .is_some_and(|h| h.parse::<std::net::Ipv4Addr>().is_ok());
            let has_key = token.is_some_and(|t| !t.is_empty() && w.contains(t))
                || lower.starts_with("r8_")
                || lower.starts_with("sk-");
            if is_address || has_key {
                "[…]".to_owned()
            } else {
                w.to_owned()
            }
        })
        .collect();
    let joined = words.join(" ");
    if joined.chars().count() > 200 {
        let mut cut: String = joined.chars().take(199).collect();
        cut.push('…');
        cut
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_honour_retry_after_and_back_off() {
        assert_eq!(retry_delay(0, None), Duration::from_secs(1));
        assert_eq!(retry_delay(2, None), Duration::from_secs(4));
        assert_eq!(retry_delay(9, None), Duration::from_secs(30));
        assert_eq!(
            retry_delay(0, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            retry_delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(60)
        );
        assert_eq!(parse_retry_after(" 12 "), Some(Duration::from_secs(12)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(poll_delay(0), Duration::from_millis(500));
        assert_eq!(poll_delay(1), Duration::from_secs(1));
        assert_eq!(poll_delay(10), Duration::from_secs(5));
        assert!(is_retryable(429) && is_retryable(409) && is_retryable(503));
        assert!(!is_retryable(402) && !is_retryable(422) && !is_retryable(401));
    }

    #[test]
    fn messages_name_no_address_or_key() {
        let m = safe_message(
            "CUDA out of memory at http://10.0.0.4:5000/predictions for key r8_abc and sk-xyz \
             (10.0.0.4:5000) owner@example.com tok123",
            Some("tok123"),
        );
        assert_eq!(
            m,
            "CUDA out of memory at […] for key […] and […] […] […] […]"
        );
        assert!(
            !m.contains("http") && !m.contains("r8_") && !m.contains("tok123"),
            "{m}"
        );
        let long = "x ".repeat(300);
        assert_eq!(safe_message(&long, None).chars().count(), 200);
    }
}
