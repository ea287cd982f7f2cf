//! The push's frames: an axis-aligned zoom of one plane, drawn with byte shuffles.
//!
//! A push (in or out) maps output column `x` to canvas column `a·x + c` and row `y` to
//! `e·y + f`, so a frame is separable: each output row is a blend of two canvas rows
//! (vertical pass, one weight per row) read at per-column positions (horizontal pass). The
//! horizontal pass is the costly one: every output pixel reads two neighbours at its own
//! position, a gather that compilers do not vectorise. Because the window never grows beyond
//! the canvas (`a ≤ 1`), eight consecutive output pixels read at most ten consecutive canvas
//! bytes, so one SSSE3 byte shuffle (`pshufb`) gathers their eight neighbour pairs and one
//! multiply-add (`pmaddubsw`) blends them: eight pixels in a handful of instructions, where the
//! scalar loop (`warp`'s earlier path) spent about four nanoseconds a pixel on this machine.
//!
//! Precision: the vertical pass rounds to 8 bits, the horizontal weights are 1/64 (a position
//! error under 1/128 px); against the single-rounding scalar blend a pixel differs by at most a
//! few levels at a hard edge (`tests` bound it). The scalar fallback (no SSSE3, or not x86-64)
//! does the very same integer arithmetic, so every machine draws the same bytes.
//!
//! The SIMD code needs no `unsafe` of ours: `pulp` checks the CPU once and hands out a token
//! whose methods are the intrinsics, and `vectorize` compiles the closure with those features
//! (AVX2 when present, which also widens the vertical pass).

use crate::draw::sampling::{Plane, SUB, fixed};
use crate::geometry::homography::Homography;

/// Fractional bits of a horizontal weight.
const H_BITS: u32 = 6;
const H_ONE: u16 = 1 << H_BITS;
/// Output pixels per shuffle.
const LANES: usize = 8;
/// Canvas bytes one shuffle can reach from its block's first position.
pub(crate) const REACH: usize = 16;

/// Eight output pixels of a row: where their reads start, which bytes from there each lane
/// pairs, and the pairs' weights (`H_ONE − f`, `f`).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    not(target_arch = "x86_64"),
    expect(dead_code, reason = "only x86-64's SSSE3 path reads the blocks")
)]
pub(crate) struct Block {
    base: u32,
    pairs: [u8; 16],
    weights: [u8; 16],
}

/// The horizontal pass of one frame of one plane: per column its left neighbour and weight,
/// and the same as shuffle blocks (`None` when a block's reads do not fit a shuffle, which a
/// window inside the canvas never causes).
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    left: Vec<u32>,
    frac: Vec<u8>,
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(dead_code, reason = "only x86-64's SSSE3 path reads the blocks")
    )]
    blocks: Option<Vec<Block>>,
}

impl Columns {
    fn new(width: usize, map: &Homography, shift: u32) -> Self {
        Columns::at(width, |x| {
            fixed(map.a * (x << shift) as f64 + map.c, shift, width - 1)
        })
    }

    /// Columns reading at `read(x)`: the left neighbour and the weight in 1/256 (as
    /// `sampling::fixed` gives them), which must not decrease with `x` for the shuffles.
    pub(crate) fn at(width: usize, read: impl Fn(usize) -> (usize, i32)) -> Self {
        let mut left = Vec::with_capacity(width);
        let mut frac = Vec::with_capacity(width);
        for x in 0..width {
            let (i, f) = read(x);
            left.push(i as u32);
            // 1/256 → 1/64, rounded; 64 takes the right neighbour whole.
            frac.push(((f + 2) >> 2) as u8);
        }
        let blocks = (0..width / LANES)
            .map(|b| {
                let lanes = b * LANES..(b + 1) * LANES;
                let base = left[lanes.start];
                let mut pairs = [0u8; 16];
                let mut weights = [0u8; 16];
                for (k, x) in lanes.enumerate() {
                    // A read left of the block's first (never for a push) does not fit.
                    let offset = left[x].checked_sub(base)? as usize;
                    if offset + 1 >= REACH {
                        return None;
                    }
                    pairs[2 * k] = offset as u8;
                    pairs[2 * k + 1] = offset as u8 + 1;
                    weights[2 * k] = (H_ONE - u16::from(frac[x])) as u8;
                    weights[2 * k + 1] = frac[x];
                }
                Some(Block {
                    base,
                    pairs,
                    weights,
                })
            })
            .collect();
        Columns { left, frac, blocks }
    }
}

