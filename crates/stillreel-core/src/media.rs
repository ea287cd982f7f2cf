//! The media vocabulary: the formats the service accepts (what an MP3 is, which ffmpeg demuxer
//! reads it, its extension), and what a downloaded file is, decided by its first bytes only: never by its name or the
//! server's `Content-Type`, which both lie (an HLS playlist served as `photo.png`).

/// A media format the renderer accepts, with the ffmpeg demuxer forced for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaFormat {
    Jpeg,
    Png,
    Webp,
    Mp3,
    /// Raw AAC in ADTS frames.
    Aac,
    /// AAC (or ALAC) in an MP4/M4A container.
    M4a,
    Wav,
    Ogg,
    Flac,
}

/// Whether a field wants a picture or a sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaClass {
    Image,
    Audio,
}

impl MediaFormat {
    /// The class this format belongs to.
    pub const fn class(self) -> MediaClass {
        match self {
            MediaFormat::Jpeg | MediaFormat::Png | MediaFormat::Webp => MediaClass::Image,
            _ => MediaClass::Audio,
        }
    }

    /// The ffmpeg input format (`-f`) that reads exactly this format and nothing else.
    pub const fn ffmpeg_demuxer(self) -> &'static str {
        match self {
            MediaFormat::Jpeg => "jpeg_pipe",
            MediaFormat::Png => "png_pipe",
            MediaFormat::Webp => "webp_pipe",
            MediaFormat::Mp3 => "mp3",
            MediaFormat::Aac => "aac",
            MediaFormat::M4a => "mov",
            MediaFormat::Wav => "wav",
            MediaFormat::Ogg => "ogg",
            MediaFormat::Flac => "flac",
        }
    }

    /// The format whose [`MediaFormat::extension`] is `ext` (formats are recorded by it).
    pub fn from_extension(ext: &str) -> Option<Self> {
        [
            MediaFormat::Jpeg,
            MediaFormat::Png,
            MediaFormat::Webp,
            MediaFormat::Mp3,
            MediaFormat::Aac,
            MediaFormat::M4a,
            MediaFormat::Wav,
            MediaFormat::Ogg,
            MediaFormat::Flac,
        ]
        .into_iter()
        .find(|f| f.extension() == ext)
    }

    /// File extension used for the local copy (names never come from the URL).
    pub const fn extension(self) -> &'static str {
        match self {
            MediaFormat::Jpeg => "jpg",
            MediaFormat::Png => "png",
            MediaFormat::Webp => "webp",
            MediaFormat::Mp3 => "mp3",
            MediaFormat::Aac => "aac",
            MediaFormat::M4a => "m4a",
            MediaFormat::Wav => "wav",
            MediaFormat::Ogg => "ogg",
            MediaFormat::Flac => "flac",
        }
    }
}

/// Bytes needed to decide; a shorter file is judged on what it has. Enough for a HEIC
/// file's `ftyp` box with its compatible brands (the render crate's `media::heif`), which this
/// module's [`sniff`] leaves to the HEIF decoding.
pub const SNIFF_LEN: usize = 64;

/// The format of a file starting with `head`, if it is one we accept.
pub fn sniff(head: &[u8]) -> Option<MediaFormat> {
    let at = |offset: usize, magic: &[u8]| head.get(offset..offset + magic.len()) == Some(magic);
    if at(0, &[0xff, 0xd8, 0xff]) {
        return Some(MediaFormat::Jpeg);
    }
    if at(0, b"\x89PNG\r\n\x1a\n") {
        return Some(MediaFormat::Png);
    }
    if at(0, b"RIFF") && at(8, b"WEBP") {
        return Some(MediaFormat::Webp);
    }
    if at(0, b"RIFF") && at(8, b"WAVE") {
        return Some(MediaFormat::Wav);
    }
    if at(0, b"OggS") {
        return Some(MediaFormat::Ogg);
    }
    if at(0, b"fLaC") {
        return Some(MediaFormat::Flac);
    }
    if at(0, b"ID3") {
        // An ID3v2 tag fronts MP3 files (and, rarely, ADTS; ffmpeg's mp3 demuxer skips it either way).
        return Some(MediaFormat::Mp3);
    }
    if at(4, b"ftyp") {
        let brand = head.get(8..12)?;
        return matches!(
            brand,
            b"M4A " | b"M4B " | b"mp41" | b"mp42" | b"isom" | b"iso2" | b"dash"
        )
        .then_some(MediaFormat::M4a);
    }
    match head {
        // ADTS: 12-bit sync, layer bits 00.
        [0xff, b1, ..] if b1 & 0xf6 == 0xf0 => Some(MediaFormat::Aac),
        // MPEG audio frame sync (11 bits), layer III (bits 01), a valid bitrate index.
        [0xff, b1, b2, ..] if b1 & 0xe0 == 0xe0 && (b1 >> 1) & 0b11 == 0b01 && b2 >> 4 != 0xf => {
            Some(MediaFormat::Mp3)
        }
        _ => None,
    }
}

