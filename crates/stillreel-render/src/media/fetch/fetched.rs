//! What a download leaves in the job's work directory ([`FetchedMedia`]) and its fingerprint
//! ([`fnv1a`]), beside the fetcher rather than in it, so the HEIC step that makes one names no
//! parent.

use std::path::PathBuf;

use stillreel_camera::input::{ExifOrientation, MediaFormat};

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

/// 64-bit FNV-1a: small, stable across versions and platforms (unlike `DefaultHasher`).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
