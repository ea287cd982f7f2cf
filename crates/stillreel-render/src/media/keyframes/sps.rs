//! The colour description an H.264 sequence parameter set signals (its VUI), read the way
//! ffmpeg's decoder reads it and named as ffprobe names it (ITU-T H.264 7.3.2.1.1 and E.1.1).
//! Only what the colour fields need is decoded; the fields before them are skipped by their
//! syntax. A set this reader does not follow (an unusual profile, no VUI, a code without a
//! name here) is `None`, and the caller asks ffprobe instead.

/// The SPS's colour facts, as ffprobe prints them (`None`: not signalled, which ffprobe
/// leaves out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpsColour {
    pub(crate) range: Option<&'static str>,
    pub(crate) space: Option<&'static str>,
    pub(crate) transfer: Option<&'static str>,
    pub(crate) primaries: Option<&'static str>,
    pub(crate) chroma_location: Option<&'static str>,
}

/// Bits of an RBSP, most significant first.
struct Bits {
    data: Vec<u8>,
    at: usize,
}

impl Bits {
    fn bit(&mut self) -> Option<u32> {
        let byte = *self.data.get(self.at / 8)?;
        let bit = (byte >> (7 - self.at % 8)) & 1;
        self.at += 1;
        Some(u32::from(bit))
    }

    fn bits(&mut self, n: u32) -> Option<u32> {
        (0..n).try_fold(0, |acc, _| Some((acc << 1) | self.bit()?))
    }

    /// Unsigned Exp-Golomb.
    fn ue(&mut self) -> Option<u32> {
        let mut zeros = 0;
        while self.bit()? == 0 {
            zeros += 1;
            if zeros > 31 {
                return None;
            }
        }
        Some((1u32 << zeros) - 1 + self.bits(zeros)?)
    }

    /// Signed Exp-Golomb (only skipped here).
    fn se(&mut self) -> Option<()> {
        self.ue().map(|_| ())
    }
}

/// The NAL unit's payload without its emulation-prevention bytes (`00 00 03` → `00 00`).
fn rbsp(nal: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(nal.len());
    let mut zeros = 0;
    for &b in nal {
        if zeros >= 2 && b == 3 {
            zeros = 0;
            continue;
        }
        zeros = if b == 0 { zeros + 1 } else { 0 };
        out.push(b);
    }
    out
}

/// Profiles whose SPS carries the chroma format, bit depths and scaling matrices.
const HIGH_PROFILES: [u32; 13] = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];

/// Skips one scaling list of `size` coefficients.
fn skip_scaling_list(bits: &mut Bits, size: usize) -> Option<()> {
    let (mut last, mut next) = (8i32, 8i32);
    for _ in 0..size {
        if next != 0 {
            let code = bits.ue()?;
            // se(v) from ue(v): 1 → 1, 2 → −1, 3 → 2, …
            let delta = if code % 2 == 1 {
                (code / 2 + 1) as i32
            } else {
                -((code / 2) as i32)
            };
            next = (last + delta + 256) % 256;
        }
        if next != 0 {
            last = next;
        }
    }
    Some(())
}

/// The colour description of the SPS NAL unit `nal` (header byte included).
pub(crate) fn sps_colour(nal: &[u8]) -> Option<SpsColour> {
    let data = rbsp(nal);
    if data.first()? & 0x1f != 7 {
        return None;
    }
    let profile = u32::from(*data.get(1)?);
    let mut bits = Bits { data, at: 32 };
    bits.ue()?; // seq_parameter_set_id
    if HIGH_PROFILES.contains(&profile) {
        let chroma_format = bits.ue()?;
        if chroma_format == 3 {
            bits.bit()?; // separate_colour_plane_flag
        }
        bits.ue()?; // bit_depth_luma_minus8
        bits.ue()?; // bit_depth_chroma_minus8
        bits.bit()?; // qpprime_y_zero_transform_bypass_flag
        if bits.bit()? == 1 {
            let lists = if chroma_format == 3 { 12 } else { 8 };
            for i in 0..lists {
                if bits.bit()? == 1 {
                    skip_scaling_list(&mut bits, if i < 6 { 16 } else { 64 })?;
                }
            }
        }
    }
    bits.ue()?; // log2_max_frame_num_minus4
    match bits.ue()? {
        0 => {
            bits.ue()?; // log2_max_pic_order_cnt_lsb_minus4
        }
        1 => {
            bits.bit()?; // delta_pic_order_always_zero_flag
            bits.se()?; // offset_for_non_ref_pic
            bits.se()?; // offset_for_top_to_bottom_field
            for _ in 0..bits.ue()? {
                bits.se()?; // offset_for_ref_frame
            }
        }
        _ => {}
    }
    bits.ue()?; // max_num_ref_frames
    bits.bit()?; // gaps_in_frame_num_value_allowed_flag
    bits.ue()?; // pic_width_in_mbs_minus1
    bits.ue()?; // pic_height_in_map_units_minus1
    if bits.bit()? == 0 {
        bits.bit()?; // mb_adaptive_frame_field_flag
    }
    bits.bit()?; // direct_8x8_inference_flag
    if bits.bit()? == 1 {
        for _ in 0..4 {
            bits.ue()?; // frame_crop_*_offset
        }
    }
    if bits.bit()? == 0 {
        return None; // no VUI: leave the defaults to ffprobe
    }
    if bits.bit()? == 1 {
        // aspect_ratio_info_present_flag
        if bits.bits(8)? == 255 {
            bits.bits(32)?; // sar_width, sar_height
        }
    }
    if bits.bit()? == 1 {
        bits.bit()?; // overscan_appropriate_flag
    }
    let mut colour = SpsColour {
        range: None,
        space: None,
        transfer: None,
        primaries: None,
        chroma_location: None,
    };
    if bits.bit()? == 1 {
        bits.bits(3)?; // video_format
        colour.range = Some(if bits.bit()? == 1 { "pc" } else { "tv" });
        if bits.bit()? == 1 {
            colour.primaries = primaries_name(bits.bits(8)?)?;
            colour.transfer = transfer_name(bits.bits(8)?)?;
            colour.space = space_name(bits.bits(8)?)?;
        }
    }
    // ffmpeg's decoder takes "left" (type 0) when the VUI does not say.
    colour.chroma_location = Some(if bits.bit()? == 1 {
        let top = bits.ue()?;
        bits.ue()?; // chroma_sample_loc_type_bottom_field
        chroma_location_name(top)?
    } else {
        "left"
    });
    Some(colour)
}

