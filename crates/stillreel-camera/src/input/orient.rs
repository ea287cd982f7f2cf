//! EXIF orientation: phones store pictures sideways and say so in a tag. ffmpeg 5.1 ignores
//! the tag for stills, so the clip graph applies it (see [`ExifOrientation::filter`]). And the
//! size a picture shows at once turned ([`upright_size`]).

use std::io::Cursor;

use zune_jpeg::JpegDecoder;
use zune_jpeg::zune_core::bytestream::ZCursor;

use stillreel_core::media::MediaFormat;

/// The EXIF `Orientation` tag (1 to 8): how to turn the stored pixels to show them upright.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExifOrientation(pub u8);

impl ExifOrientation {
    /// Stored pixels are already upright.
    pub const UPRIGHT: ExifOrientation = ExifOrientation(1);

    /// Whether the tag turns the picture by 90° (5 to 8): its upright width is its stored
    /// height.
    pub fn turns(self) -> bool {
        matches!(self.0, 5..=8)
    }

    /// Reads the tag from an image file's bytes. Missing, unreadable or out-of-range tags
    /// count as upright: a broken tag must not fail an otherwise good picture.
    pub fn read(bytes: &[u8]) -> ExifOrientation {
        let reader = exif::Reader::new();
        let Ok(data) = reader.read_from_container(&mut Cursor::new(bytes)) else {
            return ExifOrientation::UPRIGHT;
        };
        data.get_field(exif::Tag::Orientation, exif::In::PRIMARY)
            .and_then(|field| field.value.get_uint(0))
            .and_then(|v| u8::try_from(v).ok())
            .filter(|v| (1..=8).contains(v))
            .map_or(ExifOrientation::UPRIGHT, ExifOrientation)
    }

    /// Whether showing the picture upright swaps its width and height.
    pub const fn swaps_axes(self) -> bool {
        matches!(self.0, 5..=8)
    }

    /// The ffmpeg filters that turn the stored pixels upright (`None` for upright).
    pub const fn filter(self) -> Option<&'static str> {
        match self.0 {
            2 => Some("hflip"),
            3 => Some("hflip,vflip"),
            4 => Some("vflip"),
            // transpose=0 swaps x and y (mirror on the main diagonal), 1 rotates clockwise,
            // 3 mirrors on the other diagonal, 2 rotates counter-clockwise.
            5 => Some("transpose=0"),
            6 => Some("transpose=1"),
            7 => Some("transpose=3"),
            8 => Some("transpose=2"),
            _ => None,
        }
    }
}

/// The still's size as displayed (its EXIF turn applied), read from its header alone; `None`
/// for a format this module does not decode or a header it cannot read. What the `auto` rule
/// weighs when the photo did not come through the server's probe (the browser's preview).
pub fn upright_size(
    bytes: &[u8],
    format: MediaFormat,
    orientation: ExifOrientation,
) -> Option<(u32, u32)> {
    let (w, h) = match format {
        MediaFormat::Jpeg => {
            let mut probe = JpegDecoder::new(ZCursor::new(bytes));
            probe.decode_headers().ok()?;
            let (w, h) = probe.dimensions()?;
            (u32::try_from(w).ok()?, u32::try_from(h).ok()?)
        }
        MediaFormat::Png => {
            let mut decoder = png::Decoder::new(Cursor::new(bytes));
            let header = decoder.read_header_info().ok()?;
            (header.width, header.height)
        }
        _ => return None,
    };
    Some(if orientation.turns() { (h, w) } else { (w, h) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_per_tag() {
        assert_eq!(ExifOrientation(1).filter(), None);
        assert_eq!(ExifOrientation(6).filter(), Some("transpose=1"));
        assert_eq!(ExifOrientation(8).filter(), Some("transpose=2"));
        assert!(ExifOrientation(6).swaps_axes());
        assert!(!ExifOrientation(3).swaps_axes());
    }

    #[test]
    fn garbage_is_upright() {
        assert_eq!(
            ExifOrientation::read(b"not an image"),
            ExifOrientation::UPRIGHT
        );
        assert_eq!(
            ExifOrientation::read(&[0xff, 0xd8, 0xff, 0xe1, 0, 4, 0, 0]),
            ExifOrientation::UPRIGHT
        );
    }
}
