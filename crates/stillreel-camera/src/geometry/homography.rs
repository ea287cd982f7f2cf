//! The map from an output frame's pixels to the canvas points its window shows: a homography
//! built from the window's four corners ([`crate::geometry::clip_plan::ClipPlan::window_at`]), evaluated per
//! pixel by the `warp` and `parallax` modules.

/// A projective map from output pixels to canvas points:
/// `u = (a·x + b·y + c) / (g·x + h·y + 1)`, `v = (d·x + e·y + f) / (g·x + h·y + 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub e: f64,
    pub f: f64,
    pub g: f64,
    pub h: f64,
}

impl Homography {
    /// The map that sends the output frame's corners (0,0), (W,0), (0,H), (W,H) to `corners`
    /// (top-left, top-right, bottom-left, bottom-right, in canvas pixels): the unit square to
    /// a quadrilateral (Heckbert's construction), then scaled by the frame size.
    pub fn from_corners(corners: [(f64, f64); 4], width: u32, height: u32) -> Self {
        let [(x0, y0), (x1, y1), (x3, y3), (x2, y2)] = corners;
        // Corners in cyclic order: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left.
        // Summed side by side (left side, then right): a window whose sides are vertical
        // gets `sx` = 0 exactly, so `b` and `h` are exact zeros (`keystone::is_keystone`).
        let sx = (x0 - x3) + (x2 - x1);
        let sy = (y0 - y3) + (y2 - y1);
        let (a, b, c, d, e, f, g, h);
        if sx.abs() < 1e-12 && sy.abs() < 1e-12 {
            // A parallelogram: affine.
            (a, b, c) = (x1 - x0, x3 - x0, x0);
            (d, e, f) = (y1 - y0, y3 - y0, y0);
            (g, h) = (0.0, 0.0);
        } else {
            let (dx1, dx2, dy1, dy2) = (x1 - x2, x3 - x2, y1 - y2, y3 - y2);
            let den = dx1 * dy2 - dx2 * dy1;
            g = (sx * dy2 - dx2 * sy) / den;
            h = (dx1 * sy - sx * dy1) / den;
            (a, b, c) = (x1 - x0 + g * x1, x3 - x0 + h * x3, x0);
            (d, e, f) = (y1 - y0 + g * y1, y3 - y0 + h * y3, y0);
        }
        let (w, hh) = (f64::from(width), f64::from(height));
        Homography {
            a: a / w,
            b: b / hh,
            c,
            d: d / w,
            e: e / hh,
            f,
            g: g / w,
            h: h / hh,
        }
    }

    /// The canvas point output pixel `(x, y)` shows.
    #[inline]
    pub fn map(&self, x: f64, y: f64) -> (f64, f64) {
        let inv = 1.0 / (self.g * x + self.h * y + 1.0);
        (
            (self.a * x + self.b * y + self.c) * inv,
            (self.d * x + self.e * y + self.f) * inv,
        )
    }

    /// Whether `u` depends on `x` only and `v` on `y` only (an axis-aligned zoom or move).
    pub fn is_separable(&self) -> bool {
        self.b == 0.0 && self.d == 0.0 && self.g == 0.0 && self.h == 0.0
    }
}

#[cfg(test)]
mod tests {
    use stillreel_core::{Engine, Orientation, Resolution};

    use super::*;
    use crate::geometry::clip_plan::{ClipPlan, Motion};

    #[test]
    fn homography_sends_the_frame_corners_to_the_window_corners() {
        for motion in [Motion::PushIn, Motion::OrbitLeft, Motion::OrbitRight] {
            let plan = ClipPlan::new(
                Orientation::Landscape,
                Resolution::P720,
                Engine::V25,
                motion,
            );
            for n in [0, 37, 75, 149] {
                let corners = plan.window_at(n);
                let map = Homography::from_corners(corners, 1280, 720);
                let frame = [(0.0, 0.0), (1280.0, 0.0), (0.0, 720.0), (1280.0, 720.0)];
                for ((x, y), (u, v)) in frame.into_iter().zip(corners) {
                    let (mu, mv) = map.map(x, y);
                    assert!(
                        (mu - u).abs() < 1e-6 && (mv - v).abs() < 1e-6,
                        "{motion:?} {n}"
                    );
                }
            }
        }
    }

    #[test]
    fn push_maps_are_separable_and_orbits_are_not() {
        let map = |motion| {
            let plan = ClipPlan::new(
                Orientation::Landscape,
                Resolution::P720,
                Engine::V25,
                motion,
            );
            Homography::from_corners(plan.window_at(40), 1280, 720)
        };
        assert!(map(Motion::PushIn).is_separable());
        assert!(map(Motion::PushOut).is_separable());
        assert!(!map(Motion::OrbitLeft).is_separable());
    }
}
