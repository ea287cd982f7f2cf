//! Safe media fetching (docs/API-DESIGN.md#media-fetching).
//!
//! Every hop of a download is checked the same way: the URL is parsed (the WHATWG parser turns
//! `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` into `127.0.0.1`), the host is resolved
//! here, **every** resolved address must be public (or allow-listed), and the request is then
//! pinned to the checked address: the client's own DNS is replaced by one that refuses every
//! name, so nothing but the checked address can be connected to. Redirects are followed by
//! hand (at most [`FetchConfig::max_redirects`]), each target checked anew. The body is
//! streamed and cut at the size limit, abandoned when it arrives slower than
//! [`FetchConfig::min_rate`], and an image is refused as soon as its header declares more
//! than [`FetchConfig::max_pixels`]; the format is decided by magic bytes.
//!
//! [`Fetcher::fetch_all`] fetches a job's inputs a few at a time under one deadline for the
//! whole set, so a job with 20 slow sources costs one deadline, not twenty.
//!
//! This file is over 400 lines of code on purpose: the download path (resolve, check, pin,
//! redirect, stream under the limits) is one safety argument, best read top to bottom in one
//! place. The rest lives in the submodules: address rules, allow-list, format sniffing, EXIF
//! orientation, [`FetchConfig`] and [`FetchError`].

pub mod address;
pub mod allow;
mod config;
mod error;
mod fetched;
mod heic;
mod limits;
mod pinned;
pub mod post;

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use reqwest::Url;
use reqwest::redirect::Policy;
use url_host::Host;

pub use self::address::{NonPublic, check_public};
pub use self::allow::{AllowList, BadAllowEntry};
pub use self::config::{FetchConfig, FetchRequest, MinRate};
pub use self::error::{FetchError, MediaErrorKind};
pub use self::fetched::{FetchedMedia, fnv1a};
use self::limits::Limits;
use self::pinned::{NoDns, Purpose, Target, display_host, request_error};
pub use self::post::PostAnswer;
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::{self as sniff, sniff};
use stillreel_core::media::{MediaClass, MediaFormat};

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

/// The server's own files: a URL under the public URL is read from here, so the server never
/// fetches from itself over the network (and needs no allow-list entry for itself).
pub trait OwnFiles: Send + Sync {
    /// The local file behind `url_path` (the URL's path, e.g. `/files/uploads/a.jpg`, already
    /// normalized: no `.` or `..` segments), or `None` when there is none.
    fn local_file(&self, url_path: &str) -> Option<PathBuf>;

    /// The stored file behind `url_path` when it is kept in an object store rather than on
    /// this machine: the storage and the key to read it through. Checked before
    /// [`OwnFiles::local_file`].
    fn stored_file(&self, url_path: &str) -> Option<(Arc<dyn crate::Storage>, String)> {
        let _ = url_path;
        None
    }
}

/// The path the fetcher reads `url` by when it is one of the server's own (under
/// `public_url`: same scheme, host and port, its path below the public URL's), as
/// [`OwnFiles`] is given it: normalized by URL parsing, so `/./`, `/x/../`, `%2e%2e` and
/// backslashes are gone. `None` for any other URL, which is fetched over the network.
pub fn own_url_path(public_url: &Url, url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    own_path(public_url, &url).map(str::to_owned)
}

fn own_path<'a>(base: &Url, url: &'a Url) -> Option<&'a str> {
    let same_origin = url.scheme() == base.scheme()
        && url.host_str() == base.host_str()
        && url.port_or_known_default() == base.port_or_known_default();
    let prefix = base.path().trim_end_matches('/');
    let under = url
        .path()
        .strip_prefix(prefix)
        .is_some_and(|rest| rest.starts_with('/'));
    (same_origin && under).then(|| url.path())
}

/// Where one of the server's own files is read from.
enum Own {
    /// A file on this machine (`None`: there is no such file).
    Local(Option<PathBuf>),
    /// A key in storage elsewhere.
    Stored(Arc<dyn crate::Storage>, String),
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

