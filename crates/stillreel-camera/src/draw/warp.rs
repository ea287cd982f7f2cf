//! The camera's frames, drawn in Rust: the plan's window ([`crate::geometry::clip_plan::ClipPlan::window_at`])
//! sampled bilinearly out of the cover-cropped picture (the *canvas*, yuv420p), one frame at a
//! time, for ffmpeg to encode from a pipe.
//!
//! Why not ffmpeg's `perspective` with per-frame expressions: it recomputes its whole sampling
//! map for every frame on one thread, which cost about as much as the encode itself. Here a
//! frame is a homography evaluated per row and a bilinear read per pixel, over the rows split
//! between threads; a push (an axis-aligned zoom) takes a two-pass path (rows blended first,
//! then columns by byte shuffles: [`crate::draw::zoom`]).
//!
//! The mapping is the one `perspective` used, so clips look as before: output pixel `(x, y)`
//! (its top-left corner) maps to the canvas point the window's corners span at `(x/W, y/H)`,
//! positions in 1/256 px, weights rounded as `perspective`'s linear interpolation; chroma
//! planes read the luma map at the subsampled position, halved.

use std::io::{self, Write};
use std::thread;

use stillreel_core::Engine;

use crate::depth::DepthField;
use crate::draw::sampling::{Plane, SUB};
use crate::draw::taps::{Blender, Taps};
use crate::geometry::clip_plan::ClipPlan;
use crate::geometry::homography::Homography;
use crate::geometry::parallax::{Parallax, parallax_at};

/// A size or buffer that does not fit a canvas.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("canvas of {width}x{height} needs {expected} bytes of yuv420p, got {got}")]
pub struct CanvasSizeError {
    pub width: u32,
    pub height: u32,
    pub expected: usize,
    pub got: usize,
}

/// The cover-cropped picture, yuv420p, W×H (both even), as ffmpeg wrote it.
#[derive(Debug, Clone)]
pub struct Canvas {
    width: u32,
    height: u32,
    planes: [Plane; 3],
    /// The keystone path's buffers, kept from frame to frame.
    scratch: crate::draw::keystone::Scratch,
}

/// Bytes of one yuv420p frame.
pub fn frame_bytes(width: u32, height: u32) -> usize {
    let (w, h) = (width as usize, height as usize);
    w * h + 2 * (w / 2) * (h / 2)
}

