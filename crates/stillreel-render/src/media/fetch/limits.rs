//! The limits one download is held to ([`Limits`]: bytes, pixels, the field its messages
//! name), in a module of their own so the HEIC step checks a decoded picture by the same rules
//! without naming its parent.

use stillreel_core::media::MediaClass;

use super::config::MinRate;
use super::error::{FetchError, MediaErrorKind};

/// The limits one download is held to, and the field its messages name.
pub(super) struct Limits<'a> {
    pub(super) field: &'a str,
    pub(super) class: MediaClass,
    pub(super) max_bytes: u64,
    pub(super) max_pixels: u64,
    pub(super) min_rate: MinRate,
}

impl Limits<'_> {
    /// Refuses `bytes` over the limit; `exact` says whether `bytes` is the whole size (a
    /// `Content-Length` or a file size) or only what has arrived so far.
    pub(super) fn check_bytes(&self, bytes: u64, exact: bool) -> Result<(), FetchError> {
        if bytes <= self.max_bytes {
            return Ok(());
        }
        let size = if exact {
            format!("is {}", mebibytes(bytes))
        } else {
            format!("is over {}", mebibytes(self.max_bytes))
        };
        Err(FetchError::permanent(
            MediaErrorKind::TooLarge,
            format!(
                "{} {size}; the limit is {}",
                self.field,
                mebibytes(self.max_bytes)
            ),
        ))
    }

    /// An image's stored size from its header (`image` may be any format `imagesize` reads),
    /// refused over the pixel cap or 16384 pixels a side; `host` names the image in messages
    /// about its form.
    pub(super) fn check_image(&self, image: &[u8], host: &str) -> Result<(u32, u32), FetchError> {
        let size = imagesize::blob_size(image).map_err(|_| {
            FetchError::permanent(
                MediaErrorKind::Unsupported,
                format!(
                    "the image at {host} is damaged: its size cannot be read; upload a complete JPEG, PNG, WebP or HEIC file"
                ),
            )
        })?;
        let dims = (
            u32::try_from(size.width).unwrap_or(u32::MAX),
            u32::try_from(size.height).unwrap_or(u32::MAX),
        );
        self.check_pixels(size.width, size.height)?;
        if dims.0 == 0 || dims.1 == 0 || dims.0 > 16_384 || dims.1 > 16_384 {
            return Err(FetchError::permanent(
                MediaErrorKind::Unsupported,
                format!(
                    "the image at {host} is {}×{} pixels; at most 16384 per side",
                    dims.0, dims.1
                ),
            ));
        }
        Ok(dims)
    }

    /// Refuses an image whose header declares more than `max_pixels`.
    pub(super) fn check_pixels(&self, width: usize, height: usize) -> Result<(), FetchError> {
        let pixels = (width as u64).saturating_mul(height as u64);
        if pixels <= self.max_pixels {
            return Ok(());
        }
        Err(FetchError::permanent(
            MediaErrorKind::TooLarge,
            format!(
                "{} is {width}×{height} pixels ({} megapixels); the limit is {} megapixels",
                self.field,
                megapixels(pixels),
                megapixels(self.max_pixels)
            ),
        ))
    }
}

/// `bytes` in MiB for messages: `40 MiB`, `16.4 MiB`.
pub(super) fn mebibytes(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    }
}

/// `pixels` in megapixels for messages: `50`, `256`, `16.4`, `0.003`.
pub(super) fn megapixels(pixels: u64) -> String {
    let text = format!("{:.3}", pixels as f64 / 1e6);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}
