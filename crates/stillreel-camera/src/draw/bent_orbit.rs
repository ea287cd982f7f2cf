//! Depth-bent orbit frames: a keystone map ([`crate::draw::keystone::is_keystone`], `b = h = 0`)
//! bent by a parallax with one scale for every nearness (the orbit's, [`crate::geometry::parallax`]).
//!
//! Why: read through `bent`'s general projective path, a depth orbit frame cost 4.4 ms at
//! 720p, three times the flat orbit's, and the depth orbit clip 1.33–1.35 × the flat one
//! (docs/BENCHMARKS.md). Half of that time went on positions: per pixel a division, the
//! flat point's two roundings and two 64-bit multiplies through the nearness tables.
//!
//! Here the keystone's denominator and flat u depend on the column alone, and one scale
//! makes `v` the same for every nearness: so once a band each column gets `1 / denominator`,
//! its scaled flat u and its depth field column; per row, four pixels a step with AVX, the flat
//! v, `v` (clamped), the canvas row it reads and the depth field cell; per pixel only the
//! nearness, `u0[d]` plus the column's part, and the gather are left. The nearness and `u` are
//! the general path's exactly; `v` is rounded once (`v0 + vf·scale`) where the general path
//! rounds the flat v first, so it is at most 1/256 px apart (`bent`'s tests).

use crate::depth::DepthField;
use crate::draw::flat_points::{RowPoints, Simd};
use crate::draw::sampling::{SUB, SUB_BITS};
use crate::draw::taps::{Taps, pairs};
use crate::geometry::homography::Homography;

/// The orbit's bend of one band: the per-column half, once per band, and the buffers of one
/// row.
pub(crate) struct OrbitBend {
    /// Per column `1 / denominator`.
    inverses: Vec<f64>,
    /// Per column the scaled flat u (`uf·s >> SCALE_BITS`) and the depth field column.
    scaled_u: Vec<i32>,
    columns: Vec<u32>,
    /// The parallax's `u0` over nearness, and whether some read of the band can leave the
    /// canvas's sides (most cannot: the parallax leaves room for its shift), so `u` needs
    /// its clamp.
    u0: [i32; 256],
    clamp: bool,
    /// `v = v0 + vf·v_scale`, in 1/`SUB` px: the one scale, times `SUB`.
    v_scale: f64,
    v0: i32,
    /// The clamps of u and v (the last pixel, fixed).
    limits: [i32; 2],
    field: (u32, u32),
    /// The row's per-pixel `v`, canvas row offset and depth field cell.
    vs: Vec<i32>,
    rows: Vec<u32>,
    cells: Vec<u32>,
}

impl OrbitBend {
    /// The bend of a band of `width`-pixel rows through `map`, with the parallax's tables
    /// (`s`: scale with `scale_bits` fractional bits; `u0`, `v0`), or `None` when the map is no
    /// keystone or the tables scale nearnesses differently (a dolly).
    #[inline(always)]
    pub(crate) fn new(
        map: &Homography,
        (s, scale_bits, u0, v0): (&[i64; 256], u32, &[i32; 256], &[i32; 256]),
        field: &DepthField,
        width: usize,
        limits: [i32; 2],
        simd: Simd,
    ) -> Option<Self> {
        let one_scale = s.iter().all(|&t| t == s[0]) && v0.iter().all(|&v| v == v0[0]);
        if !crate::draw::keystone::is_keystone(map) || !one_scale {
            return None;
        }
        let field = (field.width as u32, field.height as u32);
        // The flat points of a row whose v is 0: their u and depth field column are every
        // row's.
        let row = RowPoints {
            start: [map.c, 0.0, 1.0],
            step: [map.a, 0.0, map.g],
            field,
        };
        let (mut flats, mut columns) = (vec![[0i32; 2]; width], vec![0u32; width]);
        row.fill(simd, &mut flats, &mut columns);
        let scaled_u: Vec<i32> = flats
            .iter()
            .map(|&[flat_u, _]| ((i64::from(flat_u) * s[0]) >> scale_bits) as i32)
            .collect();
        let least = scaled_u.iter().min().copied().unwrap_or(0) + u0.iter().min().unwrap_or(&0);
        let most = scaled_u.iter().max().copied().unwrap_or(0) + u0.iter().max().unwrap_or(&0);
        Some(OrbitBend {
            inverses: (0..width).map(|x| 1.0 / (1.0 + map.g * x as f64)).collect(),
            scaled_u,
            columns,
            u0: *u0,
            clamp: least < 0 || most > limits[0],
            v_scale: s[0] as f64 * f64::from(SUB) / f64::from(1u32 << scale_bits),
            v0: v0[0],
            limits,
            field,
            vs: vec![0; width],
            rows: vec![0; width],
            cells: vec![0; width],
        })
    }