impl Columns {
    /// The shuffles this CPU can run these columns with (SSSE3 and blocks that fit).
    pub(crate) fn shuffles(&self) -> Shuffles<'_> {
        #[cfg(target_arch = "x86_64")]
        if let (Some(v2), Some(blocks)) = (crate::draw::cpu::v2(), self.blocks.as_deref()) {
            return Some((v2, blocks));
        }
        None
    }
}

/// Rows `first..` of `plane` zoomed through `map` (separable) into `out` (whole rows of
/// `plane.width`); `shift` is 1 for the half-size chroma planes.
pub(crate) fn draw_zoom(plane: &Plane, map: &Homography, shift: u32, first: usize, out: &mut [u8]) {
    let columns = Columns::new(plane.width, map, shift);
    let mut rows = Rows {
        plane,
        map,
        shift,
        first,
        out,
        columns: &columns,
        shuffles: None,
    };
    rows.shuffles = columns.shuffles();
    #[cfg(target_arch = "x86_64")]
    if let Some((v2, _)) = rows.shuffles {
        // The same code either way; under V3 the vertical pass widens to AVX2.
        return match crate::draw::cpu::v3() {
            Some(v3) => v3.vectorize(rows),
            None => v2.vectorize(rows),
        };
    }
    pulp::NullaryFnOnce::call(rows);
}

/// One plane's rows as a unit of work for `vectorize`: a struct whose `call` is
/// `#[inline(always)]`, not a closure, so the whole loop (and the intrinsics in it) is compiled
/// inside the function that has the CPU's features enabled; a closure body may be left out of
/// line, where the intrinsics become calls.
struct Rows<'a> {
    plane: &'a Plane,
    map: &'a Homography,
    shift: u32,
    first: usize,
    out: &'a mut [u8],
    columns: &'a Columns,
    shuffles: Shuffles<'a>,
}

impl pulp::NullaryFnOnce for Rows<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        draw_rows(
            self.plane,
            self.map,
            self.shift,
            self.first,
            self.out,
            self.columns,
            self.shuffles,
        );
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) type Shuffles<'a> = Option<(pulp::x86::V2, &'a [Block])>;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type Shuffles<'a> = Option<(std::convert::Infallible, &'a [Block])>;

#[inline(always)]
fn draw_rows(
    plane: &Plane,
    map: &Homography,
    shift: u32,
    first: usize,
    out: &mut [u8],
    columns: &Columns,
    shuffles: Shuffles<'_>,
) {
    let w = plane.width;
    // The vertical blend of the row's two canvas rows; REACH bytes of slack so a shuffle's
    // 16-byte read from any block's start stays inside.
    let mut row = vec![0u8; plane.stride + REACH];
    for (k, out_row) in out.chunks_exact_mut(w).enumerate() {
        let (v, fv) = fixed(
            map.e * ((first + k) << shift) as f64 + map.f,
            shift,
            plane.height - 1,
        );
        let r0 = &plane.data[v * plane.stride..][..plane.stride];
        let r1 = &plane.data[(v + 1) * plane.stride..][..plane.stride];
        vertical(r0, r1, fv as u16, &mut row[..plane.stride]);
        horizontal(&row, columns, shuffles, out_row);
    }
}

/// One row blended across at `columns` (`row` with [`REACH`] bytes of slack past the
/// plane's stride): eight pixels per shuffle where `shuffles` has them, the rest by [`pair`].
#[inline(always)]
pub(crate) fn horizontal(row: &[u8], columns: &Columns, shuffles: Shuffles<'_>, out: &mut [u8]) {
    let done = match shuffles {
        #[cfg(target_arch = "x86_64")]
        Some((simd, blocks)) => {
            horizontal_shuffled(simd, row, blocks, out);
            blocks.len() * LANES
        }
        #[cfg(not(target_arch = "x86_64"))]
        Some((never, _)) => match never {},
        None => 0,
    };
    let tail = out[done..]
        .iter_mut()
        .zip(&columns.left[done..])
        .zip(&columns.frac[done..]);
    for ((o, &left), &frac) in tail {
        *o = pair(row, left as usize, frac);
    }
}

