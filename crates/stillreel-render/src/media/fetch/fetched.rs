//! What a download leaves in the job's work directory ([`FetchedMedia`]) and its fingerprint
//! ([`fnv1a`]), beside the fetcher rather than in it, so the HEIC step that makes one names no
//! parent.

use std::path::PathBuf;

use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;

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

/// 64-bit FNV-1a, the camera's `auto` fingerprint (the preview in the browser uses the same).
pub use stillreel_camera::geometry::clip_plan::fnv1a;