    /// Downloads `url` into `dir/<stem>.<ext>` and checks it is media of `class`. Messages
    /// about size name the URL's host; [`Fetcher::fetch_as`] names a request field instead.
    pub async fn fetch(
        &self,
        url: &str,
        class: MediaClass,
        dir: &Path,
        stem: &str,
    ) -> Result<FetchedMedia, FetchError> {
        self.fetch_as(url, class, dir, stem, &display_host(url))
            .await
    }

    /// Fetches every request, at most [`FetchConfig::concurrency`] at a time, all within one
    /// [`FetchConfig::total_timeout`]. The media come back in request order; the first
    /// failure (or, at the deadline, the first request still downloading) ends the whole
    /// set and is returned with its request's index. `done` is called after each success
    /// with the number finished so far.
    pub async fn fetch_all(
        &self,
        requests: &[FetchRequest],
        dir: &Path,
        done: &mut (dyn FnMut(usize) + Send),
    ) -> Result<Vec<FetchedMedia>, (usize, FetchError)> {
        let deadline = tokio::time::Instant::now() + self.config.total_timeout;
        let mut results: Vec<Option<FetchedMedia>> = vec![None; requests.len()];
        // Boxed as `dyn Future + Send`: a stream of closure-made futures that borrow trips the
        // compiler's higher-ranked `Send` check when a caller spawns the job.
        type Download<'a> =
            Pin<Box<dyn Future<Output = (usize, Result<FetchedMedia, FetchError>)> + Send + 'a>>;
        let downloads: Vec<Download<'_>> = requests
            .iter()
            .enumerate()
            .map(|(i, r)| {
                Box::pin(async move {
                    // The set's deadline below bounds every download; none of its own.
                    (
                        i,
                        self.fetch_within(&r.url, r.class, dir, &r.stem, &r.field)
                            .await,
                    )
                }) as Download<'_>
            })
            .collect();
        let mut downloads =
            stream::iter(downloads).buffer_unordered(self.config.concurrency.max(1));
        let mut finished = 0;
        loop {
            match tokio::time::timeout_at(deadline, downloads.next()).await {
                Ok(Some((i, Ok(media)))) => {
                    results[i] = Some(media);
                    finished += 1;
                    done(finished);
                }
                Ok(Some((i, Err(error)))) => return Err((i, error)),
                Ok(None) => break,
                Err(_) => {
                    // Downloads start in order, so the first unfinished one is in flight.
                    let late = results.iter().position(Option::is_none).unwrap_or(0);
                    let field = requests.get(late).map_or("a media URL", |r| &r.field);
                    return Err((
                        late,
                        FetchError::transient(
                            MediaErrorKind::Unreachable,
                            format!(
                                "{field} was not downloaded in time: a video's media get {} s in all",
                                self.config.total_timeout.as_secs()
                            ),
                        ),
                    ));
                }
            }
        }
        Ok(results.into_iter().flatten().collect())
    }

    /// [`Fetcher::fetch`], with messages about the media naming `field`.
    pub async fn fetch_as(
        &self,
        url: &str,
        class: MediaClass,
        dir: &Path,
        stem: &str,
        field: &str,
    ) -> Result<FetchedMedia, FetchError> {
        let deadline = self.config.total_timeout;
        match tokio::time::timeout(deadline, self.fetch_within(url, class, dir, stem, field)).await
        {
            Ok(result) => result,
            Err(_) => Err(FetchError::transient(
                MediaErrorKind::Unreachable,
                format!(
                    "{field} did not finish downloading within {} s",
                    deadline.as_secs()
                ),
            )),
        }
    }