/// `r0·(1 − fv) + r1·fv`, fv in 1/256, rounded to 8 bits (plain code the compiler vectorises).
#[inline(always)]
fn vertical(r0: &[u8], r1: &[u8], fv: u16, row: &mut [u8]) {
    let gv = SUB as u16 - fv;
    for ((o, &p0), &p1) in row.iter_mut().zip(r0).zip(r1) {
        *o = ((u16::from(p0) * gv + u16::from(p1) * fv + 128) >> 8) as u8;
    }
}

/// One output pixel from the blended row: neighbours `i`, `i + 1`, weight `f`/64.
#[inline(always)]
fn pair(row: &[u8], i: usize, f: u8) -> u8 {
    let f = u16::from(f);
    ((u16::from(row[i]) * (H_ONE - f) + u16::from(row[i + 1]) * f + H_ONE / 2) >> H_BITS) as u8
}

/// The blocks of a row, eight pixels per shuffle: the same arithmetic as [`pair`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn horizontal_shuffled(simd: pulp::x86::V2, row: &[u8], blocks: &[Block], out: &mut [u8]) {
    let half: [u16; 8] = [H_ONE / 2; 8];
    let half = pulp::cast(half);
    for (block, chunk) in blocks.iter().zip(out.chunks_exact_mut(LANES)) {
        let base = block.base as usize;
        let mut src = [0u8; REACH];
        src.copy_from_slice(&row[base..base + REACH]);
        let paired = simd
            .ssse3
            ._mm_shuffle_epi8(pulp::cast(src), pulp::cast(block.pairs));
        // Unsigned pixels times signed weights (0..=64 fit), pairs summed: 16-bit lanes.
        let sums = simd
            .ssse3
            ._mm_maddubs_epi16(paired, pulp::cast(block.weights));
        let rounded = simd
            .sse2
            ._mm_srli_epi16::<{ H_BITS as i32 }>(simd.sse2._mm_add_epi16(sums, half));
        let bytes: [u8; 16] = pulp::cast(simd.sse2._mm_packus_epi16(rounded, rounded));
        chunk.copy_from_slice(&bytes[..LANES]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(width: usize, height: usize) -> Plane {
        let pixels: Vec<u8> = (0..width * height)
            .map(|i| ((i * 37 + (i / width) * 11) % 256) as u8)
            .collect();
        Plane::padded(width, height, &pixels)
    }

    fn zoom(scale: f64, dx: f64, dy: f64, width: usize, height: usize) -> Homography {
        let (w, h) = (width as f64, height as f64);
        let (x0, y0) = ((w - w * scale) / 2.0 + dx, (h - h * scale) / 2.0 + dy);
        let corners = [
            (x0, y0),
            (x0 + w * scale, y0),
            (x0, y0 + h * scale),
            (x0 + w * scale, y0 + h * scale),
        ];
        Homography::from_corners(corners, width as u32, height as u32)
    }

    #[test]
    fn shuffled_and_scalar_rows_are_the_same_bytes() {
        let p = plane(200, 60);
        for (scale, dx, dy) in [(1.0, 0.0, 0.0), (0.93, 1.3, 0.7), (0.8, -2.2, 1.1)] {
            let map = zoom(scale, dx, dy, 200, 60);
            let columns = Columns::new(200, &map, 0);
            let mut scalar = vec![0u8; 200 * 60];
            draw_rows(&p, &map, 0, 0, &mut scalar, &columns, None);
            let mut drawn = vec![0u8; 200 * 60];
            draw_zoom(&p, &map, 0, 0, &mut drawn);
            assert_eq!(drawn, scalar, "scale {scale}");
            // 200 is not a multiple of 8: the tail is drawn by the scalar code either way.
            assert!(columns.blocks.is_some());
        }
    }

    #[test]
    fn reads_wider_than_a_shuffle_fall_back_to_scalar() {
        // A window larger than the canvas (never planned) reads more than 16 bytes per block.
        let map = zoom(2.5, 0.0, 0.0, 64, 16);
        assert!(Columns::new(64, &map, 0).blocks.is_none());
        let mut out = vec![0u8; 64 * 16];
        draw_zoom(&plane(64, 16), &map, 0, 0, &mut out);
    }
}
