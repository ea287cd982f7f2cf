//! Removing the EXIF block of a JPEG: the decoder copies a HEIC file's EXIF into its JPEG,
//! orientation tag included, even when it has already turned the pixels by the file's own
//! `irot`/`imir`; left in, anyone reading the JPEG would turn them a second time.

/// `jpeg` without its EXIF segments (APP1 starting `Exif\0\0`), everything else byte for
/// byte. The segments before the first scan are walked; a stream that does not parse as
/// JPEG there is returned unchanged.
pub fn without_exif(jpeg: &[u8]) -> Vec<u8> {
    if jpeg.get(..2) != Some(&[0xff, 0xd8]) {
        return jpeg.to_vec();
    }
    let mut out = Vec::with_capacity(jpeg.len());
    out.extend_from_slice(&jpeg[..2]);
    let mut at = 2;
    loop {
        let (Some(&0xff), Some(&marker)) = (jpeg.get(at), jpeg.get(at + 1)) else {
            return jpeg.to_vec();
        };
        // Start of scan (entropy-coded data follows) or end of image: the rest as it is.
        if marker == 0xda || marker == 0xd9 {
            out.extend_from_slice(&jpeg[at..]);
            return out;
        }
        let Some(length) = jpeg
            .get(at + 2..at + 4)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        else {
            return jpeg.to_vec();
        };
        let end = at + 2 + length;
        let Some(segment) = jpeg.get(at..end).filter(|_| length >= 2) else {
            return jpeg.to_vec();
        };
        let exif = marker == 0xe1 && segment.get(4..10) == Some(b"Exif\0\0".as_slice());
        if !exif {
            out.extend_from_slice(segment);
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(marker: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![0xff, marker];
        out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn drops_exif_and_keeps_the_rest() {
        let jfif = segment(0xe0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        let exif = segment(0xe1, b"Exif\0\0MM\0*\0\0\0\x08\0\0");
        let xmp = segment(0xe1, b"http://ns.adobe.com/xap/1.0/\0<x/>");
        let scan = [0xff, 0xda, 0, 2, 0x12, 0xff, 0xe1, 0x34, 0xff, 0xd9];
        let jpeg = [&[0xff, 0xd8][..], &jfif, &exif, &xmp, &scan].concat();
        let want = [&[0xff, 0xd8][..], &jfif, &xmp, &scan].concat();
        assert_eq!(without_exif(&jpeg), want);
        // Nothing to drop: the same bytes.
        assert_eq!(without_exif(&want), want);
    }

    #[test]
    fn what_does_not_parse_is_left_alone() {
        for bytes in [
            &b"not a jpeg"[..],
            &[0xff, 0xd8, 0xff, 0xe1, 0x00],
            &[0xff, 0xd8, 0xff, 0xe1, 0x00, 0x40, b'E'],
            &[0xff, 0xd8, 0x00],
        ] {
            assert_eq!(without_exif(bytes), bytes);
        }
    }
}