impl Canvas {
    /// Reads a raw yuv420p frame (Y, then U, then V).
    pub fn from_yuv420p(width: u32, height: u32, bytes: &[u8]) -> Result<Self, CanvasSizeError> {
        let expected = frame_bytes(width, height);
        if width < 2 || height < 2 || width % 2 == 1 || height % 2 == 1 || bytes.len() != expected {
            return Err(CanvasSizeError {
                width,
                height,
                expected,
                got: bytes.len(),
            });
        }
        let (w, h) = (width as usize, height as usize);
        let (y, chroma) = bytes.split_at(w * h);
        let (u, v) = chroma.split_at((w / 2) * (h / 2));
        Ok(Canvas {
            width,
            height,
            planes: [
                Plane::padded(w, h, y),
                Plane::padded(w / 2, h / 2, u),
                Plane::padded(w / 2, h / 2, v),
            ],
            scratch: crate::draw::keystone::Scratch::default(),
        })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The Y, U and V planes (padded by a column and a row).
    pub(crate) fn planes(&self) -> &[Plane; 3] {
        &self.planes
    }

    /// The canvas's luminance at half its resolution: the guide that lines a depth map up with
    /// the picture's edges ([`crate::depth::edges`]).
    pub fn guide(&self) -> crate::depth::edges::Guide {
        let luma = &self.planes[0];
        crate::depth::edges::Guide::from_luma(luma.width, luma.height, luma.stride, &luma.data)
    }

    /// Draws the frame that shows `map` into `out` (yuv420p, the canvas's size), on `threads`
    /// threads (bands of rows).
    pub fn draw(&self, map: &Homography, out: &mut [u8], threads: usize) {
        self.draw_bent(map, None, out, threads);
    }

    /// Like [`Canvas::draw`], each read bent by depth ([`crate::geometry::parallax`]).
    pub fn draw_with_depth(
        &self,
        map: &Homography,
        depth: &DepthField,
        parallax: &Parallax,
        out: &mut [u8],
        threads: usize,
    ) {
        self.draw_bent(map, Some((depth, parallax)), out, threads);
    }

    fn draw_bent(
        &self,
        map: &Homography,
        depth: Option<(&DepthField, &Parallax)>,
        out: &mut [u8],
        threads: usize,
    ) {
        assert_eq!(
            out.len(),
            frame_bytes(self.width, self.height),
            "frame buffer size"
        );
        let (w, h) = (self.width as usize, self.height as usize);
        let (y_out, chroma) = out.split_at_mut(w * h);
        let (u_out, v_out) = chroma.split_at_mut((w / 2) * (h / 2));
        // Bands of chroma rows (luma rows are twice those), so every band holds whole rows of
        // all three planes.
        let chroma_rows = h / 2;
        let bands = threads.clamp(1, chroma_rows.max(1));
        let per_band = chroma_rows.div_ceil(bands);
        let mut y_rest = y_out;
        let mut u_rest = u_out;
        let mut v_rest = v_out;
        thread::scope(|scope| {
            let mut row = 0;
            while row < chroma_rows {
                let rows = per_band.min(chroma_rows - row);
                let (yb, yr) = std::mem::take(&mut y_rest).split_at_mut(2 * rows * w);
                let (ub, ur) = std::mem::take(&mut u_rest).split_at_mut(rows * (w / 2));
                let (vb, vr) = std::mem::take(&mut v_rest).split_at_mut(rows * (w / 2));
                (y_rest, u_rest, v_rest) = (yr, ur, vr);
                let first = row;
                let mut work = move || match depth {
                    Some((field, parallax)) => {
                        crate::draw::sampling::widest(crate::draw::bent::Band {
                            planes: &self.planes,
                            map,
                            field,
                            parallax,
                            first,
                            rows,
                            y_out: yb,
                            u_out: ub,
                            v_out: vb,
                        })
                    }
                    None => {
                        self.draw_plane(0, map, 2 * first, yb);
                        self.draw_plane(1, map, first, ub);
                        self.draw_plane(2, map, first, vb);
                    }
                };
                if row + rows >= chroma_rows {
                    work();
                } else {
                    scope.spawn(work);
                }
                row += rows;
            }
        });
    }

    /// Rows `first..` of plane `index` into `out` (whole rows), through the flat map.
    fn draw_plane(&self, index: usize, map: &Homography, first: usize, out: &mut [u8]) {
        let plane = &self.planes[index];
        let shift = u32::from(index > 0);
        if map.is_separable() {
            crate::draw::zoom::draw_zoom(plane, map, shift, first, out);
        } else if crate::draw::keystone::is_keystone(map) {
            crate::draw::keystone::draw_keystone(plane, map, shift, first, out, &self.scratch);
        } else {
            draw_projective(plane, map, shift, first, out);
        }
    }
}

/// Any map: per row, the homography per pixel, then a four-neighbour blend. Positions first
/// (a loop of plain arithmetic over the row), then the reads gathered and blended eight at a
/// time ([`crate::draw::taps`]), compiled for the widest instruction set
/// ([`crate::draw::sampling::widest`]): the same bytes as reading and blending pixel by pixel, at a
/// fraction of the time.
fn draw_projective(plane: &Plane, map: &Homography, shift: u32, first: usize, out: &mut [u8]) {
    crate::draw::sampling::widest(Projective {
        plane,
        map,
        shift,
        first,
        out,
    });
}

/// [`draw_projective`]'s rows as a unit of work for [`crate::draw::sampling::widest`].
struct Projective<'a> {
    plane: &'a Plane,
    map: &'a Homography,
    shift: u32,
    first: usize,
    out: &'a mut [u8],
}

