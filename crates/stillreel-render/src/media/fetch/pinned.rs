//! What every connection of the fetcher stands on, downloads and webhook POSTs alike: a
//! resolver that resolves nothing (each connection goes to an address pinned after it was
//! checked), the checked [`Target`], what the connection is for ([`Purpose`]), and the errors
//! and messages that name only a URL's host.

use std::net::SocketAddr;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::error::{FetchError, MediaErrorKind};

/// A DNS resolver that resolves nothing: every connection the client makes must go to an
/// address pinned with `ClientBuilder::resolve` after it was checked.
pub(super) struct NoDns;

impl Resolve for NoDns {
    fn resolve(&self, name: Name) -> Resolving {
        let message = format!("unchecked DNS lookup of {} refused", name.as_str());
        Box::pin(std::future::ready(Err::<Addrs, _>(message.into())))
    }
}

/// A checked destination: connect to `addr`, and present `domain` (if any) as the host name.
pub(super) struct Target {
    pub(super) domain: Option<String>,
    pub(super) addr: SocketAddr,
}

/// What a checked connection is for: the refusal of a non-public host says what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Media of a request: the client can upload the file instead.
    Media,
    /// A webhook delivery: only the operator can allow the host.
    Webhook,
}

/// A failed request as a fetch error naming only the host.
pub(super) fn request_error(url: &Url, error: &reqwest::Error) -> FetchError {
    let host = display_host(url.as_str());
    if error.is_timeout() {
        FetchError::transient(MediaErrorKind::Unreachable, format!("{host} timed out"))
    } else if error.is_connect() {
        FetchError::transient(
            MediaErrorKind::Unreachable,
            format!("could not connect to {host}"),
        )
    } else {
        FetchError::transient(
            MediaErrorKind::Unreachable,
            format!("download from {host} failed"),
        )
    }
}

/// The host of a URL for messages, or a placeholder.
pub(super) fn display_host(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| "the URL".to_owned())
}
