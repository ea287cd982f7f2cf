//! Frames bent by depth ([`crate::geometry::parallax`]), drawn a band of rows at a time.
//!
//! The flat point of each luma pixel comes from the window's map (per-column and per-row
//! tables when the map is axis-aligned, as a push is; an incremental homography otherwise),
//! then the nearness found there bends it through per-frame tables that fold the parallax's
//! scale, shift and the sub-pixel factor into one multiply-add per axis. Positions are
//! computed once per luma pixel, in fixed point, and the chroma planes reuse the position of
//! every other pixel of every other row (what the chroma sample at (x, y) shows is the luma
//! position at (2x, 2y), halved): the bend is worked out once for all three planes. On a
//! push the nearness, u and horizontal weight per column are kept while the rows read the same
//! row of the (half-resolution) depth field. Each row's reads are gathered, then blended eight
//! pixels at a time ([`crate::draw::taps`]).

use crate::depth::DepthField;
use crate::draw::bent_orbit::OrbitBend;
use crate::draw::flat_points::RowPoints;
use crate::draw::sampling::{Plane, SUB, SUB_BITS};
use crate::draw::taps::{Blender, ChromaRows, Taps, gather_chroma, pairs};
use crate::geometry::homography::Homography;
use crate::geometry::parallax::Parallax;

/// Fractional bits of the tables' scale ([`Tables::s`]).
const SCALE_BITS: u32 = 16;

/// The bend of one frame as integer tables over nearness: a luma pixel whose flat point is
/// `(uf, vf)` (in 1/[`SUB`] px) at nearness `d` reads the fixed-point position
/// `(u0[d] + uf·s[d] >> 16, v0[d] + vf·s[d] >> 16)`. Integers throughout: a float to integer
/// conversion per coordinate (saturating in Rust, several instructions) cost more than the
/// multiply; the rounding differs from the exact bend by at most 1/128 px.
struct Tables {
    u0: [i32; 256],
    v0: [i32; 256],
    s: [i64; 256],
}

impl Tables {
    fn new(parallax: &Parallax) -> Self {
        let k = f64::from(SUB);
        let one = f64::from(1u32 << SCALE_BITS);
        Tables {
            u0: std::array::from_fn(|d| {
                ((parallax.ox * (1.0 - parallax.scale[d]) + parallax.shift[d]) * k + 0.5).floor()
                    as i32
            }),
            v0: std::array::from_fn(|d| {
                (parallax.oy * (1.0 - parallax.scale[d]) * k + 0.5).floor() as i32
            }),
            s: std::array::from_fn(|d| (parallax.scale[d] * one).round() as i64),
        }
    }

    /// The orbit's own path through `map` for a band of `width`-pixel rows, when the map and
    /// these tables allow it ([`OrbitBend::new`]).
    #[inline(always)]
    fn orbit(
        &self,
        map: &Homography,
        field: &DepthField,
        width: usize,
        limits: [i32; 2],
        simd: crate::draw::flat_points::Simd,
    ) -> Option<OrbitBend> {
        let tables = (&self.s, SCALE_BITS, &self.u0, &self.v0);
        OrbitBend::new(map, tables, field, width, limits, simd)
    }

    /// One row's luma positions from its flat points and depth field cells
    /// ([`RowPoints::fill`]): per pixel the nearness there and the bend, clamped to
    /// `[0, limits]`.
    #[inline(always)]
    fn bend(
        &self,
        field: &DepthField,
        flats: &[[i32; 2]],
        cells: &[u32],
        [umax, vmax]: [i32; 2],
        positions: &mut [[i32; 2]],
    ) {
        for ((at, &[flat_u, flat_v]), &cell) in positions.iter_mut().zip(flats).zip(cells) {
            let d = usize::from(field.near[cell as usize]);
            *at = [
                self.coordinate(&self.u0, d, i64::from(flat_u))
                    .clamp(0, umax),
                self.coordinate(&self.v0, d, i64::from(flat_v))
                    .clamp(0, vmax),
            ];
        }
    }

    /// One coordinate: `base[d] + flat·s[d]`, flat in 1/[`SUB`] px.
    #[inline(always)]
    fn coordinate(&self, base: &[i32; 256], d: usize, flat: i64) -> i32 {
        base[d] + ((flat * self.s[d]) >> SCALE_BITS) as i32
    }
}

/// A flat coordinate in 1/[`SUB`] px.
#[inline(always)]
fn fixed(value: f64) -> i64 {
    (value * f64::from(SUB)).round() as i64
}

