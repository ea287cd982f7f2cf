//! The orbit's flat frames in two passes: maps whose window keeps vertical sides (a keystone:
//! `b = h = 0` in [`Homography`]), so that `u` and the denominator depend on the output
//! column alone and, in each column, `v` is affine in the row.
//!
//! Why: read through the general path (a homography per pixel, four gathered neighbours, a
//! blend), a flat orbit frame cost 3.4 ms at 720p on two threads, ten times a push's, and an
//! orbit clip 1.31 × the encoder floor against the push's 1.03–1.18 × (docs/BENCHMARKS.md).
//! Here, once per frame, each column's read across (left neighbour and weight) and its row
//! position at the band's first row and per row are worked out. Then every canvas row the
//! band reads is blended across once (**horizontal pass**: the push's byte shuffles,
//! [`crate::draw::zoom::horizontal`], eight pixels per `pshufb`), and each output row is a run of
//! contiguous blends of two of those rows (**vertical pass**: columns that read the same two
//! rows form a run; the row positions are `start + step·k` in `f64`, four at a time with AVX).
//! A 720p flat orbit frame takes 1.5 ms.
//!
//! Precision: as the zoom's, two roundings to 8 bits and 1/64 weights across (a position
//! error under 1/128 px), so a pixel differs from the general path's single rounding by at
//! most a few levels at a hard edge; `warp`'s tests bound it on every orbit the plans draw.

use std::sync::Mutex;

use crate::draw::sampling::{Plane, SUB, SUB_BITS};
use crate::draw::zoom::{Columns, REACH, horizontal};
use crate::geometry::homography::Homography;

/// Whether `map` keeps the window's sides vertical, so [`draw_keystone`] applies.
/// `Homography::from_corners` gives exact zeros for such windows.
pub(crate) fn is_keystone(map: &Homography) -> bool {
    map.b == 0.0 && map.h == 0.0
}

/// Buffers for the horizontal pass, kept between frames: a fresh one per frame and plane would
/// be pages the kernel faults in and zeroes every time (about 1.3 MB a 720p frame).
#[derive(Debug, Default)]
pub(crate) struct Scratch(Mutex<Vec<Vec<u8>>>);

impl Scratch {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut pool| pool.pop())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    fn give(&self, buffer: Vec<u8>) {
        if let Ok(mut pool) = self.0.lock() {
            pool.push(buffer);
        }
    }
}

impl Clone for Scratch {
    /// A copy of a canvas starts with no buffers of its own.
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

/// Rows `first..` of `plane` drawn through `map` (a keystone, [`is_keystone`]) into `out`
/// (whole rows), `shift` 1 for the half-size chroma planes.
pub(crate) fn draw_keystone(
    plane: &Plane,
    map: &Homography,
    shift: u32,
    first: usize,
    out: &mut [u8],
    scratch: &Scratch,
) {
    let w = plane.width;
    let count = out.len() / w;
    if count == 0 {
        return;
    }
    let step = f64::from(1u32 << shift);
    // `sampling::fixed`'s scale and clamp, as the general path (`warp::Projective`).
    let scale = crate::draw::sampling::position_scale(shift);
    let umax = ((w - 1) * SUB as usize) as f64;
    let vmax = ((plane.height - 1) * SUB as usize) as f64;
    let (du, dv, dd) = (map.a * step, map.d * step, map.g * step);
    // Per column, the general path's `1 / denominator` and read across (with `b = h = 0`, a
    // row's `u` numerator is `c` and its denominator 1).
    let inv: Vec<f64> = (0..w).map(|x| 1.0 / (1.0 + dd * x as f64)).collect();
    let columns = Columns::at(w, |x| {
        let u = ((map.c + du * x as f64) * inv[x] * scale).clamp(0.0, umax);
        let u = (u + 0.5) as i32;
        ((u >> SUB_BITS) as usize, u & (SUB - 1))
    });
    // Per column, the read's row position (1/256 px) at the band's first row and its step
    // from one row to the next: in a column `v` is affine in `y`.
    let y = (first << shift) as f64;
    let start: Vec<f64> = (inv.iter().enumerate())
        .map(|(x, &inv)| (map.e * y + map.f + dv * x as f64) * inv * scale)
        .collect();
    let per_row: Vec<f64> = inv.iter().map(|&inv| map.e * step * inv * scale).collect();
    let mut across = scratch.take();
    crate::draw::sampling::widest(Keystone {
        plane,
        out,
        columns: &columns,
        start,
        per_row,
        vmax,
        across: &mut across,
    });
    scratch.give(across);
}

/// [`draw_keystone`]'s passes as a unit of work for [`crate::draw::sampling::widest`].
struct Keystone<'a> {
    plane: &'a Plane,
    out: &'a mut [u8],
    columns: &'a Columns,
    start: Vec<f64>,
    per_row: Vec<f64>,
    vmax: f64,
    across: &'a mut Vec<u8>,
}

