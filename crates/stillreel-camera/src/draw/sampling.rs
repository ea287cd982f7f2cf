//! The canvas's planes and the bilinear read both ways of drawing a frame share: the flat
//! window (`warp`) and the depth-bent one (`bent`).

/// Fractional bits of a sampling position (1/256 px, as `perspective`).
pub(crate) const SUB_BITS: u32 = 8;
pub(crate) const SUB: i32 = 1 << SUB_BITS;

/// One plane of the canvas, with one extra column and row repeating the last ones, so a
/// bilinear read at the far edge needs no branch.
#[derive(Debug, Clone)]
pub(crate) struct Plane {
    pub(crate) width: usize,
    pub(crate) height: usize,
    /// `width + 1`.
    pub(crate) stride: usize,
    pub(crate) data: Vec<u8>,
}

impl Plane {
    pub(crate) fn padded(width: usize, height: usize, pixels: &[u8]) -> Self {
        let stride = width + 1;
        let mut data = Vec::with_capacity(stride * (height + 1));
        for row in pixels.chunks_exact(width).take(height) {
            data.extend_from_slice(row);
            data.push(row[width - 1]);
        }
        let last = data[(height - 1) * stride..].to_vec();
        data.extend_from_slice(&last);
        Plane {
            width,
            height,
            stride,
            data,
        }
    }
}

/// `perspective`'s linear blend of four neighbours with 1/256 weights.
#[inline(always)]
pub(crate) fn blend(a: i32, b: i32, c: i32, d: i32, fu: i32, fv: i32) -> u8 {
    // top·(SUB − fv) + bottom·fv, with one multiplication fewer.
    let top = a * SUB + fu * (b - a);
    let bottom = c * SUB + fu * (d - c);
    let sum = top * SUB + fv * (bottom - top);
    ((sum + (1 << (2 * SUB_BITS - 1))) >> (2 * SUB_BITS)) as u8
}

/// A sampling position in plane pixels, fixed point, kept inside the plane. Rounded by adding
/// ½ and truncating (the same as `round` for the non-negative values it sees): `f64::round` is
/// a library call on baseline x86-64, and this runs twice per pixel.
#[inline(always)]
pub(crate) fn fixed(pos: f64, shift: u32, last: usize) -> (usize, i32) {
    let q = (pos * position_scale(shift)).clamp(0.0, (last * SUB as usize) as f64);
    let q = (q + 0.5) as i32;
    ((q >> SUB_BITS) as usize, q & (SUB - 1))
}

/// A canvas position's factor to fixed point in a plane of `shift` (1: the half-size chroma
/// planes). Multiplications only: a division here (by 2^shift) cost more than the blend.
#[inline(always)]
pub(crate) fn position_scale(shift: u32) -> f64 {
    if shift == 0 {
        SUB as f64
    } else {
        SUB as f64 * 0.5
    }
}

/// Runs `work` compiled for the widest instruction set this CPU offers (AVX2 and FMA on an
/// x86-64 that has them, checked once by `pulp`), so the per-pixel loops inlined into it are
/// vectorised for that CPU while the binary still runs on any x86-64. `work` is a struct
/// whose `call` is `#[inline(always)]` (a closure's body may be compiled out of line, without
/// the features).
#[inline(always)]
pub(crate) fn widest<W: pulp::NullaryFnOnce>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    if let Some(v3) = crate::draw::cpu::v3() {
        return v3.vectorize(work);
    }
    work.call()
}
