//! The gathered reads of one output row of a depth-bent frame and their blend.
//!
//! A bent frame reads every pixel at its own position, so the four neighbours are gathered
//! one pixel at a time (scalar loads; AVX2's gathers need `unsafe`), into [`Taps`]. The
//! blends then run over those arrays with no position-dependent load: with AVX2, eight pixels
//! per step by two 16-bit multiply-adds (`pmaddwd`), horizontal then vertical, which is the
//! very arithmetic of [`crate::draw::sampling::blend`] (same bytes: `tests`); one by one elsewhere.

use crate::draw::sampling::{SUB, SUB_BITS, blend};

/// The two neighbour pairs a read at offset `i` of a plane blends: `(data[i], data[i + 1])`
/// and the pair one row (`stride`) below, each as one little-endian `u16`. Offsets are `u32`
/// (a plane is far smaller than 4 GiB), so the sums provably do not overflow and the four
/// bytes cost one bounds check (of the window from the top pair to the bottom one).
#[inline(always)]
pub(crate) fn pairs(data: &[u8], i: u32, stride: u32) -> (u16, u16) {
    let (i, stride) = (i as usize, stride as usize);
    let window = &data[i..i + stride + 2];
    (
        u16::from_le_bytes([window[0], window[1]]),
        u16::from_le_bytes([window[stride], window[stride + 1]]),
    )
}

/// [`Taps::gather`] for both chroma planes at once: every other luma position, halved, read
/// from the U and the V plane (same size, same stride).
#[inline(always)]
pub(crate) fn gather_chroma(
    data: [&[u8]; 2],
    stride: u32,
    positions: &[[i32; 2]],
    taps: [&mut Taps; 2],
) {
    let [u_taps, v_taps] = taps;
    let cells = (u_taps.cells.iter_mut())
        .zip(v_taps.cells.iter_mut())
        .zip(positions.iter().step_by(2));
    for ((u_cell, v_cell), &[u, v]) in cells {
        let (u, v) = (u >> 1, v >> 1);
        let i = (v >> SUB_BITS) as u32 * stride + (u >> SUB_BITS) as u32;
        let (fu, fv) = ((u & (SUB - 1)) as u16, (v & (SUB - 1)) as u16);
        let (top, bottom) = pairs(data[0], i, stride);
        *u_cell = [top, bottom, fu, fv];
        let (top, bottom) = pairs(data[1], i, stride);
        *v_cell = [top, bottom, fu, fv];
    }
}

/// A chroma row of the separable path: per nearness, the offset of the chroma row its (halved)
/// v reads and the vertical weight.
pub(crate) struct ChromaRows<'a> {
    pub(crate) at: &'a [u32; 256],
    pub(crate) fv: &'a [u16; 256],
}

impl ChromaRows<'_> {
    /// Both chroma planes' reads for every other luma column: its u (`us`) halved, the row
    /// and weight of its nearness (`nears`).
    #[inline(always)]
    pub(crate) fn gather(
        &self,
        data: [&[u8]; 2],
        stride: u32,
        us: &[i32],
        nears: &[u8],
        taps: [&mut Taps; 2],
    ) {
        let [u_taps, v_taps] = taps;
        let cells = (u_taps.cells.iter_mut())
            .zip(v_taps.cells.iter_mut())
            .zip(us.iter().step_by(2).zip(nears.iter().step_by(2)));
        for ((u_cell, v_cell), (&u, &d)) in cells {
            let u = u >> 1;
            let i = self.at[usize::from(d)] + (u >> SUB_BITS) as u32;
            let (fu, fv) = ((u & (SUB - 1)) as u16, self.fv[usize::from(d)]);
            let (top, bottom) = pairs(data[0], i, stride);
            *u_cell = [top, bottom, fu, fv];
            let (top, bottom) = pairs(data[1], i, stride);
            *v_cell = [top, bottom, fu, fv];
        }
    }
}

/// One output row's reads, gathered: per pixel the top and bottom neighbour pairs and the
/// weights (1/[`SUB`]), as one 8-byte cell (one store per pixel in the gathering loop, where
/// separate arrays cost registers the loop did not have).
pub(crate) struct Taps {
    pub(crate) cells: Vec<[u16; 4]>,
}

