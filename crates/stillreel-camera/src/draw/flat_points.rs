//! A projective map's flat points along one output row, for the depth-bent orbit
//! (the projective path of `bent`): per pixel the homography, the point fixed to 1/256 px
//! (rounded half away from zero, as `f64::round`) and the depth field cell it falls in (as
//! `DepthField::at` finds it), four pixels per step with AVX where the CPU has it. Rust's
//! saturating float-to-integer casts kept the compiler from vectorising the plain loop; the
//! wide path spells out the same values (`tests`).

use crate::depth::DepthField;
use crate::draw::sampling::SUB;
use crate::geometry::homography::Homography;

/// One row of the map: the two numerators' and the denominator's values at `x = 0` and
/// their steps per pixel, and the depth field's size.
pub(crate) struct RowPoints {
    pub(crate) start: [f64; 3],
    pub(crate) step: [f64; 3],
    pub(crate) field: (u32, u32),
}

impl RowPoints {
    /// Output row `y` of `map`, with `field`'s cells.
    pub(crate) fn of_row(map: &Homography, y: f64, field: &DepthField) -> Self {
        RowPoints {
            start: [map.b * y + map.c, map.e * y + map.f, map.h * y + 1.0],
            step: [map.a, map.d, map.g],
            field: (field.width as u32, field.height as u32),
        }
    }

    /// Pixel `x`'s flat point, fixed, and its depth field cell (index into the field).
    #[inline(always)]
    pub(crate) fn point(&self, x: f64) -> ([i32; 2], u32) {
        let [nu0, nv0, den0] = self.start;
        let [du, dv, dd] = self.step;
        let (width, height) = self.field;
        let inv = 1.0 / (den0 + dd * x);
        let (uf, vf) = ((nu0 + du * x) * inv, (nv0 + dv * x) * inv);
        let flat = [
            (uf * f64::from(SUB)).round() as i32,
            (vf * f64::from(SUB)).round() as i32,
        ];
        let cell = ((vf * 0.5) as u32).min(height - 1) * width + ((uf * 0.5) as u32).min(width - 1);
        (flat, cell)
    }

    /// Every pixel's [`RowPoints::point`] into `flats` and `cells` (the same length).
    #[inline(always)]
    pub(crate) fn fill(&self, simd: Simd, flats: &mut [[i32; 2]], cells: &mut [u32]) {
        let done = self.fill_wide(simd, flats, cells);
        let rest = flats
            .iter_mut()
            .zip(cells.iter_mut())
            .enumerate()
            .skip(done);
        for (x, (flat, cell)) in rest {
            (*flat, *cell) = self.point(x as f64);
        }
    }

    /// The leading multiple of four of [`RowPoints::fill`], with AVX: the same operations in
    /// the same order ([`Wide`]). Returns how many it wrote.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn fill_wide(&self, simd: Simd, flats: &mut [[i32; 2]], cells: &mut [u32]) -> usize {
        let Some(simd) = simd else { return 0 };
        let wide = Wide::new(simd, self.field);
        let (avx, sse2, sse4) = (simd.avx, simd.sse2, simd.sse4_1);
        let splat = |value: f64| avx._mm256_set1_pd(value);
        let [nu0, nv0, den0] = self.start.map(splat);
        let [du, dv, dd] = self.step.map(splat);
        let one = splat(1.0);
        let n = flats.len().min(cells.len()) / 4 * 4;
        let blocks = flats[..n]
            .chunks_exact_mut(4)
            .zip(cells[..n].chunks_exact_mut(4));
        for (k, (four_flats, four_cells)) in blocks.enumerate() {
            let x0 = (4 * k) as f64;
            let x = avx._mm256_setr_pd(x0, x0 + 1.0, x0 + 2.0, x0 + 3.0);
            let inv = avx._mm256_div_pd(one, avx._mm256_add_pd(den0, avx._mm256_mul_pd(dd, x)));
            let uf = avx._mm256_mul_pd(avx._mm256_add_pd(nu0, avx._mm256_mul_pd(du, x)), inv);
            let vf = avx._mm256_mul_pd(avx._mm256_add_pd(nv0, avx._mm256_mul_pd(dv, x)), inv);
            let (u, v) = (wide.fixed(uf), wide.fixed(vf));
            let pairs: [[i32; 2]; 4] =
                pulp::cast([sse2._mm_unpacklo_epi32(u, v), sse2._mm_unpackhi_epi32(u, v)]);
            four_flats.copy_from_slice(&pairs);
            let index = sse2._mm_add_epi32(
                sse4._mm_mullo_epi32(wide.row(vf), wide.field_width),
                wide.column(uf),
            );
            four_cells.copy_from_slice(&pulp::cast::<_, [u32; 4]>(index));
        }
        n
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn fill_wide(&self, _: Simd, _: &mut [[i32; 2]], _: &mut [u32]) -> usize {
        0
    }
}

/// The conversions of [`RowPoints::point`], four at a time with AVX: `round` as truncation
/// after adding the largest double below ½ with the value's sign (what the compiler emits for
/// it); the saturating casts as NaN → 0 and a clamp to the integer's range before truncating.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    pub(crate) simd: pulp::x86::V3,
    below_half: std::arch::x86_64::__m256d,
    sign: std::arch::x86_64::__m256d,
    low: std::arch::x86_64::__m256d,
    high: std::arch::x86_64::__m256d,
    last_column: std::arch::x86_64::__m256d,
    last_row: std::arch::x86_64::__m256d,
    pub(crate) field_width: std::arch::x86_64::__m128i,
}

