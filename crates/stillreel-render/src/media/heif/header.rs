//! What a HEIC file says before anything is decoded: whether it is HEIC at all (its `ftyp`
//! brands), and its primary picture's stored size and transforms, read from the item
//! properties of its `meta` box (ISO/IEC 23008-12: `pitm`, `ipco`, `ipma`, `ispe`, `irot`,
//! `imir`), and the size and number of all its pictures ([`items`]). Pure: bytes in, facts
//! out; the boxes are walked by the providers crate's [`bmff`] walker.

use stillreel_providers::bmff;

use super::damage::{Damaged, be_u16, be_u32, boxes, byte, damage};
use super::items;

/// The image brands of HEVC-coded HEIF. The sequence brands (`hevc`, `hevx`) and AVIF
/// (`avif`) are not taken: only still HEVC pictures are.
const HEVC_IMAGE_BRANDS: [&[u8]; 4] = [b"heic", b"heix", b"heim", b"heis"];

/// Structural brands a HEIC file may name first, with the codec brand among the compatible ones.
const STRUCTURAL_BRANDS: [&[u8]; 3] = [b"mif1", b"msf1", b"miaf"];

/// Whether a file starting with `head` is a HEIC picture, by its `ftyp` box: the major brand
/// is a HEVC image brand, or a structural one (`mif1`, `msf1`, `miaf`) with a HEVC image
/// brand among the compatible brands present in `head`.
pub fn is_heic(head: &[u8]) -> bool {
    if head.get(4..8) != Some(b"ftyp".as_slice()) {
        return false;
    }
    let Some(major) = head.get(8..12) else {
        return false;
    };
    if HEVC_IMAGE_BRANDS.contains(&major) {
        return true;
    }
    if !STRUCTURAL_BRANDS.contains(&major) {
        return false;
    }
    let declared = head
        .get(0..4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, |b: [u8; 4]| u32::from_be_bytes(b) as usize);
    let end = declared.min(head.len());
    // Compatible brands follow the major brand and the 4-byte minor version.
    head.get(16..end).is_some_and(|brands| {
        brands
            .chunks_exact(4)
            .any(|brand| HEVC_IMAGE_BRANDS.contains(&brand))
    })
}

/// The primary picture of a HEIC file, as its header declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeifHeader {
    /// Stored width (the primary item's `ispe`), before any transform.
    pub width: u32,
    /// Stored height.
    pub height: u32,
    /// `irot`: anticlockwise quarter turns (0 to 3), when the primary item has one.
    pub rotation: Option<u8>,
    /// `imir`: the mirror axis (0 vertical, 1 horizontal), when the primary item has one.
    pub mirror: Option<u8>,
    /// The largest size any picture of the file declares (width, height): every image
    /// item's `ispe`, and a grid's or an overlay's output size from its own data, which is
    /// what the decoder allocates. The pixel cap applies to this, not only to the primary's.
    pub largest: (u32, u32),
    /// Top-level pictures the decoder would write (one file each); a file of one photo has 1.
    pub pictures: u32,
}

impl HeifHeader {
    /// Reads the primary picture's facts from a whole file, or from its first bytes when the
    /// `meta` box comes before the picture data (as Apple's and libheif's files have it).
    pub fn read(bytes: &[u8]) -> Result<HeifHeader, Damaged> {
        let meta = top_level_meta(bytes)?;
        // `meta` is a full box: 4 bytes of version and flags, then its children.
        let children = boxes(meta.get(4..).ok_or(Damaged("its meta box is cut short"))?)?;
        let primary = children
            .iter()
            .find(|b| &b.kind == b"pitm")
            .ok_or(Damaged("it names no primary picture"))
            .and_then(|b| primary_item(b.body))?;
        let iprp = children
            .iter()
            .find(|b| &b.kind == b"iprp")
            .ok_or(Damaged("it has no item properties"))?;
        let iprp = boxes(iprp.body)?;
        let ipco = iprp
            .iter()
            .find(|b| &b.kind == b"ipco")
            .ok_or(Damaged("it has no item properties"))?;
        let properties = boxes(ipco.body)?;
        let mut header = HeifHeader {
            width: 0,
            height: 0,
            rotation: None,
            mirror: None,
            largest: (0, 0),
            pictures: 1,
        };
        let mut sized = false;
        let mut all = Vec::new();
        for ipma in iprp.iter().filter(|b| &b.kind == b"ipma") {
            all.extend(associations(ipma.body)?);
        }
        for (_, indices) in all.iter().filter(|(item, _)| *item == primary) {
            for &index in indices {
                // Indices count from 1; 0 means "no property".
                let Some(property) = index.checked_sub(1).and_then(|i| properties.get(i)) else {
                    continue;
                };
                match &property.kind {
                    b"ispe" => {
                        let width = be_u32(property.body, 4)?;
                        let height = be_u32(property.body, 8)?;
                        header.width = width;
                        header.height = height;
                        sized = true;
                    }
                    b"irot" => header.rotation = Some(byte(property.body, 0)? & 0b11),
                    b"imir" => header.mirror = Some(byte(property.body, 0)? & 1),
                    _ => {}
                }
            }
        }
        if !sized {
            return Err(Damaged("its primary picture declares no size"));
        }
        let pictures = items::read(bytes, &children, &properties, &all)?;
        header.largest = pictures.largest;
        header.pictures = pictures.count;
        Ok(header)
    }