impl Taps {
    pub(crate) fn new(width: usize) -> Self {
        Taps {
            cells: vec![[0; 4]; width],
        }
    }

    /// The luma plane's reads at positions `positions[x]` (u, v).
    #[inline(always)]
    pub(crate) fn gather(&mut self, data: &[u8], stride: u32, positions: &[[i32; 2]]) {
        for (cell, &[u, v]) in self.cells.iter_mut().zip(positions) {
            let i = (v >> SUB_BITS) as u32 * stride + (u >> SUB_BITS) as u32;
            let (top, bottom) = pairs(data, i, stride);
            *cell = [top, bottom, (u & (SUB - 1)) as u16, (v & (SUB - 1)) as u16];
        }
    }

    /// [`blend`] of every gathered pixel into `out`: eight at a time with AVX2 when
    /// `blender` has it ([`blend_eight`]), the rest (and every pixel elsewhere) one by one.
    #[inline(always)]
    pub(crate) fn blend(&self, blender: Blender, out: &mut [u8]) {
        let done = blender.blend(&self.cells, out);
        for (o, &[top, bottom, fu, fv]) in out[done..].iter_mut().zip(&self.cells[done..]) {
            *o = blend(
                i32::from(top & 0xff),
                i32::from(top >> 8),
                i32::from(bottom & 0xff),
                i32::from(bottom >> 8),
                i32::from(fu),
                i32::from(fv),
            );
        }
    }
}

/// The blend's instruction set: AVX2 (the token from `pulp`, checked once per band) or none.
#[derive(Clone, Copy)]
pub(crate) struct Blender {
    #[cfg(target_arch = "x86_64")]
    v3: Option<pulp::x86::V3>,
}

impl Blender {
    pub(crate) fn new() -> Self {
        Blender {
            #[cfg(target_arch = "x86_64")]
            v3: crate::draw::cpu::v3(),
        }
    }

    /// Without AVX2 (no token, for the tests of the scalar path).
    #[cfg(test)]
    fn scalar() -> Self {
        Blender {
            #[cfg(target_arch = "x86_64")]
            v3: None,
        }
    }

