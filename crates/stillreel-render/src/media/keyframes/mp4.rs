//! A stored video's [`VideoFacts`] read from its MP4 boxes, in process: what [`super::facts_args`]
//! asks ffprobe for, without starting ffprobe (a blended stitch asks it for every clip and
//! every seam; each start costs about 0.09 s). Sample times come from `stts` (decoding) and
//! `ctts` (presentation offsets), shifted by the edit list's media time as ffmpeg's demuxer
//! shifts them, and rounded to the microseconds ffprobe prints; keyframes from `stss`; the
//! parameter sets' digest is SHA-256 over the `avcC` payload (ffmpeg's extradata); the colour
//! description from the SPS ([`super::sps`]). A file laid out otherwise (several edits, a
//! `colr` box, no `avcC`, …) is `None`, and the caller asks ffprobe.

use sha2::{Digest, Sha256};
use stillreel_providers::bmff::{boxes, child, u16_at, u32_at, u64_at};

use super::sps::sps_colour;
use super::{Keyframe, VideoFacts};

/// Seconds as ffprobe prints them (six decimals).
fn seconds(ticks: i64, timescale: u32) -> f64 {
    (ticks as f64 / f64::from(timescale) * 1e6).round() / 1e6
}

/// The edit list's media time (ticks the demuxer subtracts): no list is 0; one edit at normal
/// rate is its start; anything else is not read here.
fn media_time(trak: &[u8]) -> Option<i64> {
    let Some(edts) = child(trak, b"edts") else {
        return Some(0);
    };
    let elst = child(edts, b"elst")?;
    if u32_at(elst, 4)? != 1 {
        return None;
    }
    let (time, rate) = match elst.first()? {
        0 => (i64::from(u32_at(elst, 12)? as i32), u32_at(elst, 16)?),
        1 => (u64_at(elst, 16)? as i64, u32_at(elst, 24)?),
        _ => return None,
    };
    (time >= 0 && rate == 0x0001_0000).then_some(time)
}

/// Run-length tables (`stts`, `ctts`) expanded to one value per sample.
fn runs(table: &[u8], samples: usize) -> Option<Vec<i64>> {
    let count = u32_at(table, 4)? as usize;
    let mut values = Vec::with_capacity(samples);
    for i in 0..count {
        let (n, value) = (u32_at(table, 8 + 8 * i)?, u32_at(table, 12 + 8 * i)?);
        // ctts version 1 is signed; ffmpeg reads version 0 as signed too.
        let value = i64::from(value as i32);
        values.extend(std::iter::repeat_n(value, n as usize));
        if values.len() > samples {
            return None;
        }
    }
    Some(values)
}

/// The facts of the first video track of the MP4 in `data`.
pub(crate) fn video_facts(data: &[u8]) -> Option<VideoFacts> {
    let moov = child(data, b"moov")?;
    let trak = boxes(moov).map_while(Result::ok).find(|b| {
        &b.kind == b"trak"
            && child(b.body, b"mdia")
                .and_then(|m| child(m, b"hdlr"))
                .and_then(|h| h.get(8..12))
                == Some(b"vide")
    })?;
    let trak = trak.body;
    let mdia = child(trak, b"mdia")?;
    let mdhd = child(mdia, b"mdhd")?;
    let timescale = match mdhd.first()? {
        0 => u32_at(mdhd, 12)?,
        1 => u32_at(mdhd, 20)?,
        _ => return None,
    };
    if timescale == 0 {
        return None;
    }
    let stbl = child(child(mdia, b"minf")?, b"stbl")?;
    let entry = boxes(child(stbl, b"stsd")?.get(8..)?).next()?.ok()?;
    if &entry.kind != b"avc1" {
        return None;
    }
    let extensions = entry.body.get(78..)?;
    if child(extensions, b"colr").is_some() {
        return None;
    }
    let size = (
        u32::from(u16_at(entry.body, 24)?),
        u32::from(u16_at(entry.body, 26)?),
    );
    let avcc = child(extensions, b"avcC")?;
    let extradata = format!("SHA256:{:x}", Sha256::digest(avcc));
    // The first SPS: count in the low 5 bits of byte 5, each one sized by 2 bytes.
    if avcc.get(5)? & 0x1f == 0 {
        return None;
    }
    let sps_len = usize::from(u16_at(avcc, 6)?);
    let colour = sps_colour(avcc.get(8..8 + sps_len)?)?;

    let samples = u32_at(child(stbl, b"stsz")?, 8)? as usize;
    let deltas = runs(child(stbl, b"stts")?, samples)?;
    let offsets = match child(stbl, b"ctts") {
        Some(ctts) => runs(ctts, samples)?,
        None => vec![0; samples],
    };
    if deltas.len() != samples || offsets.len() != samples {
        return None;
    }
    let sync: Vec<usize> = match child(stbl, b"stss") {
        Some(stss) => (0..u32_at(stss, 4)? as usize)
            .map(|i| (u32_at(stss, 8 + 4 * i)? as usize).checked_sub(1))
            .collect::<Option<_>>()?,
        None => (0..samples).collect(),
    };
    let shift = media_time(trak)?;
    let mut dts = Vec::with_capacity(samples);
    let mut t = 0i64;
    for d in &deltas {
        dts.push(t);
        t += d;
    }
    let keyframes = sync
        .iter()
        .map(|&i| {
            let decode = *dts.get(i)? - shift;
            Some(Keyframe {
                pts: seconds(decode + offsets[i], timescale),
                dts: seconds(decode, timescale),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let color_args = [
        ("-color_range", colour.range),
        ("-colorspace", colour.space),
        ("-color_trc", colour.transfer),
        ("-color_primaries", colour.primaries),
        ("-chroma_sample_location", colour.chroma_location),
    ]
    .into_iter()
    .filter_map(|(option, value)| Some([option.to_owned(), value?.to_owned()]))
    .flatten()
    .collect();
    Some(VideoFacts {
        keyframes,
        extradata,
        size,
        color_args,
    })
}