/// Whether a picture of `format` ends before its format says it does: a download or an
/// upload cut off, which a decoder turns into a grey lower part without failing. A JPEG has
/// its end marker after its last scan (the scan data cannot hold either marker: every `0xff`
/// in it is stuffed), a PNG its `IEND` chunk, a WebP the length its RIFF header declares.
pub fn is_cut_short(format: MediaFormat, bytes: &[u8]) -> bool {
    let last = |marker: &[u8]| bytes.windows(marker.len()).rposition(|w| w == marker);
    match format {
        MediaFormat::Jpeg => match last(&[0xff, 0xda]) {
            Some(scan) => last(&[0xff, 0xd9]).is_none_or(|end| end < scan),
            None => true,
        },
        MediaFormat::Png => last(b"IEND").is_none(),
        MediaFormat::Webp => match bytes.get(4..8) {
            Some(len) => {
                let declared = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
                (bytes.len() as u64) < u64::from(declared) + 8
            }
            None => true,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_without_its_end_is_cut_short() {
        let jpeg: &[u8] = b"\xff\xd8\xff\xe0JFIF\xff\xda\x00\x08scan\xff\x00data\xff\xd9";
        assert!(!is_cut_short(MediaFormat::Jpeg, jpeg));
        // Bytes after the end marker (a camera's padding) are allowed.
        assert!(!is_cut_short(
            MediaFormat::Jpeg,
            &[jpeg, b"\x00\x00"].concat()
        ));
        assert!(is_cut_short(MediaFormat::Jpeg, &jpeg[..jpeg.len() - 2]));
        // An EXIF thumbnail's end marker before the main scan does not count.
        let thumb: &[u8] = b"\xff\xd8\xff\xe1\xff\xd8\xff\xda\xff\xd9\xff\xdascan";
        assert!(is_cut_short(MediaFormat::Jpeg, thumb));
        let png: &[u8] = b"\x89PNG\r\n\x1a\n....IHDR....IDATdata\x00\x00\x00\x00IEND\xaeB`\x82";
        assert!(!is_cut_short(MediaFormat::Png, png));
        assert!(is_cut_short(MediaFormat::Png, &png[..png.len() - 12]));
        let webp: &[u8] = b"RIFF\x08\x00\x00\x00WEBPVP8 ";
        assert!(!is_cut_short(MediaFormat::Webp, webp));
        assert!(is_cut_short(MediaFormat::Webp, &webp[..15]));
        assert!(!is_cut_short(MediaFormat::Mp3, b"ID3"));
    }

    #[test]
    fn recognises_each_format_by_magic() {
        let cases: &[(&[u8], Option<MediaFormat>)] = &[
            (b"\xff\xd8\xff\xe0\x00\x10JFIF", Some(MediaFormat::Jpeg)),
            (
                b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                Some(MediaFormat::Png),
            ),
            (b"RIFF\x10\x00\x00\x00WEBPVP8 ", Some(MediaFormat::Webp)),
            (b"RIFF\x10\x00\x00\x00WAVEfmt ", Some(MediaFormat::Wav)),
            (b"OggS\x00\x02", Some(MediaFormat::Ogg)),
            (b"fLaC\x00\x00\x00\x22", Some(MediaFormat::Flac)),
            (b"ID3\x04\x00\x00", Some(MediaFormat::Mp3)),
            (b"\xff\xfb\x90\x64", Some(MediaFormat::Mp3)),
            (b"\xff\xf3\x48\xc4", Some(MediaFormat::Mp3)),
            (b"\xff\xf1\x50\x80", Some(MediaFormat::Aac)),
            (b"\xff\xf9\x50\x80", Some(MediaFormat::Aac)),
            (b"\x00\x00\x00\x20ftypM4A \x00\x00", Some(MediaFormat::M4a)),
            (b"\x00\x00\x00\x20ftypisom\x00\x00", Some(MediaFormat::M4a)),
            // Refused: playlists, HTML, other containers and images, empty or short files.
            (b"#EXTM3U\n#EXT-X-VERSION:3", None),
            (b"<!doctype html><html>", None),
            (b"GIF89a\x01\x00", None),
            (b"BM\x36\x00", None),
            (b"\x00\x00\x00\x20ftypqt  ", None),
            (b"\x1aE\xdf\xa3", None),
            (b"RIFF\x10\x00\x00\x00AVI ", None),
            (b"\xff\xd8", None),
            (b"", None),
            (b"\xff\xff\xf0", None),
        ];
        for (head, want) in cases {
            assert_eq!(sniff(head), *want, "{head:?}");
        }
    }

    #[test]
    fn classes_and_demuxers() {
        assert_eq!(MediaFormat::Webp.class(), MediaClass::Image);
        assert_eq!(MediaFormat::Flac.class(), MediaClass::Audio);
        assert_eq!(MediaFormat::Png.ffmpeg_demuxer(), "png_pipe");
        assert_eq!(MediaFormat::M4a.ffmpeg_demuxer(), "mov");
    }
}