    /// The output row whose v numerator is `start + step·x`: its luma reads (`data`, rows
    /// `stride` apart) into `taps`, as `bent`'s general path and [`Taps::gather`] make them,
    /// and, when `positions` is given (the rows the chroma planes reuse), every pixel's
    /// position.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn row(
        &mut self,
        simd: Simd,
        start: f64,
        step: f64,
        near: &[u8],
        data: &[u8],
        stride: u32,
        taps: &mut Taps,
        positions: Option<&mut [[i32; 2]]>,
    ) {
        let done = self.fill_wide(simd, start, step, stride);
        for x in done..self.vs.len() {
            self.fill_one(x, start, step, stride);
        }
        let positions = positions.unwrap_or_default();
        if self.clamp {
            self.gather::<true>(near, data, stride, taps, positions);
        } else {
            self.gather::<false>(near, data, stride, taps, positions);
        }
    }

    /// Per pixel the nearness, `u` (clamped if `CLAMP`) and the reads; the positions too,
    /// as far as `positions` goes.
    #[inline(always)]
    fn gather<const CLAMP: bool>(
        &self,
        near: &[u8],
        data: &[u8],
        stride: u32,
        taps: &mut Taps,
        positions: &mut [[i32; 2]],
    ) {
        let umax = self.limits[0];
        let pixels = (taps.cells.iter_mut())
            .zip(self.cells.iter().zip(&self.scaled_u))
            .zip(self.vs.iter().zip(&self.rows))
            .enumerate();
        for (x, ((cell, (&depth_cell, &scaled_u)), (&v, &row))) in pixels {
            let d = usize::from(near[depth_cell as usize]);
            let u = self.u0[d] + scaled_u;
            let u = if CLAMP { u.clamp(0, umax) } else { u };
            if let Some(at) = positions.get_mut(x) {
                *at = [u, v];
            }
            let (top, bottom) = pairs(data, row + (u >> SUB_BITS) as u32, stride);
            *cell = [top, bottom, (u & (SUB - 1)) as u16, (v & (SUB - 1)) as u16];
        }
    }

    /// Column `x`'s `v`, canvas row offset and depth field cell, one at a time.
    #[inline(always)]
    fn fill_one(&mut self, x: usize, start: f64, step: f64, stride: u32) {
        let (width, height) = self.field;
        let vf = (start + step * x as f64) * self.inverses[x];
        let v = (vf * self.v_scale + f64::from(self.v0))
            .max(0.0)
            .min(f64::from(self.limits[1])) as i32;
        self.vs[x] = v;
        self.rows[x] = (v >> SUB_BITS) as u32 * stride;
        self.cells[x] = ((vf * 0.5) as u32).min(height - 1) * width + self.columns[x];
    }

    /// The leading multiple of four of the columns' [`OrbitBend::fill_one`], with AVX (the
    /// same operations; the depth field cell as `flat_points::Wide` spells the conversion).
    /// Returns how many it wrote.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn fill_wide(&mut self, simd: Simd, start: f64, step: f64, stride: u32) -> usize {
        let Some(simd) = simd else { return 0 };
        let wide = crate::draw::flat_points::Wide::new(simd, self.field);
        let (avx, sse2, sse4) = (simd.avx, simd.sse2, simd.sse4_1);
        let splat = |value: f64| avx._mm256_set1_pd(value);
        let (start, step) = (splat(start), splat(step));
        let (v_scale, v0) = (splat(self.v_scale), splat(f64::from(self.v0)));
        let (zero, vmax) = (splat(0.0), splat(f64::from(self.limits[1])));
        let stride = sse2._mm_set1_epi32(stride as i32);
        let n = self.vs.len() / 4 * 4;
        let blocks = (self.vs[..n].chunks_exact_mut(4))
            .zip(self.rows[..n].chunks_exact_mut(4))
            .zip(self.cells[..n].chunks_exact_mut(4))
            .zip(self.inverses[..n].chunks_exact(4))
            .zip(self.columns[..n].chunks_exact(4));
        for (k, ((((vs, rows), cells), inverses), columns)) in blocks.enumerate() {
            let x0 = (4 * k) as f64;
            let x = avx._mm256_setr_pd(x0, x0 + 1.0, x0 + 2.0, x0 + 3.0);
            let inv = pulp::cast(<[f64; 4]>::try_from(inverses).expect("four"));
            let vf = avx._mm256_mul_pd(avx._mm256_add_pd(start, avx._mm256_mul_pd(step, x)), inv);
            // `max` first: a NaN becomes 0, as `f64::max` makes it.
            let v = avx._mm256_add_pd(avx._mm256_mul_pd(vf, v_scale), v0);
            let v = avx._mm256_cvttpd_epi32(avx._mm256_min_pd(avx._mm256_max_pd(v, zero), vmax));
            vs.copy_from_slice(&pulp::cast::<_, [i32; 4]>(v));
            let row = sse4._mm_mullo_epi32(sse2._mm_srli_epi32::<{ SUB_BITS as i32 }>(v), stride);
            rows.copy_from_slice(&pulp::cast::<_, [u32; 4]>(row));
            let column = pulp::cast(<[u32; 4]>::try_from(columns).expect("four"));
            let cell =
                sse2._mm_add_epi32(sse4._mm_mullo_epi32(wide.row(vf), wide.field_width), column);
            cells.copy_from_slice(&pulp::cast::<_, [u32; 4]>(cell));
        }
        n
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn fill_wide(&mut self, _: Simd, _: f64, _: f64, _: u32) -> usize {
        0
    }
}
