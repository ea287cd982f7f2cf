//! HEIC fixtures made at test time with Debian's `heif-enc` (package libheif-examples, x265
//! built into Debian 12's libheif): a two-band picture whose orientation shows in any frame,
//! stored upright, turned by EXIF, or turned by HEIF's own `irot` as iPhones store it; and the
//! damaged files and header bombs the fetcher must refuse.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The colour of the picture's top half, as shown.
pub const TOP: [u8; 3] = [0xd0, 0x20, 0x20];
/// The colour of its bottom half.
pub const BOTTOM: [u8; 3] = [0x20, 0x40, 0xd0];

/// How the pixels of a fixture are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// As shown: top half [`TOP`], bottom half [`BOTTOM`].
    Upright,
    /// Turned a quarter anticlockwise (the top band on the left) with EXIF orientation 6
    /// ("turn clockwise to show"), and no HEIF transform: what `heif-enc` makes of a camera
    /// JPEG.
    ExifTurned,
    /// The same pixels and EXIF 6, plus an `irot` of 3 (three quarters anticlockwise, the
    /// same turn): an iPhone's way. Applying both would turn it twice.
    IrotTurned,
}

/// A HEIC file in `dir` showing `width` × `height` pixels (even sides) as [`TOP`] over
/// [`BOTTOM`], its pixels stored as `stored` says.
pub fn two_bands(dir: &Path, name: &str, width: u32, height: u32, stored: Stored) -> PathBuf {
    let jpeg = dir.join(format!("{name}.source.jpg"));
    let colour = |c: [u8; 3]| format!("0x{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
    let (w, h, band) = match stored {
        Stored::Upright => (width, height, "x=0:y=ih/2:w=iw:h=ih/2"),
        Stored::ExifTurned | Stored::IrotTurned => (height, width, "x=iw/2:y=0:w=iw/2:h=ih"),
    };
    super::ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &format!("color=c={}:s={w}x{h}", colour(TOP)),
        "-vf",
        &format!("drawbox={band}:color={}:t=fill", colour(BOTTOM)),
        "-frames:v",
        "1",
        "-q:v",
        "2",
        jpeg.to_str().expect("utf-8 path"),
    ]);
    if stored != Stored::Upright {
        let bytes = std::fs::read(&jpeg).expect("read jpeg");
        std::fs::write(&jpeg, with_exif_orientation(&bytes, 6)).expect("write jpeg");
    }
    let path = dir.join(name);
    encode(&jpeg, &path);
    if stored == Stored::IrotTurned {
        let bytes = std::fs::read(&path).expect("read heic");
        std::fs::write(&path, with_irot(&bytes, 3)).expect("write heic");
    }
    path
}

