//! Safe media fetching (CONTRACT §6).
//!
//! Every hop of a download is checked the same way: the URL is parsed (the WHATWG parser turns
//! `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` into `127.0.0.1`), the host is resolved
//! here, **every** resolved address must be public (or allow-listed), and the request is then
//! pinned to the checked address: the client's own DNS is replaced by one that refuses every
//! name, so nothing but the checked address can be connected to. Redirects are followed by
//! hand (at most [`FetchConfig::max_redirects`]), each target checked anew. The body is
//! streamed and cut at the size limit; the format is decided by magic bytes.

pub mod address;
pub mod allow;
pub mod orient;
pub mod sniff;

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::redirect::Policy;
use url_host::Host;

pub use self::address::{NonPublic, check_public};
pub use self::allow::{AllowList, BadAllowEntry};
pub use self::orient::ExifOrientation;
pub use self::sniff::{MediaClass, MediaFormat, sniff};
use crate::error::{FetchError, MediaErrorKind};

mod url_host {
    pub use reqwest::Url;
    /// The host of a parsed URL, owned.
    #[derive(Debug)]
    pub enum Host {
        Domain(String),
        Ip(std::net::IpAddr),
    }
    pub fn host(url: &Url) -> Option<Host> {
        // `Url::host` exposes the `url` crate's `Host`; rebuild it so we need not depend on `url`.
        let text = url.host_str()?;
        if let Some(v6) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            return v6.parse().ok().map(Host::Ip);
        }
        match text.parse::<std::net::Ipv4Addr>() {
            Ok(v4) => Some(Host::Ip(v4.into())),
            Err(_) => Some(Host::Domain(text.to_owned())),
        }
    }
}

/// How fetching behaves. [`FetchConfig::default`] follows CONTRACT §6.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// `STILLREEL_FETCH_ALLOW`.
    pub allow: AllowList,
    /// Largest download in bytes; the read stops there.
    pub max_bytes: u64,
    /// Time to establish one TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Time for the whole download, every redirect and DNS lookup included.
    pub total_timeout: Duration,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
    /// `STILLREEL_PUBLIC_URL`: URLs under it are read through [`OwnFiles`], not over HTTP.
    pub public_url: Option<Url>,
    pub user_agent: String,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            allow: AllowList::default(),
            max_bytes: stillreel_core::limits::MAX_MEDIA_BYTES,
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(60),
            max_redirects: 5,
            public_url: None,
            user_agent: concat!("stillreel/", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }
}

/// The server's own files: a URL under the public URL is read from here, so the server never
/// fetches from itself over the network (and needs no allow-list entry for itself).
pub trait OwnFiles: Send + Sync {
    /// The local file behind `url_path` (the URL's path, e.g. `/files/uploads/a.jpg`, already
    /// normalized: no `.` or `..` segments), or `None` when there is none.
    fn local_file(&self, url_path: &str) -> Option<PathBuf>;
}

/// A downloaded, recognised media file in the job's work directory.
#[derive(Debug, Clone)]
pub struct FetchedMedia {
    pub path: PathBuf,
    pub format: MediaFormat,
    pub bytes: u64,
    /// FNV-1a of the file's bytes: a stable fingerprint for the `auto` motion rule.
    pub digest: u64,
    /// EXIF orientation (images only; upright otherwise).
    pub orientation: ExifOrientation,
    /// Stored pixel size (before orientation), images only.
    pub dimensions: Option<(u32, u32)>,
}

impl FetchedMedia {
    /// Pixel size as displayed, after the EXIF orientation is applied.
    pub fn upright_dimensions(&self) -> Option<(u32, u32)> {
        self.dimensions.map(|(w, h)| {
            if self.orientation.swaps_axes() {
                (h, w)
            } else {
                (w, h)
            }
        })
    }
}

/// Downloads media under the public-address rule. Cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    config: Arc<FetchConfig>,
    own: Option<Arc<dyn OwnFiles>>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.config)
            .field("own", &self.own.is_some())
            .finish()
    }
}

/// A DNS resolver that resolves nothing: every connection the client makes must go to an
/// address pinned with `ClientBuilder::resolve` after it was checked.
struct NoDns;

impl Resolve for NoDns {
    fn resolve(&self, name: Name) -> Resolving {
        let message = format!("unchecked DNS lookup of {} refused", name.as_str());
        Box::pin(std::future::ready(Err::<Addrs, _>(message.into())))
    }
}