impl pulp::NullaryFnOnce for Projective<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let Projective {
            plane,
            map,
            shift,
            first,
            out,
        } = self;
        let w = plane.width;
        let step = f64::from(1u32 << shift);
        let stride = u32::try_from(plane.stride).expect("a plane narrower than 4 G pixels");
        // `sampling::fixed`'s scale and clamp, for the whole fixed-point position.
        let scale = crate::draw::sampling::position_scale(shift);
        let (umax, vmax) = (
            ((w - 1) * SUB as usize) as f64,
            ((plane.height - 1) * SUB as usize) as f64,
        );
        let blender = Blender::new();
        #[cfg(target_arch = "x86_64")]
        let simd = crate::draw::cpu::v3();
        #[cfg(not(target_arch = "x86_64"))]
        let simd = None::<std::convert::Infallible>;
        let mut positions = vec![[0i32; 2]; w];
        let mut taps = Taps::new(w);
        for (k, out_row) in out.chunks_exact_mut(w).enumerate() {
            let y = ((first + k) << shift) as f64;
            let (nu0, nv0, den0) = (map.b * y + map.c, map.e * y + map.f, map.h * y + 1.0);
            let (du, dv, dd) = (map.a * step, map.d * step, map.g * step);
            let row = RowMap {
                start: [nu0, nv0, den0],
                step: [du, dv, dd],
                scale,
                max: [umax, vmax],
            };
            let done = row.positions_wide(simd, &mut positions);
            for (x, at) in positions.iter_mut().enumerate().skip(done) {
                *at = row.position(x as f64);
            }
            taps.gather(&plane.data, stride, &positions);
            taps.blend(blender, out_row);
        }
    }
}

/// One output row of a projective map: the numerators' and denominator's values at `x = 0`
/// and their steps per pixel, with `sampling::fixed`'s scale and clamp.
struct RowMap {
    start: [f64; 3],
    step: [f64; 3],
    scale: f64,
    max: [f64; 2],
}

impl RowMap {
    /// The fixed-point position (u, v) of pixel `x`, as `sampling::fixed` rounds it.
    #[inline(always)]
    fn position(&self, x: f64) -> [i32; 2] {
        let [nu0, nv0, den0] = self.start;
        let [du, dv, dd] = self.step;
        let inv = 1.0 / (den0 + dd * x);
        let u = ((nu0 + du * x) * inv * self.scale).clamp(0.0, self.max[0]);
        let v = ((nv0 + dv * x) * inv * self.scale).clamp(0.0, self.max[1]);
        [(u + 0.5) as i32, (v + 0.5) as i32]
    }