/// One band of a bent frame as a unit of work for [`crate::draw::sampling::widest`]: chroma rows
/// `first..first + rows` (and the luma rows twice those) into the band's slices of the three
/// planes.
pub(crate) struct Band<'a> {
    pub(crate) planes: &'a [Plane; 3],
    pub(crate) map: &'a Homography,
    pub(crate) field: &'a DepthField,
    pub(crate) parallax: &'a Parallax,
    pub(crate) first: usize,
    pub(crate) rows: usize,
    pub(crate) y_out: &'a mut [u8],
    pub(crate) u_out: &'a mut [u8],
    pub(crate) v_out: &'a mut [u8],
}

impl pulp::NullaryFnOnce for Band<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        draw_band(
            self.planes,
            self.map,
            self.field,
            self.parallax,
            self.first,
            self.rows,
            self.y_out,
            self.u_out,
            self.v_out,
        );
    }
}

/// Draws chroma rows `first..first + rows` (and the luma rows twice those) of a frame whose
/// reads are bent by `field` through `parallax`, into the band's slices of the three planes.
///
/// Per output row, three steps: the position of every pixel (path-specific), the gather of
/// its four neighbours and weights into [`Taps`] (scalar: one load per neighbour pair), and
/// the blends ([`Taps::blend`], eight pixels per step with AVX2 under
/// [`crate::draw::sampling::widest`]). A blend done pixel by pixel beside its gather was three
/// quarters of the frame's time.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn draw_band(
    planes: &[Plane; 3],
    map: &Homography,
    field: &DepthField,
    parallax: &Parallax,
    first: usize,
    rows: usize,
    y_out: &mut [u8],
    u_out: &mut [u8],
    v_out: &mut [u8],
) {
    let luma = &planes[0];
    let (w, h) = (luma.width, luma.height);
    let cw = planes[1].width;
    let chroma_stride = u32::try_from(planes[1].stride).expect("a plane narrower than 4 G pixels");
    let tables = Tables::new(parallax);
    let blender = Blender::new();
    let simd = crate::draw::flat_points::simd();
    // Positions are clamped inside the plane (the far edge is padded, so a read at the last
    // pixel needs no branch).
    let limits = [((w - 1) as i32) << SUB_BITS, ((h - 1) as i32) << SUB_BITS];
    let [umax, vmax] = limits;
    let separable = map.is_separable();
    let stride = u32::try_from(luma.stride).expect("a plane narrower than 4 G pixels");
    // Per column (axis-aligned maps): the flat u, fixed, and the depth field's column.
    let columns: Vec<(i64, u32)> = if separable {
        (0..w)
            .map(|x| {
                let u = map.a * x as f64 + map.c;
                (fixed(u), ((u * 0.5) as usize).min(field.width - 1) as u32)
            })
            .collect()
    } else {
        Vec::new()
    };
    // A keystone map (the orbit's) bent by a parallax of one scale: its own path
    // ([`crate::draw::bent_orbit`]).
    let mut orbit = if separable {
        None
    } else {
        tables.orbit(map, field, w, limits, simd)
    };
    // The projective path's luma positions of the row (u, v; kept for the chroma planes, which
    // read every other one); the separable path's u and nearness per column, and the depth
    // field row they were found for (its v comes from per-row tables).
    let projective_width = if separable { 0 } else { w };
    let mut positions = vec![[0i32; 2]; projective_width];
    // The general projective path's flat points (fixed) and depth field cells.
    let general_width = if orbit.is_some() { 0 } else { projective_width };
    let mut flats = vec![[0i32; 2]; general_width];
    let mut cells = vec![0u32; general_width];
    let mut us = vec![0i32; w];
    let mut nears = vec![0u8; w];
    let mut last_depth_row = usize::MAX;
    let mut taps = Taps::new(w);
    let [mut u_taps, mut v_taps] = [Taps::new(cw), Taps::new(cw)];
    let chroma_data = [&planes[1].data[..], &planes[2].data[..]];
    for r in 0..rows {
        for half in 0..2 {
            let y = 2 * (first + r) + half;
            let yf = y as f64;
            if separable {
                let vf = map.e * yf + map.f;
                let depth_index = ((vf * 0.5) as usize).min(field.height - 1);
                // v depends on the row and the nearness only: 256 values per row, not w, and
                // with them the offset of the canvas row each nearness reads.
                let flat_v = fixed(vf);
                let mut row_v = [0i32; 256];
                let mut row_at = [0u32; 256];
                for (d, (v, at)) in row_v.iter_mut().zip(row_at.iter_mut()).enumerate() {
                    *v = tables.coordinate(&tables.v0, d, flat_v).clamp(0, vmax);
                    *at = (*v >> SUB_BITS) as u32 * stride;
                }
                if depth_index != last_depth_row {
                    // A new row of the depth field: the nearness, u and horizontal weight per
                    // column. The rows after it that read the same depth row (a depth cell
                    // is two canvas rows, at least two output rows) keep them: only v differs.
                    let depth_row = &field.near[depth_index * field.width..][..field.width];
                    let cells = (taps.cells.iter_mut())
                        .zip(us.iter_mut())
                        .zip(nears.iter_mut())
                        .zip(&columns);
                    for (((cell, u_at), near), &(flat_u, dx)) in cells {
                        *near = depth_row[dx as usize];
                        let u = tables.coordinate(&tables.u0, usize::from(*near), flat_u);
                        *u_at = u.clamp(0, umax);
                        cell[2] = (*u_at & (SUB - 1)) as u16;
                    }
                    last_depth_row = depth_index;
                }
                let data = &luma.data[..];
                let cells = (taps.cells.iter_mut()).zip(&us).zip(&nears);
                for ((cell, &u), &d) in cells {
                    let i = row_at[usize::from(d)] + (u >> SUB_BITS) as u32;
                    (cell[0], cell[1]) = pairs(data, i, stride);
                    cell[3] = (row_v[usize::from(d)] & (SUB - 1)) as u16;
                }
                if half == 0 {
                    // The chroma rows' tables from the same v, halved.
                    let mut chroma_at = [0u32; 256];
                    let mut chroma_fv = [0u16; 256];
                    for ((at, fv), &v) in chroma_at.iter_mut().zip(chroma_fv.iter_mut()).zip(&row_v)
                    {
                        *at = (v >> (SUB_BITS + 1)) as u32 * chroma_stride;
                        *fv = ((v >> 1) & (SUB - 1)) as u16;
                    }
                    let rows = ChromaRows {
                        at: &chroma_at,
                        fv: &chroma_fv,
                    };
                    rows.gather(
                        chroma_data,
                        chroma_stride,
                        &us,
                        &nears,
                        [&mut u_taps, &mut v_taps],
                    );
                }
            } else {
                if let Some(orbit) = &mut orbit {
                    let start = map.e * yf + map.f;
                    let (near, data) = (&field.near[..], &luma.data[..]);
                    // The chroma planes reuse the positions of the even rows.
                    let keep = (half == 0).then_some(&mut positions[..]);
                    orbit.row(simd, start, map.d, near, data, stride, &mut taps, keep);
                } else {
                    // First the flat points, fixed, with the depth field's cell (four pixels per
                    // step with AVX: `flat_points`); then per pixel the nearness there and the
                    // bend; then the reads.
                    RowPoints::of_row(map, yf, field).fill(simd, &mut flats, &mut cells);
                    tables.bend(field, &flats, &cells, limits, &mut positions);
                    taps.gather(&luma.data, stride, &positions);
                }
                if half == 0 {
                    // Both chroma planes have the same size: one offset, two gathers.
                    gather_chroma(
                        chroma_data,
                        chroma_stride,
                        &positions,
                        [&mut u_taps, &mut v_taps],
                    );
                }
            }
            taps.blend(blender, &mut y_out[(2 * r + half) * w..][..w]);
            if half == 0 {
                u_taps.blend(blender, &mut u_out[r * cw..][..cw]);
                v_taps.blend(blender, &mut v_out[r * cw..][..cw]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use stillreel_core::Engine;

    use crate::depth::DepthField;
    use crate::draw::warp::{Canvas, frame_bytes};
    use crate::geometry::clip_plan::{ClipPlan, Motion, Pace};
    use crate::geometry::homography::Homography;
    use crate::geometry::parallax::parallax_at;

    const W: u32 = 96;
    const H: u32 = 64;

    /// A canvas with detail in both directions (so a wrong position shows in the value) and no
    /// jump larger than 16 levels between neighbours (a 1/128 px error stays under a level).
    fn canvas() -> (Canvas, Vec<u8>) {
        let (w, h) = (W as usize, H as usize);
        let mut bytes = vec![0u8; frame_bytes(W, H)];
        for y in 0..h {
            for x in 0..w {
                bytes[y * w + x] = (x + 2 * y + (x * y) % 13) as u8;
            }
        }
        for (i, b) in bytes[w * h..].iter_mut().enumerate() {
            *b = ((i * 5) % 251) as u8;
        }
        (Canvas::from_yuv420p(W, H, &bytes).expect("canvas"), bytes)
    }

    /// Near on the left third, far elsewhere, a ramp on the bottom rows: a step edge and a
    /// gradient.
    fn field() -> DepthField {
        let (w, h) = ((W / 2) as usize, (H / 2) as usize);
        let near = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                if y > h * 3 / 4 {
                    (x * 255 / w) as u8
                } else if x < w / 3 {
                    230
                } else {
                    20
                }
            })
            .collect();
        DepthField {
            width: w,
            height: h,
            near,
        }
    }

    /// The luma value at `(x, y)` read straight from the definition: the map's flat point,
    /// the bend at the nearness there ([`crate::geometry::parallax::Parallax::bend`]), a bilinear read.
    fn expected(
        bytes: &[u8],
        map: &Homography,
        field: &DepthField,
        plan: &ClipPlan,
        n: u32,
        x: usize,
        y: usize,
    ) -> f64 {
        let (xf, yf) = (x as f64, y as f64);
        let den = map.g * xf + map.h * yf + 1.0;
        let uf = (map.a * xf + map.b * yf + map.c) / den;
        let vf = (map.d * xf + map.e * yf + map.f) / den;
        let (u, v) = parallax_at(plan, n).bend(uf, vf, field.at(uf, vf));
        let (w, h) = (W as usize, H as usize);
        let (u, v) = (u.clamp(0.0, (w - 1) as f64), v.clamp(0.0, (h - 1) as f64));
        let (ui, vi) = (u.floor() as usize, v.floor() as usize);
        let (fu, fv) = (u - ui as f64, v - vi as f64);
        let at = |x: usize, y: usize| f64::from(bytes[y.min(h - 1) * w + x.min(w - 1)]);
        let top = at(ui, vi) * (1.0 - fu) + at(ui + 1, vi) * fu;
        let bottom = at(ui, vi + 1) * (1.0 - fu) + at(ui + 1, vi + 1) * fu;
        top * (1.0 - fv) + bottom * fv
    }

    /// A 5 s engine v25 plan of `w × h` frames.
    fn plan(w: u32, h: u32, motion: Motion) -> ClipPlan {
        ClipPlan {
            width: w,
            height: h,
            fps: 30,
            frames: 150,
            engine: Engine::V25,
            motion,
            pace: Pace::Engine,
        }
    }

    /// A luma plane of `w × h` with its padding, every byte different from its neighbours.
    fn luma_plane(w: usize, h: usize) -> Vec<u8> {
        (0..w * h + w + 2).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// The orbit's own path ([`crate::draw::bent_orbit`]) finds the positions of the general path
    /// (the same u; v at most 1/256 px apart) and reads there, on both orbits, over a landscape
    /// and a portrait frame, for every row, at the start, middle and end; a dolly (a scale per
    /// nearness) does not take it.
    #[test]
    fn the_orbit_path_reads_what_the_projective_path_reads() {
        use super::{RowPoints, Tables};
        use crate::draw::taps::Taps;
        let field = field();
        let simd = crate::draw::flat_points::simd();
        for (w, h) in [(96u32, 64u32), (64, 96)] {
            let (wu, hu) = (w as usize, h as usize);
            let canvas = luma_plane(wu, hu);
            let limits = [((wu - 1) as i32) << 8, ((hu - 1) as i32) << 8];
            for motion in [Motion::OrbitLeft, Motion::OrbitRight, Motion::PushIn] {
                let plan = plan(w, h, motion);
                for n in [0, 1, 75, 149] {
                    let map = Homography::from_corners(plan.window_at(n), w, h);
                    let tables = Tables::new(&parallax_at(&plan, n));
                    let orbit = tables.orbit(&map, &field, wu, limits, simd);
                    if motion == Motion::PushIn {
                        // One scale only where the dolly has not started.
                        assert_eq!(orbit.is_some(), n == 0, "frame {n}");
                        continue;
                    }
                    let mut orbit = orbit.expect("an orbit's parallax has one scale");
                    let (mut flats, mut cells) = (vec![[0i32; 2]; wu], vec![0u32; wu]);
                    let (mut want, mut got) = (vec![[0i32; 2]; wu], vec![[0i32; 2]; wu]);
                    let (mut want_taps, mut got_taps) = (Taps::new(wu), Taps::new(wu));
                    for y in 0..hu {
                        let yf = y as f64;
                        RowPoints::of_row(&map, yf, &field).fill(simd, &mut flats, &mut cells);
                        tables.bend(&field, &flats, &cells, limits, &mut want);
                        let start = map.e * yf + map.f;
                        let (near, got_at) = (&field.near[..], Some(&mut got[..]));
                        orbit.row(simd, start, map.d, near, &canvas, w, &mut got_taps, got_at);
                        let what = format!("{w}x{h} {motion:?} frame {n} row {y}");
                        // The same nearness and u; v rounded once instead of twice.
                        for (x, (g, e)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                g[0] == e[0] && (g[1] - e[1]).abs() <= 1,
                                "{what} x {x}: {g:?} {e:?}"
                            );
                        }
                        // The reads are those at its positions.
                        want_taps.gather(&canvas, w, &got);
                        assert_eq!(got_taps.cells, want_taps.cells, "{what}");
                    }
                }
            }
        }
    }

    /// Where a band could read past the canvas's sides (here a table shifted half a frame
    /// either way), the orbit's path clamps `u` as the general path does; without positions
    /// it gathers the same reads.
    #[test]
    fn the_orbit_path_clamps_reads_past_the_sides() {
        use super::{OrbitBend, SCALE_BITS, Tables};
        use crate::draw::taps::Taps;
        let field = field();
        let simd = crate::draw::flat_points::simd();
        let (w, h) = (W as usize, H as usize);
        let canvas = luma_plane(w, h);
        let limits = [((w - 1) as i32) << 8, ((h - 1) as i32) << 8];
        let plan = plan(W, H, Motion::OrbitLeft);
        let map = Homography::from_corners(plan.window_at(120), W, H);
        let tables = Tables::new(&parallax_at(&plan, 120));
        for shift in [-limits[0] / 2, limits[0] / 2] {
            let u0 = tables.u0.map(|u| u + shift);
            let shifted = (&tables.s, SCALE_BITS, &u0, &tables.v0);
            let mut orbit =
                OrbitBend::new(&map, shifted, &field, w, limits, simd).expect("an orbit");
            let mut positions = vec![[0i32; 2]; w];
            let (mut taps, mut bare, mut want) = (Taps::new(w), Taps::new(w), Taps::new(w));
            for y in [0, h / 2, h - 1] {
                let start = map.e * y as f64 + map.f;
                let near = &field.near[..];
                let keep = Some(&mut positions[..]);
                orbit.row(simd, start, map.d, near, &canvas, W, &mut taps, keep);
                orbit.row(simd, start, map.d, near, &canvas, W, &mut bare, None);
                assert!(positions.iter().all(|p| (0..=limits[0]).contains(&p[0])));
                let edge = if shift < 0 { 0 } else { limits[0] };
                assert!(
                    positions.iter().any(|p| p[0] == edge),
                    "shift {shift} row {y}"
                );
                want.gather(&canvas, W, &positions);
                assert_eq!(taps.cells, want.cells, "shift {shift} row {y}");
                assert_eq!(bare.cells, want.cells, "shift {shift} row {y}");
            }
        }
    }

    #[test]
    fn every_luma_pixel_reads_where_the_bend_says() {
        let (canvas, bytes) = canvas();
        let field = field();
        for motion in [Motion::PushIn, Motion::PushOut, Motion::OrbitLeft] {
            let plan = plan(W, H, motion);
            for n in [0, 40, 149] {
                let map = Homography::from_corners(plan.window_at(n), W, H);
                let mut out = vec![0u8; frame_bytes(W, H)];
                for threads in [1, 3] {
                    canvas.draw_with_depth(&map, &field, &parallax_at(&plan, n), &mut out, threads);
                    for y in 0..H as usize {
                        for x in 0..W as usize {
                            let want = expected(&bytes, &map, &field, &plan, n, x, y);
                            let got = f64::from(out[y * W as usize + x]);
                            // Positions in 1/256 px and integer rounding: within 2 levels.
                            assert!(
                                (got - want).abs() <= 2.0,
                                "{motion:?} frame {n} ({x}, {y}) {threads} threads: {got} want {want:.2}"
                            );
                        }
                    }
                }
            }
        }
    }
}
