//! Frames bent by depth ([`crate::parallax`]), drawn a band of rows at a time.
//!
//! The flat point of each luma pixel comes from the window's map (per-column and per-row
//! tables when the map is axis-aligned, as a push is; an incremental homography otherwise),
//! then the nearness found there bends it through per-frame tables that fold the parallax's
//! scale, shift and the sub-pixel factor into one multiply-add per axis. Positions are
//! computed once per luma pixel, in fixed point, and the chroma planes reuse the position of
//! every other pixel of every other row (what the chroma sample at (x, y) shows is the luma
//! position at (2x, 2y), halved): the bend is worked out once for all three planes.

use crate::depth::DepthField;
use crate::homography::Homography;
use crate::parallax::Parallax;
use crate::sampling::{Plane, SUB, SUB_BITS, blend};

/// The bend of one frame as tables over nearness: a luma pixel whose flat point is
/// `(uf, vf)` at nearness `d` reads fixed-point position
/// `(u0[d] + uf·s[d], v0[d] + vf·s[d])` (1/[`SUB`] px).
struct Tables {
    u0: [f64; 256],
    v0: [f64; 256],
    s: [f64; 256],
}

impl Tables {
    fn new(parallax: &Parallax) -> Self {
        let k = f64::from(SUB);
        Tables {
            u0: std::array::from_fn(|d| {
                (parallax.ox * (1.0 - parallax.scale[d]) + parallax.shift[d]) * k + 0.5
            }),
            v0: std::array::from_fn(|d| parallax.oy * (1.0 - parallax.scale[d]) * k + 0.5),
            s: std::array::from_fn(|d| parallax.scale[d] * k),
        }
    }
}

/// Draws chroma rows `first..first + rows` (and the luma rows twice those) of a frame whose
/// reads are bent by `field` through `parallax`, into the band's slices of the three planes.
#[allow(clippy::too_many_arguments)]
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
    let tables = Tables::new(parallax);
    // Positions are clamped inside the plane (the far edge is padded, so a read at the last
    // pixel needs no branch).
    let (umax, vmax) = (((w - 1) as i32) << SUB_BITS, ((h - 1) as i32) << SUB_BITS);
    let separable = map.is_separable();
    let columns: Vec<f64> = if separable {
        (0..w).map(|x| map.a * x as f64 + map.c).collect()
    } else {
        Vec::new()
    };
    let depth_columns: Vec<usize> = columns
        .iter()
        .map(|&u| ((u * 0.5) as usize).min(field.width - 1))
        .collect();
    let mut pos: Vec<(i32, i32)> = vec![(0, 0); w];
    for r in 0..rows {
        for half in 0..2 {
            let y = 2 * (first + r) + half;
            let yf = y as f64;
            if separable {
                let vf = map.e * yf + map.f;
                let depth_row =
                    &field.near[((vf * 0.5) as usize).min(field.height - 1) * field.width..];
                for ((p, &uf), &dx) in pos.iter_mut().zip(&columns).zip(&depth_columns) {
                    let d = usize::from(depth_row[dx]);
                    *p = place(&tables, d, uf, vf, umax, vmax);
                }
            } else {
                let (nu0, nv0, den0) = (map.b * yf + map.c, map.e * yf + map.f, map.h * yf + 1.0);
                for (x, p) in pos.iter_mut().enumerate() {
                    let xf = x as f64;
                    let inv = 1.0 / (den0 + map.g * xf);
                    let (uf, vf) = ((nu0 + map.a * xf) * inv, (nv0 + map.d * xf) * inv);
                    let d = usize::from(field.at(uf, vf));
                    *p = place(&tables, d, uf, vf, umax, vmax);
                }
            }
            let row = &mut y_out[(2 * r + half) * w..][..w];
            read_row(luma, &pos, 0, row);
            if half == 0 {
                read_row(&planes[1], &pos, 1, &mut u_out[r * cw..][..cw]);
                read_row(&planes[2], &pos, 1, &mut v_out[r * cw..][..cw]);
            }
        }
    }
}

/// The fixed-point luma position read for flat point `(uf, vf)` at nearness `d`.
#[inline]
fn place(t: &Tables, d: usize, uf: f64, vf: f64, umax: i32, vmax: i32) -> (i32, i32) {
    let u = (t.u0[d] + uf * t.s[d]) as i32;
    let v = (t.v0[d] + vf * t.s[d]) as i32;
    (u.clamp(0, umax), v.clamp(0, vmax))
}

/// One output row of `plane` from luma positions: every pixel's (`step` 0), or for a chroma
/// plane (`step` 1) every other pixel's, halved.
fn read_row(plane: &Plane, pos: &[(i32, i32)], step: u32, out: &mut [u8]) {
    let d = &plane.data;
    let stride = plane.stride;
    for (o, &(u, v)) in out.iter_mut().zip(pos.iter().step_by(1 << step)) {
        let (u, v) = (u >> step, v >> step);
        let (ui, fu) = ((u >> SUB_BITS) as usize, u & (SUB - 1));
        let (vi, fv) = ((v >> SUB_BITS) as usize, v & (SUB - 1));
        let i = vi * stride + ui;
        *o = blend(
            i32::from(d[i]),
            i32::from(d[i + 1]),
            i32::from(d[i + stride]),
            i32::from(d[i + stride + 1]),
            fu,
            fv,
        );
    }
}