    /// [`RowMap::position`] four pixels per step with AVX (the same operations in the same
    /// order, so the same values; `max` before `min` sends NaN to 0 as `clamp` then `as`
    /// do, and the values are in range, so truncation is the cast). Returns how many
    /// leading positions it wrote. The saturating casts are what kept the compiler from
    /// vectorising the plain loop.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn positions_wide(&self, simd: Option<pulp::x86::V3>, out: &mut [[i32; 2]]) -> usize {
        let Some(simd) = simd else { return 0 };
        let (avx, sse2) = (simd.avx, simd.sse2);
        let splat = |value: f64| avx._mm256_set1_pd(value);
        let [nu0, nv0, den0] = self.start.map(splat);
        let [du, dv, dd] = self.step.map(splat);
        let (scale, half, zero, one) = (splat(self.scale), splat(0.5), splat(0.0), splat(1.0));
        let [umax, vmax] = self.max.map(splat);
        let n = out.len() / 4 * 4;
        for (k, four) in out[..n].chunks_exact_mut(4).enumerate() {
            let x0 = (4 * k) as f64;
            let x = avx._mm256_setr_pd(x0, x0 + 1.0, x0 + 2.0, x0 + 3.0);
            let inv = avx._mm256_div_pd(one, avx._mm256_add_pd(den0, avx._mm256_mul_pd(dd, x)));
            let fixed = |n0, d, max| {
                let at = avx._mm256_add_pd(n0, avx._mm256_mul_pd(d, x));
                let scaled = avx._mm256_mul_pd(avx._mm256_mul_pd(at, inv), scale);
                let clamped = avx._mm256_min_pd(avx._mm256_max_pd(scaled, zero), max);
                avx._mm256_cvttpd_epi32(avx._mm256_add_pd(clamped, half))
            };
            let (u, v) = (fixed(nu0, du, umax), fixed(nv0, dv, vmax));
            let pairs: [[i32; 2]; 4] =
                pulp::cast([sse2._mm_unpacklo_epi32(u, v), sse2._mm_unpackhi_epi32(u, v)]);
            four.copy_from_slice(&pairs);
        }
        n
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn positions_wide(&self, _: Option<std::convert::Infallible>, _: &mut [[i32; 2]]) -> usize {
        0
    }
}

/// Threads a frame is drawn on: the machine's cores, at most 4 (ffmpeg encodes beside them).
pub fn draw_threads() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// Writes the clip's frames, in order, drawn from `canvas` through `plan`'s window, to `out`
/// (ffmpeg's standard input). With a depth field on engine v25 the motions are the
/// depth-aware ones ([`crate::geometry::parallax`]); v24 keeps its flat moves either way.
pub fn write_frames(
    plan: &ClipPlan,
    canvas: &Canvas,
    depth: Option<&DepthField>,
    threads: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut frame = vec![0u8; frame_bytes(canvas.width, canvas.height)];
    for n in 0..plan.frames {
        draw_frame(plan, canvas, depth, n, threads, &mut frame);
        out.write_all(&frame)?;
    }
    out.flush()
}

