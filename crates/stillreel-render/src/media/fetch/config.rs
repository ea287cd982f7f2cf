//! How fetching behaves ([`FetchConfig`], [`MinRate`]) and what one job asks for
//! ([`FetchRequest`]).

use std::time::Duration;

use reqwest::Url;

use stillreel_core::media::MediaClass;

use super::AllowList;
use crate::media::heif::HeifDecoder;

/// How fetching behaves. [`FetchConfig::default`] follows docs/API-DESIGN.md#media-fetching and
/// #media-limits.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// `STILLREEL_FETCH_ALLOW`.
    pub allow: AllowList,
    /// Largest image download in bytes; the read stops there (`STILLREEL_MEDIA_MAX_BYTES`).
    pub max_image_bytes: u64,
    /// Largest audio download in bytes (`STILLREEL_MEDIA_MAX_BYTES`).
    pub max_audio_bytes: u64,
    /// Most pixels (width × height) an image may declare in its header
    /// (`STILLREEL_MEDIA_MAX_PIXELS`).
    pub max_pixels: u64,
    /// Time to establish one TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Time for one download, every redirect and DNS lookup included; `Fetcher::fetch_all`
    /// gives this much to a job's whole set of downloads (`STILLREEL_FETCH_DEADLINE_SECS`).
    pub total_timeout: Duration,
    /// The slowest transfer tolerated (`STILLREEL_FETCH_MIN_RATE`).
    pub min_rate: MinRate,
    /// Downloads of one job in flight at once (`STILLREEL_FETCH_CONCURRENCY`).
    pub concurrency: usize,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
    /// `STILLREEL_PUBLIC_URL`: URLs under it are read through the `OwnFiles` the fetcher is given, not over HTTP.
    pub public_url: Option<Url>,
    pub user_agent: String,
    /// How HEIC pictures are decoded into the JPEG the renderer reads.
    pub heif: HeifDecoder,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            allow: AllowList::default(),
            max_image_bytes: stillreel_core::limits::MAX_IMAGE_BYTES,
            max_audio_bytes: stillreel_core::limits::MAX_AUDIO_BYTES,
            max_pixels: stillreel_core::limits::MAX_IMAGE_PIXELS,
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(60),
            min_rate: MinRate::default(),
            concurrency: 4,
            max_redirects: 5,
            public_url: None,
            user_agent: concat!("stillreel/", env!("CARGO_PKG_VERSION")).to_owned(),
            heif: HeifDecoder::default(),
        }
    }
}

impl FetchConfig {
    /// The byte limit for media of `class`.
    pub fn max_bytes(&self, class: MediaClass) -> u64 {
        match class {
            MediaClass::Image => self.max_image_bytes,
            MediaClass::Audio => self.max_audio_bytes,
        }
    }
}

/// A minimum transfer rate: a body that brings fewer than `bytes_per_sec × window` bytes in
/// any `window` (counted from the response headers) is abandoned. A source that trickles
/// would otherwise hold a worker for the whole deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinRate {
    pub bytes_per_sec: u64,
    pub window: Duration,
}

impl Default for MinRate {
    /// 16 KiB/s over 10 s: a 40 MiB photo at that rate would take 43 minutes, so nothing
    /// legitimate is that slow, and 10 s rides out a stall of a healthy connection.
    fn default() -> Self {
        MinRate {
            bytes_per_sec: 16 * 1024,
            window: Duration::from_secs(10),
        }
    }
}

impl MinRate {
    /// `16 KiB/s`, or `500 bytes/s` for a rate that is not whole KiB.
    pub(super) fn describe(self) -> String {
        if self.bytes_per_sec.is_multiple_of(1024) {
            format!("{} KiB/s", self.bytes_per_sec / 1024)
        } else {
            format!("{} bytes/s", self.bytes_per_sec)
        }
    }

    pub(super) fn bytes_per_window(self) -> u64 {
        let millis = u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX);
        self.bytes_per_sec.saturating_mul(millis) / 1000
    }
}

/// One input of a job for `Fetcher::fetch_all`.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    pub url: String,
    pub class: MediaClass,
    /// File name (without extension) of the local copy.
    pub stem: String,
    /// The request field, e.g. `image_inputs[5].image_url`: messages name it (never the host).
    pub field: String,
}
