//! Every picture a HEIF file holds, read from its `meta` box before anything is decoded: the
//! size each image item declares (its `ispe`, and for a grid or an overlay the output size in
//! the item's own data, which is what the decoder allocates whatever the `ispe` says), and how
//! many top-level pictures the decoder would write. ISO/IEC 23008-12: `iinf`/`infe` name the
//! items, `iloc` (with `idat`) locates their data, `iref` links tiles, thumbnails and
//! auxiliary pictures to their picture.

use stillreel_providers::bmff::BmffBox;

use super::damage::{Damaged, be_u16, be_u32, boxes, byte};

/// Item types the decoder turns into a picture.
const IMAGE_TYPES: [&[u8; 4]; 10] = [
    b"hvc1", b"grid", b"iden", b"iovl", b"av01", b"jpeg", b"avc1", b"j2k1", b"unci", b"vvc1",
];

/// A grid's or an overlay's description lies past the bytes given: only a longer read can
/// tell its size (the upload retries with the whole file).
pub const DESCRIPTION_PAST_END: Damaged =
    Damaged("a grid or overlay is described past the end of the file");

/// What the items of a file add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pictures {
    /// The most pixels any image item declares, as (width, height).
    pub largest: (u32, u32),
    /// Top-level pictures: image items neither hidden, nor a tile or input of another, nor
    /// a thumbnail or an auxiliary picture (depth, alpha) of one. At least 1.
    pub count: u32,
}

/// One `infe` entry.
struct Item {
    id: u32,
    kind: [u8; 4],
    hidden: bool,
}

