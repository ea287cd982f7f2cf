//! What an upload is: the class its declared `Content-Type` names, and the format its first
//! bytes show, which must be of that class. Pure rules for `uploads`; a HEIC picture is kept
//! as such (the renderer decodes it when a request uses it).

use axum::http::StatusCode;
use stillreel_core::media::{MediaClass, MediaFormat, sniff};
use stillreel_render::media::heif::is_heic;

use crate::error::ApiError;

/// 415 `unsupported_media`: every refusal of this module is about what the file is.
fn refused(message: &'static str) -> ApiError {
    ApiError::Refused {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code: "unsupported_media",
        message: message.to_owned(),
    }
}

/// What the declared `Content-Type` says the file is.
pub(super) fn declared_class(content_type: Option<&str>) -> Result<MediaClass, ApiError> {
    let essence = content_type
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence.starts_with("image/") {
        Ok(MediaClass::Image)
    } else if essence.starts_with("audio/") {
        Ok(MediaClass::Audio)
    } else {
        Err(refused(
            "send the file as the body with its Content-Type: image/jpeg, image/png, \
             image/webp or image/heic for a picture, audio/* for a soundtrack",
        ))
    }
}

/// The media type answered for a stored format.
fn media_type(format: MediaFormat) -> &'static str {
    match format {
        MediaFormat::Jpeg => "image/jpeg",
        MediaFormat::Png => "image/png",
        MediaFormat::Webp => "image/webp",
        MediaFormat::Mp3 => "audio/mpeg",
        MediaFormat::Aac => "audio/aac",
        MediaFormat::M4a => "audio/mp4",
        MediaFormat::Wav => "audio/wav",
        MediaFormat::Ogg => "audio/ogg",
        MediaFormat::Flac => "audio/flac",
    }
}

/// What an upload is kept as: a format the renderer reads as it is, or a HEIC picture, which
/// the renderer decodes to JPEG when a request uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    Media(MediaFormat),
    Heic,
}

impl Kept {
    /// The stored file's extension.
    pub(super) fn extension(self) -> &'static str {
        match self {
            Kept::Media(format) => format.extension(),
            Kept::Heic => "heic",
        }
    }

    /// The media type answered.
    pub(super) fn media_type(self) -> &'static str {
        match self {
            Kept::Media(format) => media_type(format),
            Kept::Heic => "image/heic",
        }
    }
}

/// The format of the body's first bytes, which must be of the declared class.
pub(super) fn sniffed(head: &[u8], class: MediaClass) -> Result<Kept, ApiError> {
    let kept = match sniff(head) {
        Some(format) => Some((Kept::Media(format), format.class())),
        None if is_heic(head) => Some((Kept::Heic, MediaClass::Image)),
        None => None,
    };
    match kept {
        Some((kept, of)) if of == class => Ok(kept),
        Some(_) => Err(refused(
            "the file is not what its Content-Type says (a picture sent as audio or the reverse)",
        )),
        None => Err(refused(match class {
            MediaClass::Image => "the file is not a JPEG, PNG, WebP or HEIC image",
            MediaClass::Audio => "the file is not MP3, AAC, M4A, WAV, Ogg or FLAC audio",
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heic_is_kept_as_heic_and_only_as_a_picture() {
        let head = b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic\0\0\0\x08meta";
        let kept = sniffed(head, MediaClass::Image).ok();
        assert_eq!(kept, Some(Kept::Heic));
        assert_eq!(kept.map(Kept::media_type), Some("image/heic"));
        assert_eq!(kept.map(Kept::extension), Some("heic"));
        let err = sniffed(head, MediaClass::Audio).expect_err("not audio");
        assert_eq!(
            err.status_and_code(),
            (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media")
        );
        // AVIF is HEIF too, but not taken.
        let avif = b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf";
        assert!(sniffed(avif, MediaClass::Image).is_err());
        assert_eq!(
            sniffed(b"\xff\xd8\xff\xe0", MediaClass::Image).ok(),
            Some(Kept::Media(MediaFormat::Jpeg))
        );
    }

    #[test]
    fn the_declared_type_picks_the_class_and_anything_else_is_415() {
        assert_eq!(
            declared_class(Some("image/jpeg")).ok(),
            Some(MediaClass::Image)
        );
        assert_eq!(
            declared_class(Some("Audio/MPEG; x=y")).ok(),
            Some(MediaClass::Audio)
        );
        for other in [None, Some("application/json"), Some("text/plain")] {
            let err = declared_class(other).expect_err("refused");
            assert_eq!(
                err.status_and_code(),
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media")
            );
        }
    }
}