    /// [`Fetcher::fetch_as`] without a deadline: the caller sets one.
    async fn fetch_within(
        &self,
        url: &str,
        class: MediaClass,
        dir: &Path,
        stem: &str,
        field: &str,
    ) -> Result<FetchedMedia, FetchError> {
        let limits = Limits {
            field,
            class,
            max_bytes: self.config.max_bytes(class),
            max_pixels: self.config.max_pixels,
            min_rate: self.config.min_rate,
        };
        let bytes = self.download(url, &limits).await?;
        let host = display_host(url);
        // HEIC is no format the renderer reads: it is decoded to a JPEG below.
        let heic = class == MediaClass::Image && crate::media::heif::is_heic(&bytes);
        let format = match sniff(&bytes).filter(|f| f.class() == class) {
            Some(format) => format,
            None if heic => MediaFormat::Jpeg,
            None => {
                let wanted = match class {
                    MediaClass::Image => "a JPEG, PNG, WebP or HEIC image",
                    MediaClass::Audio => "MP3, AAC, M4A, WAV, Ogg or FLAC audio",
                };
                return Err(FetchError::permanent(
                    MediaErrorKind::Unsupported,
                    format!(
                        "{host} is not {wanted} (its first bytes say so, whatever its name); upload {wanted} file"
                    ),
                ));
            }
        };
        if heic {
            limits.check_image(&bytes, &host)?;
            heic::check_header(&bytes, &host, &limits)?;
            return heic::decode(&self.config.heif, &bytes, dir, stem, &host, &limits).await;
        }
        let (orientation, dimensions) = match class {
            MediaClass::Image => {
                let dims = limits.check_image(&bytes, &host)?;
                // ffmpeg decodes a truncated picture with a grey lower part and exits 0.
                if sniff::is_cut_short(format, &bytes) {
                    return Err(FetchError::permanent(
                        MediaErrorKind::Unsupported,
                        format!(
                            "the image at {host} is cut short: its end is missing after {} bytes; upload the complete file",
                            bytes.len()
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

    /// The body of `url` after redirects, within `limits`.
    async fn download(&self, raw: &str, limits: &Limits<'_>) -> Result<Vec<u8>, FetchError> {
        let unreachable = |msg: String| FetchError::permanent(MediaErrorKind::Unreachable, msg);
        let mut url =
            Url::parse(raw).map_err(|_| unreachable("the URL cannot be parsed".to_owned()))?;
        let started = Instant::now();
        for _hop in 0..=self.config.max_redirects {
            if let Some(own) = self.own_file(&url) {
                return self.read_own(&url, own, limits).await;
            }
            if !matches!(url.scheme(), "http" | "https") {
                return Err(unreachable(format!(
                    "{} is not an http or https URL",
                    display_host(url.as_str())
                )));
            }
            let target = self.checked_target(&url, Purpose::Media).await?;
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
            return self.read_body(&url, response, limits).await;
        }
        Err(unreachable(format!(
            "more than {} redirects starting at {}",
            self.config.max_redirects,
            display_host(raw)
        )))
    }

    /// POSTs `body` to `url` with `headers`, all within `timeout` (connection, request and
    /// reading the answer), under the same address rules as downloads (the `post` module). The answer's
    /// body is read up to `max_answer_bytes` and dropped: a receiver cannot make us hold more
    /// than that. A non-public target without an allow-list entry is a permanent error and
    /// nothing is sent.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        timeout: Duration,
        max_answer_bytes: usize,
    ) -> Result<PostAnswer, FetchError> {
        post::within(url, timeout, async {
            let parsed = post::parse_url(url)?;
            let target = self.checked_target(&parsed, Purpose::Webhook).await?;
            post::send(
                &target,
                parsed,
                &self.config,
                headers,
                body,
                max_answer_bytes,
            )
            .await
        })
        .await
    }

    /// Resolves the URL's host and checks every address; the first is the one to connect to.
    async fn checked_target(&self, url: &Url, purpose: Purpose) -> Result<Target, FetchError> {
        // "Not public" reads the same whatever the reason, so the API does not say which kind
        // of internal address a name points at; the log keeps the reason. A name that does
        // not exist at all is told as such (and is final): it is nearly always a typo, and the
        // time to fail already told it apart when it was retried (docs/SECURITY.md).
        let refused = |ip: IpAddr, why: NonPublic| {
            tracing::info!(host = %display_host(url.as_str()), %ip, reason = why.describe(), "media host refused: not a public address");
            FetchError::permanent(
                MediaErrorKind::Unreachable,
                not_reachable_message(url, purpose),
            )
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
                        lookup_failure(&domain, &e)
                    })?
                    .collect();
                let first = *addrs.first().ok_or_else(|| {
                    tracing::info!(host = %domain, "media host has no address");
                    FetchError::permanent(
                        MediaErrorKind::Unreachable,
                        no_such_name_message(&domain),
                    )
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
        limits: &Limits<'_>,
    ) -> Result<Vec<u8>, FetchError> {
        if let Some(len) = response.content_length() {
            limits.check_bytes(len, true)?;
        }
        let mut body = Vec::new();
        let mut header = HeaderProbe::default();
        let window = limits.min_rate.window;
        let mut window_start = Instant::now();
        let mut window_bytes = 0u64;
        loop {
            let window_end = tokio::time::Instant::from_std(window_start + window);
            match tokio::time::timeout_at(window_end, response.chunk()).await {
                Ok(Ok(Some(chunk))) => {
                    limits.check_bytes(body.len() as u64 + chunk.len() as u64, false)?;
                    body.extend_from_slice(&chunk);
                    window_bytes += chunk.len() as u64;
                    header.probe(&body, limits)?;
                }
                Ok(Ok(None)) => break,
                Ok(Err(e)) => return Err(request_error(url, &e)),
                // Nothing arrived before the window closed: judge the window below.
                Err(_) => {}
            }
            if window_start.elapsed() >= window {
                if window_bytes < limits.min_rate.bytes_per_window() {
                    return Err(FetchError::transient(
                        MediaErrorKind::Unreachable,
                        format!(
                            "{} arrived too slowly ({window_bytes} bytes in {} s; at least {} is needed)",
                            limits.field,
                            window.as_secs_f64(),
                            limits.min_rate.describe()
                        ),
                    ));
                }
                window_start = Instant::now();
                window_bytes = 0;
            }
        }
        Ok(body)
    }

    fn own_file(&self, url: &Url) -> Option<Own> {
        let base = self.config.public_url.as_ref()?;
        let own = self.own.as_ref()?;
        let path = own_path(base, url)?;
        Some(match own.stored_file(path) {
            Some((storage, key)) => Own::Stored(storage, key),
            None => Own::Local(own.local_file(path)),
        })
    }

    async fn read_own(
        &self,
        url: &Url,
        own: Own,
        limits: &Limits<'_>,
    ) -> Result<Vec<u8>, FetchError> {
        let missing = || {
            FetchError::permanent(
                MediaErrorKind::Unreachable,
                format!("{} is not a file on this server", url.path()),
            )
        };
        let path = match own {
            Own::Local(path) => path.ok_or_else(missing)?,
            Own::Stored(storage, key) => {
                // The object store is ours: a failure to reach it is worth a retry, a missing
                // key is not.
                let max = limits.max_bytes;
                let read = tokio::task::spawn_blocking(move || {
                    Ok::<_, crate::store::storage::StorageError>(match storage.size(&key)? {
                        None => None,
                        // Refused by its size before any byte is read.
                        Some(size) if size > max => Some(Err(size)),
                        Some(_) => Some(Ok(storage.read(&key)?)),
                    })
                })
                .await
                .unwrap_or_else(|e| Err(crate::store::storage::StorageError(e.to_string())));
                return match read {
                    Ok(Some(Ok(bytes))) => {
                        limits.check_bytes(bytes.len() as u64, true)?;
                        Ok(bytes)
                    }
                    Ok(Some(Err(size))) => {
                        limits.check_bytes(size, true)?;
                        Err(missing())
                    }
                    Ok(None) => Err(missing()),
                    Err(err) => Err(FetchError::transient(
                        MediaErrorKind::Unreachable,
                        format!("{} could not be read from storage: {err}", url.path()),
                    )),
                };
            }
        };
        let meta = tokio::fs::metadata(&path).await.map_err(|_| missing())?;
        limits.check_bytes(meta.len(), true)?;
        tokio::fs::read(&path).await.map_err(|_| missing())
    }
}

/// Reads an image's size from the first bytes of its body while it downloads, so a picture
/// declaring too many pixels is refused after its header, not after 40 MiB.
#[derive(Default)]
struct HeaderProbe {
    /// Decided (size read, or given up: the check after the download still runs).
    settled: bool,
    /// Body length at which to try again; doubling keeps the retries linear in total.
    next_try: usize,
}

impl HeaderProbe {
    /// Past this many bytes without a readable header, leave it to the final check.
    const GIVE_UP: usize = 4 * 1024 * 1024;

    fn probe(&mut self, body: &[u8], limits: &Limits<'_>) -> Result<(), FetchError> {
        if self.settled || limits.class != MediaClass::Image || body.len() < self.next_try {
            return Ok(());
        }
        match imagesize::blob_size(body) {
            Ok(size) => {
                self.settled = true;
                limits.check_pixels(size.width, size.height)
            }
            Err(_) => {
                self.next_try = body.len().saturating_mul(2).max(1024);
                self.settled = body.len() > Self::GIVE_UP;
                Ok(())
            }
        }
    }
}

/// A failed name lookup as a fetch error: a name the resolver says does not exist (or has no
/// address) is final and said so; anything else (the resolver unreachable, a timeout, a
/// "try again") may pass, so it is retried and reads as "could not be reached".
fn lookup_failure(domain: &str, error: &std::io::Error) -> FetchError {
    if is_no_such_name(&error.to_string()) {
        FetchError::permanent(MediaErrorKind::Unreachable, no_such_name_message(domain))
    } else {
        FetchError::transient(
            MediaErrorKind::Unreachable,
            format!("the name {domain} could not be looked up just now (DNS did not answer)"),
        )
    }
}

/// Whether a lookup error says the name does not exist. The standard library reports
/// `getaddrinfo` failures only as text (`failed to lookup address information: <reason>`),
/// the reason being the C library's wording of `EAI_NONAME` / `EAI_NODATA`: glibc's "Name or
/// service not known" and "No address associated with hostname", musl's "Name does not
/// resolve", macOS's "nodename nor servname provided, or not known". Anything else (among
/// them "Temporary failure in name resolution", `EAI_AGAIN`) is not taken as final.
fn is_no_such_name(text: &str) -> bool {
    const NO_SUCH_NAME: [&str; 4] = [
        "name or service not known",
        "no address associated with hostname",
        "name does not resolve",
        "nodename nor servname provided",
    ];
    let text = text.to_ascii_lowercase();
    NO_SUCH_NAME.iter().any(|reason| text.contains(reason))
}

/// The client-facing message for a name that does not exist.
fn no_such_name_message(domain: &str) -> String {
    format!("{domain} does not resolve: no such host name (check the spelling of the URL)")
}

/// The one client-facing message for a host that is not public, with the way around it.
fn not_reachable_message(url: &Url, purpose: Purpose) -> String {
    let host = display_host(url.as_str());
    match purpose {
        Purpose::Media => format!(
            "{host} could not be reached as a public address; media is fetched only from public addresses: \
             send the file with POST /api/v1/upload_media and use the url it answers, or ask the operator \
             to name the host in STILLREEL_FETCH_ALLOW"
        ),
        Purpose::Webhook => format!(
            "{host} could not be reached as a public address; webhooks are delivered only to public addresses \
             (the operator can name the host in STILLREEL_FETCH_ALLOW)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_missing_name_is_final() {
        for text in [
            "failed to lookup address information: Name or service not known",
            "failed to lookup address information: No address associated with hostname",
            "failed to lookup address information: Name does not resolve",
            "failed to lookup address information: nodename nor servname provided, or not known",
        ] {
            assert!(is_no_such_name(text), "{text}");
            let e = lookup_failure("exmaple.invalid", &std::io::Error::other(text));
            assert!(!e.transient, "{text}");
            assert!(e.message.contains("does not resolve"), "{e}");
        }
        for text in [
            "failed to lookup address information: Temporary failure in name resolution",
            "failed to lookup address information: Non-recoverable failure in name resolution",
            "connection refused",
        ] {
            assert!(!is_no_such_name(text), "{text}");
            assert!(lookup_failure("x.example", &std::io::Error::other(text)).transient);
        }
    }
}
