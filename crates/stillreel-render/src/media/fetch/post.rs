//! Outgoing POSTs (webhook deliveries) under the same rules as media downloads: the host is
//! resolved here, every address must be public or allow-listed, and the connection is pinned
//! to the checked address. Unlike downloads, redirects are never followed: a receiver that
//! answers 3xx has not taken the event, and following it would let a public host bounce the
//! request into a private network.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::redirect::Policy;

use super::config::FetchConfig;
use super::error::{FetchError, MediaErrorKind};
use super::pinned::{NoDns, Target, display_host, request_error};

/// What a receiver answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostAnswer {
    pub status: u16,
}

/// Runs `post` (the checks and the request) within `timeout`; past it, the receiver at `url`
/// did not answer.
pub(super) async fn within(
    url: &str,
    timeout: Duration,
    post: impl Future<Output = Result<PostAnswer, FetchError>>,
) -> Result<PostAnswer, FetchError> {
    match tokio::time::timeout(timeout, post).await {
        Ok(result) => result,
        Err(_) => Err(FetchError::transient(
            MediaErrorKind::Unreachable,
            format!(
                "{} did not answer within {} s",
                display_host(url),
                timeout.as_secs()
            ),
        )),
    }
}

/// Parses a receiver's URL: http or https only.
pub(super) fn parse_url(raw: &str) -> Result<Url, FetchError> {
    let unusable = |msg: String| FetchError::permanent(MediaErrorKind::Unreachable, msg);
    let url = Url::parse(raw).map_err(|_| unusable("the URL cannot be parsed".to_owned()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(unusable(format!(
            "{} is not an http or https URL",
            display_host(raw)
        )));
    }
    Ok(url)
}

/// Sends `body` to the checked `target` of `url`, redirects not followed; the answer's body
/// is read up to `max_answer_bytes` and dropped.
pub(super) async fn send(
    target: &Target,
    url: Url,
    config: &FetchConfig,
    headers: &[(&str, &str)],
    body: &[u8],
    max_answer_bytes: usize,
) -> Result<PostAnswer, FetchError> {
    let mut builder = reqwest::Client::builder()
        .redirect(Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(NoDns))
        .connect_timeout(config.connect_timeout)
        .user_agent(config.user_agent.clone());
    if let Some(domain) = &target.domain {
        builder = builder.resolve(domain, target.addr);
    }
    let client = builder.build().map_err(|e| {
        FetchError::transient(MediaErrorKind::Unreachable, format!("HTTP client: {e}"))
    })?;
    let mut request = client.post(url.clone()).body(body.to_vec());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = request.send().await.map_err(|e| request_error(&url, &e))?;
    let status = response.status().as_u16();
    // Read (and drop) at most the limit, so the connection ends cleanly for small answers
    // and a huge or endless one costs nothing more.
    let mut read = 0usize;
    while read < max_answer_bytes {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
    Ok(PostAnswer { status })
}