impl pulp::NullaryFnOnce for Keystone<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let Keystone {
            plane,
            out,
            columns,
            start,
            per_row,
            vmax,
            across,
        } = self;
        let w = plane.width;
        let count = out.len() / w;
        #[cfg(target_arch = "x86_64")]
        let simd = crate::draw::cpu::v3();
        #[cfg(not(target_arch = "x86_64"))]
        let simd = None::<std::convert::Infallible>;
        let rows = Reads {
            start: &start,
            per_row: &per_row,
            vmax,
        };
        let mut reads = vec![0i32; w];
        // The canvas rows the band reads: in each column `v` is affine in the row, so its
        // first and last rows bound them.
        let (mut low, mut high) = (usize::MAX, 0);
        for k in [0, count - 1] {
            rows.row(simd, k, &mut reads);
            for &v in &reads {
                let r = (v >> SUB_BITS) as usize;
                (low, high) = (low.min(r), high.max(r));
            }
        }
        let span = high + 2 - low;
        across.clear();
        across.resize(span * w, 0);
        let mut made = vec![false; span];
        let shuffles = columns.shuffles();
        let mut slack = vec![0u8; plane.stride + REACH];
        for (k, out_row) in out.chunks_exact_mut(w).enumerate() {
            rows.row(simd, k, &mut reads);
            // Runs of columns that read the same two canvas rows: one contiguous blend each.
            let mut x0 = 0;
            while x0 < w {
                let r = (reads[x0] >> SUB_BITS) as usize;
                let mut x1 = x0 + 1;
                while x1 < w && (reads[x1] >> SUB_BITS) as usize == r {
                    x1 += 1;
                }
                for k in [r, r + 1] {
                    let i = k - low;
                    if !made[i] {
                        slack[..plane.stride]
                            .copy_from_slice(&plane.data[k * plane.stride..][..plane.stride]);
                        horizontal(&slack, columns, shuffles, &mut across[i * w..(i + 1) * w]);
                        made[i] = true;
                    }
                }
                let top = &across[(r - low) * w..][x0..x1];
                let bottom = &across[(r + 1 - low) * w..][x0..x1];
                let cells = out_row[x0..x1]
                    .iter_mut()
                    .zip(top.iter().zip(bottom))
                    .zip(&reads[x0..x1]);
                for ((o, (&t, &b)), &v) in cells {
                    let fv = (v & (SUB - 1)) as u16;
                    *o = ((u16::from(t) * (SUB as u16 - fv) + u16::from(b) * fv + 128) >> 8) as u8;
                }
                x0 = x1;
            }
        }
    }
}

/// A band's row positions: per column at its first row (1/256 px) and the step per row.
struct Reads<'a> {
    start: &'a [f64],
    per_row: &'a [f64],
    vmax: f64,
}

impl Reads<'_> {
    /// Row `k`'s reads in 1/256 px, clamped to the plane and rounded as `sampling::fixed`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn row(&self, simd: Option<pulp::x86::V3>, k: usize, out: &mut [i32]) {
        let k = k as f64;
        let mut done = 0;
        if let Some(simd) = simd {
            let avx = simd.avx;
            let (kk, zero, half, max) = (
                avx._mm256_set1_pd(k),
                avx._mm256_set1_pd(0.0),
                avx._mm256_set1_pd(0.5),
                avx._mm256_set1_pd(self.vmax),
            );
            let n = out.len() / 4 * 4;
            let lanes = (out[..n].chunks_exact_mut(4))
                .zip(self.start.chunks_exact(4).zip(self.per_row.chunks_exact(4)));
            for (four, (start, step)) in lanes {
                let start: [f64; 4] = start.try_into().unwrap_or_default();
                let step: [f64; 4] = step.try_into().unwrap_or_default();
                let v =
                    avx._mm256_add_pd(pulp::cast(start), avx._mm256_mul_pd(pulp::cast(step), kk));
                let clamped = avx._mm256_min_pd(avx._mm256_max_pd(v, zero), max);
                let rounded: [i32; 4] =
                    pulp::cast(avx._mm256_cvttpd_epi32(avx._mm256_add_pd(clamped, half)));
                four.copy_from_slice(&rounded);
            }
            done = n;
        }
        self.scalar(k, done, out);
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn row(&self, _: Option<std::convert::Infallible>, k: usize, out: &mut [i32]) {
        self.scalar(k as f64, 0, out);
    }

    /// [`Reads::row`] one column at a time, from column `from`.
    #[inline(always)]
    fn scalar(&self, k: f64, from: usize, out: &mut [i32]) {
        let columns = out
            .iter_mut()
            .zip(self.start.iter().zip(self.per_row))
            .skip(from);
        for (o, (&start, &step)) in columns {
            *o = ((start + step * k).clamp(0.0, self.vmax) + 0.5) as i32;
        }
    }
}