// Each `*_name`: `Some(None)` for "unspecified" (ffprobe prints nothing), `Some(Some(name))`
// for ffmpeg's name of the code, `None` for a code without a name here.

fn primaries_name(code: u32) -> Option<Option<&'static str>> {
    Some(match code {
        2 => None,
        1 => Some("bt709"),
        4 => Some("bt470m"),
        5 => Some("bt470bg"),
        6 => Some("smpte170m"),
        7 => Some("smpte240m"),
        8 => Some("film"),
        9 => Some("bt2020"),
        _ => return None,
    })
}

fn transfer_name(code: u32) -> Option<Option<&'static str>> {
    Some(match code {
        2 => None,
        1 => Some("bt709"),
        4 => Some("gamma22"),
        5 => Some("gamma28"),
        6 => Some("smpte170m"),
        7 => Some("smpte240m"),
        8 => Some("linear"),
        13 => Some("iec61966-2-1"),
        14 => Some("bt2020-10"),
        15 => Some("bt2020-12"),
        16 => Some("smpte2084"),
        18 => Some("arib-std-b67"),
        _ => return None,
    })
}

fn space_name(code: u32) -> Option<Option<&'static str>> {
    Some(match code {
        2 => None,
        0 => Some("gbr"),
        1 => Some("bt709"),
        4 => Some("fcc"),
        5 => Some("bt470bg"),
        6 => Some("smpte170m"),
        7 => Some("smpte240m"),
        9 => Some("bt2020nc"),
        10 => Some("bt2020c"),
        _ => return None,
    })
}

/// ffmpeg's `AVChromaLocation` names by H.264's chroma_sample_loc_type (ffmpeg adds one).
fn chroma_location_name(code: u32) -> Option<&'static str> {
    ["left", "center", "topleft", "top", "bottomleft", "bottom"]
        .get(code as usize)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulation_prevention_bytes_are_removed() {
        assert_eq!(rbsp(&[0, 0, 3, 1, 0, 0, 3]), [0, 0, 1, 0, 0]);
        assert_eq!(rbsp(&[0, 3, 0, 0, 3, 0]), [0, 3, 0, 0, 0]);
    }

    #[test]
    fn exp_golomb_codes_read_back() {
        // 1 → 0, 010 → 1, 011 → 2, 00100 → 3
        let mut bits = Bits {
            data: vec![0b1010_0110, 0b0100_0000],
            at: 0,
        };
        let codes: Vec<u32> = (0..4).map(|_| bits.ue().expect("code")).collect();
        assert_eq!(codes, [0, 1, 2, 3]);
    }

    #[test]
    fn an_x264_sps_without_colour_says_left_chroma_only() {
        // x264's SPS of a 1280x720 High-profile clip (from an avcC written by ffmpeg).
        let sps = [
            0x67, 0x64, 0x00, 0x1f, 0xac, 0xd9, 0x40, 0x50, 0x05, 0xbb, 0x01, 0x10, 0x00, 0x00,
            0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xc0, 0xf1, 0x83, 0x19, 0x60,
        ];
        let colour = sps_colour(&sps).expect("read");
        assert_eq!(
            colour,
            SpsColour {
                range: None,
                space: None,
                transfer: None,
                primaries: None,
                chroma_location: Some("left"),
            }
        );
        assert_eq!(sps_colour(&[0x68, 0xef]), None, "a PPS is not an SPS");
    }
}