/// A HEIC file holding two top-level pictures.
pub fn two_pictures(dir: &Path, name: &str) -> PathBuf {
    let a = super::picture(dir, &format!("{name}.a.png"), 64, 48);
    let b = super::picture(dir, &format!("{name}.b.png"), 96, 64);
    let path = dir.join(name);
    let out = Command::new("heif-enc")
        .args(["-q", "50"])
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&path)
        .output()
        .expect("run heif-enc (apt-get install libheif-examples)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// Encodes a JPEG or PNG into HEIC with `heif-enc`, which copies a JPEG's EXIF block.
pub fn encode(source: &Path, heic: &Path) {
    let out = Command::new("heif-enc")
        .args(["-q", "90"])
        .arg(source)
        .arg("-o")
        .arg(heic)
        .output()
        .expect("run heif-enc (apt-get install libheif-examples)");
    assert!(
        out.status.success(),
        "heif-enc {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `jpeg` with an EXIF block holding only an orientation tag, right after its SOI.
pub fn with_exif_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let tiff: Vec<u8> = [
        b"MM\x00\x2a\x00\x00\x00\x08".as_slice(),
        &[0, 1],
        &[0x01, 0x12, 0, 3, 0, 0, 0, 1],
        &orientation.to_be_bytes(),
        &[0, 0],
        &[0, 0, 0, 0],
    ]
    .concat();
    let len = (2 + 6 + tiff.len()) as u16;
    [
        &jpeg[..2],
        &[0xff, 0xe1],
        &len.to_be_bytes(),
        b"Exif\x00\x00",
        &tiff,
        &jpeg[2..],
    ]
    .concat()
}

/// `heic` with its first `ispe` declaring `width` × `height`: the header of a bomb, the
/// picture data unchanged.
pub fn with_declared_size(heic: &[u8], width: u32, height: u32) -> Vec<u8> {
    let at = find(heic, b"ispe").expect("an ispe box");
    let mut out = heic.to_vec();
    // After the type: 4 bytes of version and flags, then width and height.
    out[at + 8..at + 12].copy_from_slice(&width.to_be_bytes());
    out[at + 12..at + 16].copy_from_slice(&height.to_be_bytes());
    out
}

/// A HEIC file whose primary picture (item 2) is a grid of one hidden 512 × 512 tile
/// (item 1): the grid's `ispe` says `declared` (width, height) while its own description, in
/// `idat`, assembles `assembled`, which is what a decoder allocates. Nothing decodes it: the
/// tile's data is zeros, as a header check needs nothing more.
pub fn grid(declared: (u32, u32), assembled: (u32, u32)) -> Vec<u8> {
    fn bmff(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = u32::try_from(body.len() + 8)
            .expect("small")
            .to_be_bytes()
            .to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }
    fn full(kind: &[u8; 4], version: u8, flags: u8, body: &[u8]) -> Vec<u8> {
        bmff(kind, &[&[version, 0, 0, flags][..], body].concat())
    }
    fn ispe((w, h): (u32, u32)) -> Vec<u8> {
        full(b"ispe", 0, 0, &[w.to_be_bytes(), h.to_be_bytes()].concat())
    }
    let wide = assembled.0 > 0xffff || assembled.1 > 0xffff;
    let mut description = vec![0, u8::from(wide), 0, 0];
    if wide {
        description.extend(assembled.0.to_be_bytes());
        description.extend(assembled.1.to_be_bytes());
    } else {
        description.extend((assembled.0 as u16).to_be_bytes());
        description.extend((assembled.1 as u16).to_be_bytes());
    }
    let tile = vec![0u8; 64];
    let ftyp = bmff(b"ftyp", b"heic\0\0\0\0mif1heic");
    let meta = |tile_at: u32| {
        // iloc version 1: 32-bit offsets and lengths; the tile in the file, the grid in idat.
        let iloc = [
            &[0x44, 0x00, 0, 2][..],
            &[0, 1, 0, 0, 0, 0, 0, 1],
            &tile_at.to_be_bytes(),
            &(tile.len() as u32).to_be_bytes(),
            &[0, 2, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
            &(description.len() as u32).to_be_bytes(),
        ]
        .concat();
        let iinf = [
            vec![0, 2],
            full(b"infe", 2, 1, b"\0\x01\0\0hvc1\0"),
            full(b"infe", 2, 0, b"\0\x02\0\0grid\0"),
        ]
        .concat();
        let iref = bmff(b"dimg", &[0, 2, 0, 1, 0, 1]);
        let ipco = [ispe((512, 512)), ispe(declared)].concat();
        let ipma = [0, 0, 0, 2, 0, 1, 1, 0x81, 0, 2, 1, 0x82];
        let iprp = [bmff(b"ipco", &ipco), full(b"ipma", 0, 0, &ipma)].concat();
        let children = [
            full(b"hdlr", 0, 0, b"\0\0\0\0pict\0\0\0\0\0\0\0\0\0\0\0\0\0"),
            full(b"pitm", 0, 0, &[0, 2]),
            full(b"iloc", 1, 0, &iloc),
            full(b"iinf", 0, 0, &iinf),
            full(b"iref", 0, 0, &iref),
            bmff(b"iprp", &iprp),
            bmff(b"idat", &description),
        ]
        .concat();
        full(b"meta", 0, 0, &children)
    };
    let tile_at = ftyp.len() + meta(0).len() + 8;
    [
        ftyp,
        meta(u32::try_from(tile_at).expect("small")),
        bmff(b"mdat", &tile),
    ]
    .concat()
}

/// `heic` with the second half of its picture data cut off and its `mdat` box's size made to
/// fit: every box reads, but the data ends early (only decoding finds out).
pub fn with_data_cut(heic: &[u8]) -> Vec<u8> {
    let at = find(heic, b"mdat").expect("an mdat box") - 4;
    let mut out = heic[..at + 8 + (heic.len() - at - 8) / 2].to_vec();
    let size = u32::try_from(out.len() - at).expect("small");
    out[at..at + 4].copy_from_slice(&size.to_be_bytes());
    out
}

/// Where `kind` first appears in `bytes` (a box type, found by its name).
fn find(bytes: &[u8], kind: &[u8; 4]) -> Option<usize> {
    bytes.windows(4).position(|w| w == kind)
}

/// A box: where it starts and its whole size.
#[derive(Debug, Clone, Copy)]
struct At {
    start: usize,
    size: usize,
}

/// The first child box of `kind` between `from` and `to`.
fn child(bytes: &[u8], from: usize, to: usize, kind: &[u8; 4]) -> At {
    let mut at = from;
    while at + 8 <= to {
        let size = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        if &bytes[at + 4..at + 8] == kind {
            return At { start: at, size };
        }
        assert!(size >= 8, "a box of size {size}");
        at += size;
    }
    panic!("no {} box", String::from_utf8_lossy(kind));
}

fn add_to_size(bytes: &mut [u8], at: usize, delta: usize) {
    let size = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let grown = size + u32::try_from(delta).expect("small");
    bytes[at..at + 4].copy_from_slice(&grown.to_be_bytes());
}

fn read_uint(bytes: &[u8], at: usize, width: usize) -> u64 {
    bytes[at..at + width]
        .iter()
        .fold(0, |v, &b| (v << 8) | u64::from(b))
}

fn write_uint(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    for i in 0..width {
        bytes[at + i] = (value >> (8 * (width - 1 - i))) as u8;
    }
}

/// `heic` (as `heif-enc` writes it: ftyp, meta, mdat) with an `irot` of `angle` quarter turns
/// anticlockwise added to the primary picture's properties. The meta box grows, so the
/// picture data moves and every file offset in `iloc` is moved with it.
pub fn with_irot(heic: &[u8], angle: u8) -> Vec<u8> {
    let meta = child(heic, 0, heic.len(), b"meta");
    let meta_children = meta.start + 12;
    let meta_end = meta.start + meta.size;
    let pitm = child(heic, meta_children, meta_end, b"pitm");
    assert_eq!(heic[pitm.start + 8], 0, "pitm version 0");
    let primary = u16::from_be_bytes([heic[pitm.start + 12], heic[pitm.start + 13]]);
    let iprp = child(heic, meta_children, meta_end, b"iprp");
    let iprp_end = iprp.start + iprp.size;
    let ipco = child(heic, iprp.start + 8, iprp_end, b"ipco");
    let ipma = child(heic, iprp.start + 8, iprp_end, b"ipma");
    assert!(ipco.start < ipma.start, "ipco before ipma");

    // The new property's index: one past the properties there are.
    let mut count = 0u8;
    let mut at = ipco.start + 8;
    while at < ipco.start + ipco.size {
        count += 1;
        at += u32::from_be_bytes(heic[at..at + 4].try_into().expect("4 bytes")) as usize;
    }
    let index = count + 1;
    let irot = [0, 0, 0, 9, b'i', b'r', b'o', b't', angle & 3];

    // ipma (version 0, 7-bit indices): the primary item's entry gets one more association.
    assert_eq!(heic[ipma.start + 8], 0, "ipma version 0");
    assert_eq!(heic[ipma.start + 11] & 1, 0, "ipma with 7-bit indices");
    let body = &heic[ipma.start + 12..ipma.start + ipma.size];
    let entries = u32::from_be_bytes(body[..4].try_into().expect("4 bytes"));
    let mut new_body = body[..4].to_vec();
    let mut at = 4;
    for _ in 0..entries {
        let id = u16::from_be_bytes([body[at], body[at + 1]]);
        let n = body[at + 2] as usize;
        let indices = &body[at + 3..at + 3 + n];
        new_body.extend_from_slice(&body[at..at + 2]);
        if id == primary {
            new_body.push(body[at + 2] + 1);
            new_body.extend_from_slice(indices);
            new_body.push(0x80 | index);
        } else {
            new_body.extend_from_slice(&body[at + 2..at + 3 + n]);
        }
        at += 3 + n;
    }
    let mut new_ipma = heic[ipma.start..ipma.start + 12].to_vec();
    new_ipma.extend_from_slice(&new_body);
    let grown_ipma = new_ipma.len() - ipma.size;
    let ipma_size = new_ipma.len() as u64;
    write_uint(&mut new_ipma, 0, 4, ipma_size);

    let ipco_end = ipco.start + ipco.size;
    let mut out = heic[..ipco_end].to_vec();
    out.extend_from_slice(&irot);
    out.extend_from_slice(&heic[ipco_end..ipma.start]);
    out.extend_from_slice(&new_ipma);
    out.extend_from_slice(&heic[ipma.start + ipma.size..]);
    let delta = irot.len() + grown_ipma;
    add_to_size(&mut out, ipco.start, irot.len());
    add_to_size(&mut out, iprp.start, delta);
    add_to_size(&mut out, meta.start, delta);

    // iloc comes before iprp, so it has not moved; its file offsets past meta move by delta.
    let iloc = child(&out, meta_children, meta_end + delta, b"iloc");
    assert!(iloc.start < ipco.start, "iloc before iprp");
    let version = out[iloc.start + 8];
    let mut at = iloc.start + 12;
    let offset_size = (out[at] >> 4) as usize;
    let length_size = (out[at] & 15) as usize;
    let base_offset_size = (out[at + 1] >> 4) as usize;
    let index_size = if version >= 1 {
        (out[at + 1] & 15) as usize
    } else {
        0
    };
    at += 2;
    let id_size = if version < 2 { 2 } else { 4 };
    let items = read_uint(&out, at, id_size);
    at += id_size;
    for _ in 0..items {
        at += id_size;
        let construction = if version >= 1 {
            at += 2;
            read_uint(&out, at - 2, 2) & 15
        } else {
            0
        };
        at += 2; // data reference index
        let base = read_uint(&out, at, base_offset_size);
        let moves = construction == 0;
        if moves && base_offset_size > 0 && base >= meta_end as u64 {
            write_uint(&mut out, at, base_offset_size, base + delta as u64);
        }
        at += base_offset_size;
        let extents = read_uint(&out, at, 2);
        at += 2;
        for _ in 0..extents {
            at += index_size;
            let offset = read_uint(&out, at, offset_size);
            if moves && base == 0 && offset >= meta_end as u64 {
                write_uint(&mut out, at, offset_size, offset + delta as u64);
            }
            at += offset_size + length_size;
        }
    }
    out
}
