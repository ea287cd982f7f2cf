//! Addresses that must make sense together before anything starts: the public URL every
//! answer's URLs begin with, and the metrics listener beside the API's.

use std::net::SocketAddr;

use super::error::ConfigError;

/// `STILLREEL_PUBLIC_URL` (already known to start with `http://` or `https://`) must have a
/// host and no query or fragment: every answer's URLs start with it and the renderer resolves
/// the service's own files by it, so `http://` would fail only once jobs run.
pub(super) fn check_public_url(url: &str) -> Result<(), ConfigError> {
    let parsed = reqwest::Url::parse(url).ok();
    let hostless = parsed
        .as_ref()
        .and_then(|u| u.host_str())
        .is_none_or(str::is_empty);
    let extra = parsed
        .as_ref()
        .is_some_and(|u| u.query().is_some() || u.fragment().is_some());
    if hostless || extra {
        return Err(ConfigError {
            var: "STILLREEL_PUBLIC_URL",
            message: format!(
                "{url:?} is not a URL with a host, without a query or fragment, like \
                 https://video.example.com"
            ),
        });
    }
    Ok(())
}

/// Whether two listeners would take the same port: on the same address, or one of them on
/// every address (`0.0.0.0`, `[::]`). The second bind would fail after the first had started.
pub(super) fn shares_port(a: SocketAddr, b: SocketAddr) -> bool {
    a.port() == b.port() && (a.ip() == b.ip() || a.ip().is_unspecified() || b.ip().is_unspecified())
}