/// Reads every item of `meta` (its children), whose properties are `properties` and whose
/// associations are `associations` (item id, property indices). `file` is the whole file, or
/// as much of it as there is, for data `iloc` locates in the file.
pub(super) fn read(
    file: &[u8],
    meta: &[BmffBox<'_>],
    properties: &[BmffBox<'_>],
    associations: &[(u32, Vec<usize>)],
) -> Result<Pictures, Damaged> {
    let mut largest = (0u32, 0u32);
    let mut consider = |size: (u32, u32)| {
        if pixels(size) > pixels(largest) {
            largest = size;
        }
    };
    for (_, indices) in associations {
        for index in indices {
            let Some(property) = index.checked_sub(1).and_then(|i| properties.get(i)) else {
                continue;
            };
            if &property.kind == b"ispe" {
                consider((be_u32(property.body, 4)?, be_u32(property.body, 8)?));
            }
        }
    }
    let Some(iinf) = meta.iter().find(|b| &b.kind == b"iinf") else {
        // No item list: the primary picture is all there is to know.
        return Ok(Pictures { largest, count: 1 });
    };
    let items = item_infos(iinf.body)?;
    let derived: Vec<&Item> = items
        .iter()
        .filter(|i| &i.kind == b"grid" || &i.kind == b"iovl")
        .collect();
    if !derived.is_empty() {
        let iloc = meta
            .iter()
            .find(|b| &b.kind == b"iloc")
            .ok_or(Damaged("it does not say where its grid is described"))?;
        let idat = meta.iter().find(|b| &b.kind == b"idat").map(|b| b.body);
        for item in derived {
            let data = item_data(iloc.body, item.id, file, idat)?;
            consider(output_size(&item.kind, data)?);
        }
    }
    let references = meta
        .iter()
        .find(|b| &b.kind == b"iref")
        .map(|b| references(b.body))
        .transpose()?
        .unwrap_or_default();
    let count = items
        .iter()
        .filter(|item| IMAGE_TYPES.contains(&&item.kind) && !item.hidden)
        .filter(|item| {
            !references.iter().any(|(kind, from, to)| match kind {
                b"thmb" | b"auxl" => *from == item.id,
                b"dimg" => to.contains(&item.id),
                _ => false,
            })
        })
        .count();
    Ok(Pictures {
        largest,
        count: u32::try_from(count).unwrap_or(u32::MAX).max(1),
    })
}

fn pixels((w, h): (u32, u32)) -> u64 {
    u64::from(w) * u64::from(h)
}

/// The entries of an `iinf` body (only version 2 and 3 `infe` boxes name an item type).
fn item_infos(iinf: &[u8]) -> Result<Vec<Item>, Damaged> {
    let skip = if byte(iinf, 0)? == 0 { 6 } else { 8 };
    let entries = boxes(iinf.get(skip..).ok_or(SHORT)?)?;
    let mut items = Vec::new();
    for infe in entries.iter().filter(|b| &b.kind == b"infe") {
        let body = infe.body;
        let version = byte(body, 0)?;
        let hidden = byte(body, 3)? & 1 == 1;
        let (id, at) = match version {
            2 => (u32::from(be_u16(body, 4)?), 6),
            3 => (be_u32(body, 4)?, 8),
            _ => continue,
        };
        // After the id: a 16-bit protection index, then the type.
        let kind = body.get(at + 2..at + 6).ok_or(SHORT)?;
        items.push(Item {
            id,
            kind: kind.try_into().map_err(|_| SHORT)?,
            hidden,
        });
    }
    Ok(items)
}

/// One `iref` entry: its type, the item it is from and the items it points to.
type Reference = ([u8; 4], u32, Vec<u32>);

/// The references of an `iref` body.
fn references(iref: &[u8]) -> Result<Vec<Reference>, Damaged> {
    let wide = byte(iref, 0)? != 0;
    let id = |data: &[u8], at: usize| {
        if wide {
            be_u32(data, at)
        } else {
            be_u16(data, at).map(u32::from)
        }
    };
    let width = if wide { 4 } else { 2 };
    let mut out = Vec::new();
    for reference in boxes(iref.get(4..).ok_or(SHORT)?)? {
        let body = reference.body;
        let from = id(body, 0)?;
        let count = usize::from(be_u16(body, width)?);
        let to = (0..count)
            .map(|i| id(body, width + 2 + i * width))
            .collect::<Result<Vec<_>, _>>()?;
        out.push((reference.kind, from, to));
    }
    Ok(out)
}

/// The first extent of item `wanted`'s data, by an `iloc` body, from the file or `idat`.
fn item_data<'a>(
    iloc: &[u8],
    wanted: u32,
    file: &'a [u8],
    idat: Option<&'a [u8]>,
) -> Result<&'a [u8], Damaged> {
    let version = byte(iloc, 0)?;
    let sizes = byte(iloc, 4)?;
    let (offset_size, length_size) = (usize::from(sizes >> 4), usize::from(sizes & 15));
    let sizes = byte(iloc, 5)?;
    let base_size = usize::from(sizes >> 4);
    let index_size = if version >= 1 {
        usize::from(sizes & 15)
    } else {
        0
    };
    let uint = |at: usize, width: usize| -> Result<u64, Damaged> {
        let bytes = iloc.get(at..at + width).ok_or(SHORT)?;
        if width > 8 {
            return Err(Damaged("its item locations use impossible sizes"));
        }
        Ok(bytes.iter().fold(0, |v, &b| (v << 8) | u64::from(b)))
    };
    let id_size = if version < 2 { 2 } else { 4 };
    let count = uint(6, id_size)?;
    let mut at = 6 + id_size;
    for _ in 0..count {
        let id = uint(at, id_size)?;
        at += id_size;
        let construction = if version >= 1 {
            at += 2;
            uint(at - 2, 2)? & 15
        } else {
            0
        };
        at += 2; // data reference index
        let base = uint(at, base_size)?;
        at += base_size;
        let extents = uint(at, 2)?;
        at += 2;
        let extent_size = index_size + offset_size + length_size;
        if id != u64::from(wanted) {
            at += extent_size * usize::try_from(extents).map_err(|_| SHORT)?;
            continue;
        }
        if extents == 0 {
            break;
        }
        let offset = uint(at + index_size, offset_size)?;
        let length = uint(at + index_size + offset_size, length_size)?;
        let source = match construction {
            0 => file,
            1 => idat.ok_or(Damaged("its grid is described in an idat box it lacks"))?,
            _ => {
                return Err(Damaged(
                    "its grid is described in a way that is not read here",
                ));
            }
        };
        let start = base
            .checked_add(offset)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or(DESCRIPTION_PAST_END)?;
        let rest = source.get(start..).ok_or(DESCRIPTION_PAST_END)?;
        return match usize::try_from(length) {
            Ok(0) => Ok(rest),
            Ok(length) => rest.get(..length).ok_or(DESCRIPTION_PAST_END),
            Err(_) => Err(DESCRIPTION_PAST_END),
        };
    }
    Err(Damaged("it does not say where its grid is described"))
}

/// The output size a `grid` or `iovl` item's data declares: after a version byte and a flags
/// byte whose bit 0 chooses 32-bit sizes over 16-bit ones, a grid has its rows and columns
/// (a byte each), an overlay its fill colour (four 16-bit values).
fn output_size(kind: &[u8; 4], data: &[u8]) -> Result<(u32, u32), Damaged> {
    let at = if kind == b"grid" { 4 } else { 10 };
    let too_short = Damaged("its grid or overlay description is cut short");
    let Some(&flags) = data.get(1) else {
        return Err(too_short);
    };
    let wide = flags & 1 == 1;
    let size = if wide {
        (be_u32(data, at), be_u32(data, at + 4))
    } else {
        (
            be_u16(data, at).map(u32::from),
            be_u16(data, at + 2).map(u32::from),
        )
    };
    match size {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(too_short),
    }
}

/// What a read past the end of a box's contents is called.
const SHORT: Damaged = super::damage::SHORT;