    /// Blends the leading multiple of eight of `cells` into `out`; returns how many.
    #[inline(always)]
    fn blend(self, cells: &[[u16; 4]], out: &mut [u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = self.v3 {
            let n = out.len().min(cells.len()) / 8 * 8;
            for (eight, chunk) in cells[..n].chunks_exact(8).zip(out.chunks_exact_mut(8)) {
                chunk.copy_from_slice(&blend_eight(simd, eight));
            }
            return n;
        }
        // Without x86-64's AVX2 nothing is blended here: the scalar loop does it all.
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (cells, out);
        0
    }
}

/// Byte shuffle masks (per 128-bit lane, two cells of 8 bytes: `a b c d fu 0 fv 0`; 0x80
/// writes a zero).
#[cfg(target_arch = "x86_64")]
const Z: u8 = 0x80;
/// The four neighbours as 16-bit words: `a b c d` of both cells.
#[cfg(target_arch = "x86_64")]
const NEIGHBOURS: [u8; 16] = [0, Z, 1, Z, 2, Z, 3, Z, 8, Z, 9, Z, 10, Z, 11, Z];
/// `fu` four times per cell (its high byte is zero).
#[cfg(target_arch = "x86_64")]
const FU: [u8; 16] = [4, 5, 4, 5, 4, 5, 4, 5, 12, 13, 12, 13, 12, 13, 12, 13];
/// `fv` twice per cell, into the low (first four cells) or high (last four) half of a lane.
#[cfg(target_arch = "x86_64")]
const FV_LOW: [u8; 16] = [6, 7, 6, 7, 14, 15, 14, 15, Z, Z, Z, Z, Z, Z, Z, Z];
#[cfg(target_arch = "x86_64")]
const FV_HIGH: [u8; 16] = [Z, Z, Z, Z, Z, Z, Z, Z, 6, 7, 6, 7, 14, 15, 14, 15];

#[cfg(target_arch = "x86_64")]
fn lanes(half: [u8; 16]) -> std::arch::x86_64::__m256i {
    let mut both = [0u8; 32];
    both[..16].copy_from_slice(&half);
    both[16..].copy_from_slice(&half);
    pulp::cast(both)
}

/// Eight pixels' [`blend`]: per pixel `top = a·(256 − fu) + b·fu` and the same below by one
/// `pmaddwd` (words `a, b` against `256 − fu, fu`), then `top·(256 − fv) + bottom·fv` by a
/// second one, `top` and `bottom` taken 32768 down to fit signed words (added back with the
/// rounding half before the shift).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn blend_eight(simd: pulp::x86::V3, cells: &[[u16; 4]]) -> [u8; 8] {
    let avx2 = simd.avx2;
    let words: &[u16] = cells.as_flattened();
    let mut low = [0u16; 16];
    let mut high = [0u16; 16];
    low.copy_from_slice(&words[..16]);
    high.copy_from_slice(&words[16..32]);
    let (x0, x1): (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) =
        (pulp::cast(low), pulp::cast(high));
    let full: std::arch::x86_64::__m256i = pulp::cast([256u16; 16]);
    let offset: std::arch::x86_64::__m256i = pulp::cast([32768i32; 8]);
    // Horizontal: lane k of x0 holds cells 2k, 2k + 1; the sums are `top, bottom` per cell.
    let horizontal = |x| {
        let fu = avx2._mm256_shuffle_epi8(x, lanes(FU));
        let weights = avx2._mm256_blend_epi16::<0b1010_1010>(avx2._mm256_sub_epi16(full, fu), fu);
        let sums = avx2._mm256_madd_epi16(avx2._mm256_shuffle_epi8(x, lanes(NEIGHBOURS)), weights);
        avx2._mm256_sub_epi32(sums, offset)
    };
    // Lane 0: cells 0, 1, 4, 5; lane 1: cells 2, 3, 6, 7 (the pack interleaves per lane).
    let rows = avx2._mm256_packs_epi32(horizontal(x0), horizontal(x1));
    let fv = avx2._mm256_or_si256(
        avx2._mm256_shuffle_epi8(x0, lanes(FV_LOW)),
        avx2._mm256_shuffle_epi8(x1, lanes(FV_HIGH)),
    );
    let weights = avx2._mm256_blend_epi16::<0b1010_1010>(avx2._mm256_sub_epi16(full, fv), fv);
    let sums = avx2._mm256_madd_epi16(rows, weights);
    let rounded: std::arch::x86_64::__m256i = pulp::cast([32768i32 * 256 + 32768; 8]);
    let values = avx2._mm256_srli_epi32::<16>(avx2._mm256_add_epi32(sums, rounded));
    let ordered = avx2._mm256_permutevar8x32_epi32(values, pulp::cast([0i32, 1, 4, 5, 2, 3, 6, 7]));
    let packed = avx2._mm256_packus_epi32(ordered, ordered);
    let bytes: [u8; 32] = pulp::cast(avx2._mm256_packus_epi16(packed, packed));
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&bytes[..4]);
    out[4..].copy_from_slice(&bytes[16..20]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of cell (extreme bytes and weights, and a spread of the rest), blended
    /// eight at a time, gives the very bytes of the one-by-one blend.
    #[test]
    fn the_wide_blend_is_the_scalar_blend() {
        let mut cells = Vec::new();
        let extremes = [0u16, 1, 127, 128, 254, 255];
        for &a in &extremes {
            for &b in &extremes {
                for &f in &[0u16, 1, 128, 255] {
                    cells.push([a | b << 8, b | a << 8, f, 255 - f]);
                    cells.push([a | a << 8, b | b << 8, 255 - f, f]);
                }
            }
        }
        let mut state = 12345u32;
        for _ in 0..4099 {
            let mut next = || {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (state >> 16) as u16
            };
            cells.push([next(), next(), next() & 0xff, next() & 0xff]);
        }
        let taps = Taps { cells };
        let mut wide = vec![0u8; taps.cells.len()];
        let mut one_by_one = vec![0u8; taps.cells.len()];
        taps.blend(Blender::new(), &mut wide);
        taps.blend(Blender::scalar(), &mut one_by_one);
        assert_eq!(wide, one_by_one);
        #[cfg(target_arch = "x86_64")]
        if Blender::new().v3.is_some() {
            assert!(Blender::new().blend(&taps.cells, &mut wide) > 4000);
        }
    }
}