impl Fetcher {
    pub fn new(config: FetchConfig, own: Option<Arc<dyn OwnFiles>>) -> Self {
        // reqwest is built without a bundled crypto provider (no aws-lc); use ring. Installing
        // twice is harmless: the second call reports the first provider and is ignored.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Fetcher {
            config: Arc::new(config),
            own,
        }
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Downloads `url` into `dir/<stem>.<ext>` and checks it is media of `class`.
    pub async fn fetch(
        &self,
        url: &str,
        class: MediaClass,
        dir: &Path,
        stem: &str,
    ) -> Result<FetchedMedia, FetchError> {
        let deadline = self.config.total_timeout;
        let bytes = match tokio::time::timeout(deadline, self.download(url)).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(FetchError::transient(
                    MediaErrorKind::Unreachable,
                    format!(
                        "{} did not finish downloading within {} s",
                        display_host(url),
                        deadline.as_secs()
                    ),
                ));
            }
        };
        let format = sniff(&bytes)
            .filter(|f| f.class() == class)
            .ok_or_else(|| {
                let wanted = match class {
                    MediaClass::Image => "a JPEG, PNG or WebP image",
                    MediaClass::Audio => "MP3, AAC, M4A, WAV, Ogg or FLAC audio",
                };
                FetchError::permanent(
                    MediaErrorKind::Unsupported,
                    format!("{} is not {wanted}", display_host(url)),
                )
            })?;
        let (orientation, dimensions) = match class {
            MediaClass::Image => {
                let size = imagesize::blob_size(&bytes).map_err(|_| {
                    FetchError::permanent(
                        MediaErrorKind::Unsupported,
                        format!("the image at {} is damaged", display_host(url)),
                    )
                })?;
                let dims = (
                    u32::try_from(size.width).unwrap_or(u32::MAX),
                    u32::try_from(size.height).unwrap_or(u32::MAX),
                );
                if dims.0 == 0 || dims.1 == 0 || dims.0 > 16_384 || dims.1 > 16_384 {
                    return Err(FetchError::permanent(
                        MediaErrorKind::Unsupported,
                        format!(
                            "the image at {} is {}×{} pixels; at most 16384 per side",
                            display_host(url),
                            dims.0,
                            dims.1
                        ),
                    ));
                }
                (ExifOrientation::read(&bytes), Some(dims))
            }
            MediaClass::Audio => (ExifOrientation::UPRIGHT, None),
        };
        let path = dir.join(format!("{stem}.{}", format.extension()));
        tokio::fs::write(&path, &bytes).await.map_err(|e| {
            FetchError::transient(
                MediaErrorKind::Unreachable,
                format!("could not store the download: {e}"),
            )
        })?;
        Ok(FetchedMedia {
            path,
            format,
            bytes: bytes.len() as u64,
            digest: fnv1a(&bytes),
            orientation,
            dimensions,
        })
    }

    /// The body of `url` after redirects, at most `max_bytes` long.
    async fn download(&self, raw: &str) -> Result<Vec<u8>, FetchError> {
        let unreachable = |msg: String| FetchError::permanent(MediaErrorKind::Unreachable, msg);
        let mut url =
            Url::parse(raw).map_err(|_| unreachable("the URL cannot be parsed".to_owned()))?;
        let started = Instant::now();
        for _hop in 0..=self.config.max_redirects {
            if let Some(path) = self.own_file(&url) {
                return self.read_own(&url, path).await;
            }
            if !matches!(url.scheme(), "http" | "https") {
                return Err(unreachable(format!(
                    "{} is not an http or https URL",
                    display_host(url.as_str())
                )));
            }
            let target = self.checked_target(&url).await?;
            let remaining = self.config.total_timeout.saturating_sub(started.elapsed());
            let mut builder = reqwest::Client::builder()
                .redirect(Policy::none())
                .no_proxy()
                .dns_resolver(Arc::new(NoDns))
                .connect_timeout(self.config.connect_timeout)
                .timeout(remaining.max(Duration::from_millis(1)))
                .user_agent(self.config.user_agent.clone());
            if let Some(domain) = &target.domain {
                builder = builder.resolve(domain, target.addr);
            }
            let client = builder.build().map_err(|e| {
                FetchError::transient(MediaErrorKind::Unreachable, format!("HTTP client: {e}"))
            })?;
            let response = client
                .get(url.clone())
                .send()
                .await
                .map_err(|e| request_error(&url, &e))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| {
                        unreachable(format!(
                            "{} redirected without a location",
                            display_host(url.as_str())
                        ))
                    })?;
                url = url.join(location).map_err(|_| {
                    unreachable(format!(
                        "{} redirected to an invalid URL",
                        display_host(url.as_str())
                    ))
                })?;
                continue;
            }
            if !status.is_success() {
                let message = format!(
                    "{} answered HTTP {}",
                    display_host(url.as_str()),
                    status.as_u16()
                );
                let transient = status.is_server_error()
                    || status == reqwest::StatusCode::TOO_MANY_REQUESTS
                    || status == reqwest::StatusCode::REQUEST_TIMEOUT;
                return Err(FetchError {
                    kind: MediaErrorKind::Unreachable,
                    transient,
                    message,
                });
            }
            return self.read_body(&url, response).await;
        }
        Err(unreachable(format!(
            "more than {} redirects starting at {}",
            self.config.max_redirects,
            display_host(raw)
        )))
    }

    /// Resolves the URL's host and checks every address; the first is the one to connect to.
    async fn checked_target(&self, url: &Url) -> Result<Target, FetchError> {
        // "Not public", "does not resolve" and "has no address" read the same to the client,
        // so the API cannot be used to learn which internal names exist; the log keeps the
        // reason.
        let refused = |ip: IpAddr, why: NonPublic| {
            tracing::info!(host = %display_host(url.as_str()), %ip, reason = why.describe(), "media host refused: not a public address");
            FetchError::permanent(MediaErrorKind::Unreachable, not_reachable_message(url))
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let host = url_host::host(url).ok_or_else(|| {
            FetchError::permanent(
                MediaErrorKind::Unreachable,
                "the URL has no host".to_owned(),
            )
        })?;
        match host {
            Host::Ip(ip) => {
                if !self.config.allow.allows_ip(ip) {
                    check_public(ip).map_err(|why| refused(ip, why))?;
                }
                Ok(Target {
                    domain: None,
                    addr: SocketAddr::new(ip, port),
                })
            }
            Host::Domain(domain) => {
                let addrs: Vec<SocketAddr> = tokio::net::lookup_host((domain.as_str(), port))
                    .await
                    .map_err(|e| {
                        tracing::info!(host = %domain, error = %e, "media host could not be resolved");
                        FetchError::transient(MediaErrorKind::Unreachable, not_reachable_message(url))
                    })?
                    .collect();
                let first = *addrs.first().ok_or_else(|| {
                    tracing::info!(host = %domain, "media host has no address");
                    FetchError::transient(MediaErrorKind::Unreachable, not_reachable_message(url))
                })?;
                if !self.config.allow.allows_host(&domain) {
                    for addr in &addrs {
                        if !self.config.allow.allows_ip(addr.ip()) {
                            check_public(addr.ip()).map_err(|why| refused(addr.ip(), why))?;
                        }
                    }
                }
                Ok(Target {
                    domain: Some(domain),
                    addr: SocketAddr::new(first.ip(), port),
                })
            }
        }
    }

    async fn read_body(
        &self,
        url: &Url,
        mut response: reqwest::Response,
    ) -> Result<Vec<u8>, FetchError> {
        let max = self.config.max_bytes;
        let too_large = || {
            FetchError::permanent(
                MediaErrorKind::TooLarge,
                format!(
                    "{} is larger than {} bytes",
                    display_host(url.as_str()),
                    max
                ),
            )
        };
        if response.content_length().is_some_and(|len| len > max) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| request_error(url, &e))? {
            if body.len() as u64 + chunk.len() as u64 > max {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    fn own_file(&self, url: &Url) -> Option<Option<PathBuf>> {
        let base = self.config.public_url.as_ref()?;
        let own = self.own.as_ref()?;
        let same_origin = url.scheme() == base.scheme()
            && url.host_str() == base.host_str()
            && url.port_or_known_default() == base.port_or_known_default();
        let prefix = base.path().trim_end_matches('/');
        let under = url
            .path()
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'));
        (same_origin && under).then(|| own.local_file(url.path()))
    }

    async fn read_own(&self, url: &Url, path: Option<PathBuf>) -> Result<Vec<u8>, FetchError> {
        let missing = || {
            FetchError::permanent(
                MediaErrorKind::Unreachable,
                format!("{} is not a file on this server", url.path()),
            )
        };
        let path = path.ok_or_else(missing)?;
        let meta = tokio::fs::metadata(&path).await.map_err(|_| missing())?;
        if meta.len() > self.config.max_bytes {
            return Err(FetchError::permanent(
                MediaErrorKind::TooLarge,
                format!(
                    "{} is larger than {} bytes",
                    url.path(),
                    self.config.max_bytes
                ),
            ));
        }
        tokio::fs::read(&path).await.map_err(|_| missing())
    }
}

/// A checked destination: connect to `addr`, and present `domain` (if any) as the host name.
struct Target {
    domain: Option<String>,
    addr: SocketAddr,
}

fn request_error(url: &Url, error: &reqwest::Error) -> FetchError {
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
fn display_host(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| "the URL".to_owned())
}

/// 64-bit FNV-1a: small, stable across versions and platforms (unlike `DefaultHasher`).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The one client-facing message for a host that does not resolve or is not public.
fn not_reachable_message(url: &Url) -> String {
    format!(
        "{} could not be reached as a public address; media is fetched only from public addresses",
        display_host(url.as_str())
    )
}