    /// Whether the file turns or mirrors its picture itself (`irot`, `imir`). The decoder
    /// applies these, and then the picture's EXIF orientation is not applied on top.
    pub fn transformed(&self) -> bool {
        self.rotation.is_some() || self.mirror.is_some()
    }

    /// The size as shown, after the rotation.
    pub fn upright_size(&self) -> (u32, u32) {
        match self.rotation {
            Some(1 | 3) => (self.height, self.width),
            _ => (self.width, self.height),
        }
    }
}

/// The body of the top-level `meta` box. Top-level boxes are walked only up to it, so the
/// picture data after it need not have arrived.
fn top_level_meta(bytes: &[u8]) -> Result<&[u8], Damaged> {
    for found in bmff::boxes(bytes) {
        let found = found.map_err(damage)?;
        if &found.kind == b"meta" {
            return Ok(found.body);
        }
    }
    Err(Damaged("it has no meta box"))
}

/// The primary item's id from a `pitm` body (16 bits in version 0, 32 after).
fn primary_item(pitm: &[u8]) -> Result<u32, Damaged> {
    match byte(pitm, 0)? {
        0 => be_u16(pitm, 4).map(u32::from),
        _ => be_u32(pitm, 4),
    }
}

/// Every item of an `ipma` body with the property indices associated with it.
fn associations(ipma: &[u8]) -> Result<Vec<(u32, Vec<usize>)>, Damaged> {
    let version = byte(ipma, 0)?;
    let wide_index = byte(ipma, 3)? & 1 == 1;
    let entries = be_u32(ipma, 4)?;
    let mut at = 8;
    let mut out = Vec::new();
    for _ in 0..entries {
        let id = if version < 1 {
            at += 2;
            u32::from(be_u16(ipma, at - 2)?)
        } else {
            at += 4;
            be_u32(ipma, at - 4)?
        };
        let count = usize::from(byte(ipma, at)?);
        at += 1;
        let mut indices = Vec::with_capacity(count);
        for _ in 0..count {
            // The top bit says "essential"; the rest is the index.
            let index = if wide_index {
                at += 2;
                usize::from(be_u16(ipma, at - 2)? & 0x7fff)
            } else {
                at += 1;
                usize::from(byte(ipma, at - 1)? & 0x7f)
            };
            indices.push(index);
        }
        out.push((id, indices));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bmff(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }

    fn full(kind: &[u8; 4], version: u8, flags: u8, body: &[u8]) -> Vec<u8> {
        let mut with = vec![version, 0, 0, flags];
        with.extend_from_slice(body);
        bmff(kind, &with)
    }

    /// A HEIC header whose item 1 has the given properties (each a whole box), associated in
    /// order; item 2 gets a 9000 × 9000 `ispe` that must not be taken for the primary's.
    fn file(properties: &[Vec<u8>]) -> Vec<u8> {
        let mut ipco = properties.concat();
        ipco.extend(full(b"ispe", 0, 0, &[0, 0, 0x23, 0x28, 0, 0, 0x23, 0x28]));
        let n = properties.len() as u8;
        let mut ipma = vec![0, 0, 0, 2, 0, 1, n];
        ipma.extend((1..=n).map(|i| 0x80 | i));
        ipma.extend([0, 2, 1, n + 1]);
        let iprp = [bmff(b"ipco", &ipco), full(b"ipma", 0, 0, &ipma)].concat();
        let meta = [
            full(b"hdlr", 0, 0, b"\0\0\0\0pict\0\0\0\0\0\0\0\0\0\0\0\0\0"),
            full(b"pitm", 0, 0, &[0, 1]),
            bmff(b"iprp", &iprp),
        ]
        .concat();
        [
            bmff(b"ftyp", b"heic\0\0\0\0mif1heic"),
            full(b"meta", 0, 0, &meta),
            bmff(b"mdat", &[0; 16]),
        ]
        .concat()
    }

    fn ispe(w: u32, h: u32) -> Vec<u8> {
        full(b"ispe", 0, 0, &[w.to_be_bytes(), h.to_be_bytes()].concat())
    }

    #[test]
    fn brands_decide_what_is_heic() {
        let cases: &[(&[u8], bool)] = &[
            (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", true),
            (b"\0\0\0\x18ftypheix\0\0\0\0mif1heix", true),
            (b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic", true),
            (b"\0\0\0\x1cftypmsf1\0\0\0\0msf1miafheic", true),
            // AVIF, MP4/M4A, a structural brand naming no HEVC brand, short or no ftyp.
            (b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf", false),
            (b"\0\0\0\x18ftypmif1\0\0\0\0mif1avif", false),
            (b"\0\0\0\x18ftypM4A \0\0\0\0M4A isom", false),
            (b"\0\0\0\x18ftypisom\0\0\0\0isomheic", false),
            // The brand list ends where the box says, not where the buffer does.
            (b"\0\0\0\x14ftypmif1\0\0\0\0mif1heic", false),
            (b"\0\0\0\x18ftyp", false),
            (b"\xff\xd8\xff\xe0", false),
            (b"", false),
        ];
        for (head, want) in cases {
            assert_eq!(is_heic(head), *want, "{head:?}");
        }
    }

    #[test]
    fn reads_the_primary_pictures_size_and_transforms() {
        let plain = HeifHeader::read(&file(&[ispe(4032, 3024)])).expect("plain");
        assert_eq!((plain.width, plain.height), (4032, 3024));
        // Item 2's larger ispe counts toward the largest picture, not the primary's size.
        assert_eq!(plain.largest, (9000, 9000));
        assert_eq!(plain.pictures, 1);
        assert!(!plain.transformed());
        assert_eq!(plain.upright_size(), (4032, 3024));

        let turned =
            HeifHeader::read(&file(&[ispe(4032, 3024), bmff(b"irot", &[3])])).expect("irot");
        assert_eq!(turned.rotation, Some(3));
        assert!(turned.transformed());
        assert_eq!(turned.upright_size(), (3024, 4032));

        let mirrored =
            HeifHeader::read(&file(&[bmff(b"imir", &[1]), ispe(640, 480)])).expect("imir");
        assert_eq!(mirrored.mirror, Some(1));
        assert_eq!(mirrored.rotation, None);
        assert_eq!(mirrored.upright_size(), (640, 480));
        // A zero-degree irot is still HEIF's own transform: EXIF is not applied on top.
        let zero = HeifHeader::read(&file(&[ispe(8, 8), bmff(b"irot", &[0])])).expect("irot 0");
        assert!(zero.transformed());
    }

    #[test]
    fn the_picture_data_need_not_have_arrived() {
        let whole = file(&[ispe(100, 50)]);
        // Cut inside mdat: the header is all before it.
        let head = &whole[..whole.len() - 10];
        assert_eq!(HeifHeader::read(head).map(|h| h.width), Ok(100));
    }

    #[test]
    fn damage_is_named() {
        let whole = file(&[ispe(100, 50)]);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec(),
                "no meta box",
            ),
            (whole[..60].to_vec(), "runs past the end"),
            (file(&[bmff(b"irot", &[1])]), "declares no size"),
            (
                file(&[full(b"ispe", 0, 0, &[0, 0, 1])]),
                "shorter than its contents",
            ),
            (
                [
                    &b"\0\0\0\x18ftypheic\0\0\0\0mif1heic"[..],
                    b"\0\0\0\x04meta",
                ]
                .concat(),
                "impossible size",
            ),
        ];
        for (bytes, want) in cases {
            let err = HeifHeader::read(&bytes).expect_err(want);
            assert!(err.0.contains(want), "{err} for {want}");
        }
    }

    #[test]
    fn wide_indices_and_version_1_ids_are_read() {
        let properties = [ispe(300, 200), bmff(b"irot", &[1])].concat();
        let ipma = [
            &[0u8, 0, 0, 1][..],
            &[0, 0, 0, 7],
            &[2],
            &[0x80, 1, 0x80, 2],
        ]
        .concat();
        let iprp = [bmff(b"ipco", &properties), full(b"ipma", 1, 1, &ipma)].concat();
        let meta = [full(b"pitm", 1, 0, &[0, 0, 0, 7]), bmff(b"iprp", &iprp)].concat();
        let bytes = [
            bmff(b"ftyp", b"heic\0\0\0\0heic"),
            full(b"meta", 0, 0, &meta),
        ]
        .concat();
        let header = HeifHeader::read(&bytes).expect("read");
        assert_eq!(header.upright_size(), (200, 300));
    }
}