#[cfg(target_arch = "x86_64")]
impl Wide {
    #[inline(always)]
    pub(crate) fn new(simd: pulp::x86::V3, (width, height): (u32, u32)) -> Self {
        let splat = |value: f64| simd.avx._mm256_set1_pd(value);
        Wide {
            simd,
            below_half: splat(0.5f64.next_down()),
            sign: splat(-0.0),
            low: splat(f64::from(i32::MIN)),
            high: splat(f64::from(i32::MAX)),
            last_column: splat(f64::from(width - 1)),
            last_row: splat(f64::from(height - 1)),
            field_width: simd.sse2._mm_set1_epi32(width as i32),
        }
    }

    /// `(value · SUB).round() as i32`.
    #[inline(always)]
    pub(crate) fn fixed(&self, value: std::arch::x86_64::__m256d) -> std::arch::x86_64::__m128i {
        self.simd.avx._mm256_cvttpd_epi32(self.rounded(value))
    }

    /// [`Wide::fixed`] before its conversion: the integer as a double.
    #[inline(always)]
    pub(crate) fn rounded(&self, value: std::arch::x86_64::__m256d) -> std::arch::x86_64::__m256d {
        let avx = self.simd.avx;
        let value = avx._mm256_mul_pd(value, avx._mm256_set1_pd(f64::from(SUB)));
        let nudge = avx._mm256_or_pd(self.below_half, avx._mm256_and_pd(value, self.sign));
        let rounded = avx._mm256_add_pd(value, nudge);
        // NaN → 0 (an ordered compare is all ones, else zero), then the i32 range.
        let ordered = avx._mm256_cmp_pd::<7>(rounded, rounded);
        // Truncated as the conversion would, so the double is the integer it gives.
        avx._mm256_round_pd::<0b1011>(avx._mm256_min_pd(
            avx._mm256_max_pd(avx._mm256_and_pd(rounded, ordered), self.low),
            self.high,
        ))
    }

    /// `((value · ½) as u32).min(last)`: `max` with 0 first also sends NaN to 0.
    #[inline(always)]
    fn cell(
        &self,
        value: std::arch::x86_64::__m256d,
        last: std::arch::x86_64::__m256d,
    ) -> std::arch::x86_64::__m128i {
        let avx = self.simd.avx;
        let halved = avx._mm256_mul_pd(value, avx._mm256_set1_pd(0.5));
        avx._mm256_cvttpd_epi32(
            avx._mm256_min_pd(avx._mm256_max_pd(halved, avx._mm256_setzero_pd()), last),
        )
    }

    #[inline(always)]
    pub(crate) fn row(&self, vf: std::arch::x86_64::__m256d) -> std::arch::x86_64::__m128i {
        self.cell(vf, self.last_row)
    }

    #[inline(always)]
    pub(crate) fn column(&self, uf: std::arch::x86_64::__m256d) -> std::arch::x86_64::__m128i {
        self.cell(uf, self.last_column)
    }
}

/// The wide path's instruction set: AVX (with SSE4.1) or none.
#[cfg(target_arch = "x86_64")]
pub(crate) type Simd = Option<pulp::x86::V3>;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type Simd = Option<std::convert::Infallible>;

/// The widest [`Simd`] this CPU has.
pub(crate) fn simd() -> Simd {
    #[cfg(target_arch = "x86_64")]
    return crate::draw::cpu::v3();
    #[cfg(not(target_arch = "x86_64"))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows whose points land on every kind of value: exact halves of 1/256 px (ties, both
    /// signs), negatives, past the field, an orbit-like slope, and a zero denominator
    /// (infinities and NaN): the wide path writes the very values of the scalar one.
    #[test]
    fn four_at_a_time_is_the_scalar_point() {
        let rows = [
            (
                [2.5 / 256.0, -7.5 / 256.0, 1.0],
                [1.0 / 256.0, -1.0 / 256.0, 0.0],
            ),
            ([-3.0, 40.0, 1.0], [0.37, 0.01, 0.0]),
            ([12.3, 5.6, 1.02], [1.01, 0.002, 1e-4]),
            ([1e7, 3.0, 1.0], [100.0, 0.0, 0.0]),
            ([0.0, 1.0, 0.0], [0.0, -1.0, 0.0]),
            ([-1.0, 0.0, 0.0], [1.0, 0.0, 1.0]),
        ];
        for (start, step) in rows {
            let row = RowPoints {
                start,
                step,
                field: (64, 36),
            };
            let (mut flats, mut cells) = (vec![[0i32; 2]; 203], vec![0u32; 203]);
            row.fill(simd(), &mut flats, &mut cells);
            for (x, (&flat, &cell)) in flats.iter().zip(&cells).enumerate() {
                assert_eq!(
                    (flat, cell),
                    row.point(x as f64),
                    "{start:?} {step:?} x {x}"
                );
            }
            assert!(cells.iter().all(|&c| c < 64 * 36));
        }
    }
}
