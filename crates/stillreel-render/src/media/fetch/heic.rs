//! A fetched HEIC picture made into the JPEG the renderer reads ([`crate::media::heif`]), with the
//! picture checks repeated on what was decoded, and the decoder's failures as fetch errors.

use std::path::Path;

use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;

use super::error::{FetchError, MediaErrorKind};
use super::fetched::{FetchedMedia, fnv1a};
use super::limits::Limits;
use crate::media::heif::{HeifDecoder, HeifError, HeifHeader};

/// Checks what a HEIC file's header declares before anything is decoded: every picture it
/// holds (a grid's assembled size, not only its `ispe`) is held to the pixel cap, and a file
/// of more than one top-level picture is refused, as a decode would refuse it after writing
/// them all.
pub(super) fn check_header(
    bytes: &[u8],
    host: &str,
    limits: &Limits<'_>,
) -> Result<(), FetchError> {
    let header = HeifHeader::read(bytes).map_err(|e| fetch_error(e.into(), host))?;
    let (width, height) = header.largest;
    limits.check_pixels(width as usize, height as usize)?;
    if header.pictures > 1 {
        return Err(fetch_error(
            HeifError::Several(header.pictures as usize),
            host,
        ));
    }
    Ok(())
}

/// Decodes `bytes` (a HEIC file whose header passed the picture checks) into
/// `<dir>/<stem>.jpg`. The media is that JPEG; its digest is the HEIC file's, so the `auto`
/// motion of a photo does not depend on the decoder.
pub(super) async fn decode(
    decoder: &HeifDecoder,
    bytes: &[u8],
    dir: &Path,
    stem: &str,
    host: &str,
    limits: &Limits<'_>,
) -> Result<FetchedMedia, FetchError> {
    let converted = decoder
        .to_jpeg(bytes, dir, stem)
        .await
        .map_err(|e| fetch_error(e, host))?;
    // The decoded size is checked again: a grid may assemble to more than its header said.
    let dimensions = limits.check_image(&converted.jpeg, host)?;
    Ok(FetchedMedia {
        path: converted.path,
        format: MediaFormat::Jpeg,
        bytes: converted.jpeg.len() as u64,
        digest: fnv1a(bytes),
        // What the JPEG says: the HEIC's own EXIF, removed when the file's irot/imir were
        // applied by the decoder.
        orientation: ExifOrientation::read(&converted.jpeg),
        dimensions: Some(dimensions),
    })
}

/// The fetch error for a failed decode. The file's faults are permanent `media_unsupported`;
/// a missing decoder is the deployment's, and said so.
fn fetch_error(error: HeifError, host: &str) -> FetchError {
    match error {
        HeifError::Damaged(damage) => FetchError::permanent(
            MediaErrorKind::Unsupported,
            format!("the HEIC image at {host} is damaged: {damage}"),
        ),
        HeifError::Undecodable(reason) => FetchError::permanent(
            MediaErrorKind::Unsupported,
            format!("the HEIC image at {host} could not be decoded: {reason}"),
        ),
        HeifError::Several(n) => FetchError::permanent(
            MediaErrorKind::Unsupported,
            format!("the HEIC file at {host} holds {n} pictures; send one picture per file"),
        ),
        HeifError::Unavailable(_) => FetchError::permanent(
            MediaErrorKind::Unsupported,
            "this server cannot decode HEIC pictures (its HEIF decoder is not installed); \
             send a JPEG, PNG or WebP",
        ),
        HeifError::Io(message) => FetchError::transient(MediaErrorKind::Unreachable, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_faults_are_permanent_and_name_the_host() {
        let damaged = fetch_error(
            HeifError::Damaged(crate::media::heif::Damaged("it has no meta box")),
            "photos.example",
        );
        assert_eq!(damaged.kind, MediaErrorKind::Unsupported);
        assert!(!damaged.transient);
        assert_eq!(
            damaged.message,
            "the HEIC image at photos.example is damaged: it has no meta box"
        );
        let several = fetch_error(HeifError::Several(3), "h");
        assert!(several.message.contains("holds 3 pictures"), "{several}");
        let io = fetch_error(HeifError::Io("disk full".into()), "h");
        assert!(io.transient);
    }
}