/// Draws frame `n` of the clip into `out` (yuv420p, the canvas's size): one frame of
/// [`write_frames`], which the browser's preview draws alone.
pub fn draw_frame(
    plan: &ClipPlan,
    canvas: &Canvas,
    depth: Option<&DepthField>,
    n: u32,
    threads: usize,
    out: &mut [u8],
) {
    let map = Homography::from_corners(plan.window_at(n), plan.width, plan.height);
    match depth.filter(|_| plan.engine == Engine::V25) {
        Some(field) => canvas.draw_with_depth(&map, field, &parallax_at(plan, n), out, threads),
        None => canvas.draw(&map, out, threads),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A canvas whose luma is a ramp in x and y (so positions can be read back from values).
    fn ramp(width: u32, height: u32) -> (Canvas, Vec<u8>) {
        let (w, h) = (width as usize, height as usize);
        let mut bytes = vec![0u8; frame_bytes(width, height)];
        for y in 0..h {
            for x in 0..w {
                bytes[y * w + x] = ((x * 3 + y * 5) % 256) as u8;
            }
        }
        for (i, b) in bytes[w * h..].iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        (
            Canvas::from_yuv420p(width, height, &bytes).expect("canvas"),
            bytes,
        )
    }

    #[test]
    fn the_whole_canvas_as_window_draws_the_canvas_itself() {
        let (canvas, bytes) = ramp(64, 36);
        let corners = [(0.0, 0.0), (64.0, 0.0), (0.0, 36.0), (64.0, 36.0)];
        let mut out = vec![0u8; bytes.len()];
        for threads in [1, 2, 3] {
            canvas.draw(
                &Homography::from_corners(corners, 64, 36),
                &mut out,
                threads,
            );
            assert_eq!(out, bytes, "{threads} threads");
        }
    }

    #[test]
    fn a_half_pixel_shift_blends_neighbours() {
        let (canvas, bytes) = ramp(64, 36);
        let corners = [(0.5, 0.0), (64.5, 0.0), (0.5, 36.0), (64.5, 36.0)];
        let mut out = vec![0u8; bytes.len()];
        canvas.draw(&Homography::from_corners(corners, 64, 36), &mut out, 2);
        // Luma row 3, x = 10: halfway between the ramp's values at x = 10 and 11.
        let (a, b) = (u32::from(bytes[3 * 64 + 10]), u32::from(bytes[3 * 64 + 11]));
        assert_eq!(u32::from(out[3 * 64 + 10]), (a + b).div_ceil(2));
        // The last column reads past the edge: the edge repeats.
        assert_eq!(out[3 * 64 + 63], bytes[3 * 64 + 63]);
    }

    #[test]
    fn separable_and_projective_paths_draw_the_same_zoom() {
        let (canvas, bytes) = ramp(128, 72);
        let corners = [(7.3, 4.1), (120.9, 4.1), (7.3, 67.7), (120.9, 67.7)];
        let map = Homography::from_corners(corners, 128, 72);
        assert!(map.is_separable());
        let mut fast = vec![0u8; bytes.len()];
        canvas.draw(&map, &mut fast, 2);
        // The same map, forced through the general path (one rounding, 1/256 weights): the
        // zoom's two roundings and 1/64 horizontal weights differ by a few levels at most.
        let mut slow = vec![0u8; bytes.len()];
        let (y, rest) = slow.split_at_mut(128 * 72);
        let (u, v) = rest.split_at_mut(64 * 36);
        draw_projective(&canvas.planes[0], &map, 0, 0, y);
        draw_projective(&canvas.planes[1], &map, 1, 0, u);
        draw_projective(&canvas.planes[2], &map, 1, 0, v);
        let diffs: Vec<i32> = fast
            .iter()
            .zip(&slow)
            .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
            .collect();
        let worst = diffs.iter().copied().max().unwrap_or(0);
        let mean = f64::from(diffs.iter().sum::<i32>()) / diffs.len() as f64;
        assert!(worst <= 3, "worst difference {worst}");
        assert!(mean < 0.5, "mean difference {mean}");
    }

    /// One pixel at a time, as `draw_projective` read before it gathered and blended rows:
    /// the homography, `sampling::fixed`, a four-neighbour `sampling::blend`.
    fn projective_pixel(plane: &Plane, map: &Homography, shift: u32, x: usize, y: usize) -> u8 {
        use crate::draw::sampling::{blend, fixed};
        let (xf, yf) = ((x << shift) as f64, (y << shift) as f64);
        let den = map.h * yf + 1.0 + map.g * xf;
        let inv = 1.0 / den;
        let (ui, fu) = fixed(
            (map.b * yf + map.c + map.a * xf) * inv,
            shift,
            plane.width - 1,
        );
        let (vi, fv) = fixed(
            (map.e * yf + map.f + map.d * xf) * inv,
            shift,
            plane.height - 1,
        );
        let i = vi * plane.stride + ui;
        let d = &plane.data;
        blend(
            i32::from(d[i]),
            i32::from(d[i + 1]),
            i32::from(d[i + plane.stride]),
            i32::from(d[i + plane.stride + 1]),
            fu,
            fv,
        )
    }

    #[test]
    fn projective_rows_are_the_pixel_by_pixel_reads() {
        // 126 wide: rows (126, chroma 63) that are not whole blocks of four or eight.
        for (width, height) in [(128, 72), (126, 70)] {
            let (canvas, _) = ramp(width, height);
            // An orbit-like window (not axis-aligned), one reaching past the canvas (clamped).
            for corners in [
                [(10.0, 3.0), (118.5, 6.0), (7.0, 70.0), (121.0, 66.5)],
                [(-5.0, -2.0), (130.0, 1.0), (-3.0, 75.0), (133.0, 71.0)],
            ] {
                let map = Homography::from_corners(corners, width, height);
                assert!(!map.is_separable());
                for (index, shift) in [(0, 0), (1, 1), (2, 1)] {
                    let plane = &canvas.planes[index];
                    let mut rows = vec![0u8; plane.width * 10];
                    draw_projective(plane, &map, shift, 5, &mut rows);
                    for (k, row) in rows.chunks_exact(plane.width).enumerate() {
                        for (x, &got) in row.iter().enumerate() {
                            let want = projective_pixel(plane, &map, shift, x, 5 + k);
                            assert_eq!(
                                got,
                                want,
                                "{width}x{height} plane {index} ({x}, {})",
                                5 + k
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn keystone_and_projective_paths_draw_the_same_orbits() {
        use crate::draw::keystone::{Scratch, draw_keystone, is_keystone};
        use crate::geometry::clip_plan::{ClipPlan, Motion};
        use stillreel_core::{Orientation, Resolution};
        let scratch = Scratch::default();
        let compare = |canvas: &Canvas, map: &Homography, what: &str| {
            assert!(is_keystone(map), "{what}: {map:?}");
            assert!(!map.is_separable(), "{what}");
            for (index, shift) in [(0, 0), (1, 1), (2, 1)] {
                let plane = &canvas.planes[index];
                // The whole plane, and a band in the middle (a thread's share).
                for (first, rows) in [(0, plane.height), (plane.height / 3, 17)] {
                    let mut fast = vec![0u8; plane.width * rows];
                    let mut slow = fast.clone();
                    draw_keystone(plane, map, shift, first, &mut fast, &scratch);
                    draw_projective(plane, map, shift, first, &mut slow);
                    // Two roundings and 1/64 weights across, as the zoom's: a few levels at
                    // most at the ramp's hard edges, well under one on average.
                    let diffs: Vec<i32> = (fast.iter().zip(&slow))
                        .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
                        .collect();
                    let worst = diffs.iter().copied().max().unwrap_or(0);
                    let mean = f64::from(diffs.iter().sum::<i32>()) / diffs.len() as f64;
                    let band = format!("{what}: plane {index}, rows {first}+{rows}");
                    assert!(worst <= 3, "{band}: worst difference {worst}");
                    assert!(mean < 0.5, "{band}: mean difference {mean}");
                }
            }
        };
        // Every orbit the plans draw, at their frame sizes.
        for orientation in [Orientation::Landscape, Orientation::Portrait] {
            for engine in [Engine::V24, Engine::V25] {
                let plan = ClipPlan::new(orientation, Resolution::P720, engine, Motion::OrbitLeft);
                let (canvas, _) = ramp(plan.width, plan.height);
                for motion in [Motion::OrbitLeft, Motion::OrbitRight] {
                    let plan = ClipPlan::new(orientation, Resolution::P720, engine, motion);
                    for n in [0, 1, 40, 75, 149] {
                        let map =
                            Homography::from_corners(plan.window_at(n), plan.width, plan.height);
                        compare(
                            &canvas,
                            &map,
                            &format!("{orientation:?} {engine:?} {motion:?} {n}"),
                        );
                    }
                }
            }
        }
        // A keystone reaching past the canvas (clamped reads), odd chroma widths.
        for (width, height) in [(128, 72), (126, 70)] {
            let (canvas, _) = ramp(width, height);
            let corners = [(-5.0, -3.0), (131.0, 2.5), (-5.0, 75.0), (131.0, 69.5)];
            let map = Homography::from_corners(corners, width, height);
            compare(&canvas, &map, &format!("{width}x{height} past the edges"));
        }
    }

    #[test]
    fn a_buffer_of_the_wrong_size_is_refused() {
        assert!(Canvas::from_yuv420p(64, 36, &[0; 10]).is_err());
        assert!(Canvas::from_yuv420p(63, 36, &vec![0; frame_bytes(63, 36)]).is_err());
    }
}
