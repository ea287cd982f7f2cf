//! Depth-aware motions (engine v25 with a depth map), as pure math per frame.
//!
//! The flat window of the plan ([`crate::geometry::clip_plan`]) still decides where the camera looks; depth
//! then bends the canvas point each output pixel reads, by the nearness `d` (0 far ..= 255
//! near, [`crate::depth::DepthField`]) found there:
//! `u = ox + (u_flat − ox)·scale[d] + shift[d]`, `v = oy + (v_flat − oy)·scale[d]`.
//!
//! - **Dolly** (push-in, push-out): a flat push zooms by `z(p)` about the centre; a dolly
//!   zooms each depth by `z(p)^(1 + DOLLY_DEPTH·(d/255 − ½))`: near parts grow faster, far
//!   parts slower (every exponent stays positive, so no part reads outside the canvas). At
//!   `z = 1` (push-in's first frame, push-out's last) the frame is the photo.
//! - **Orbit** (left, right): the flat orbit's move plus a lateral parallax around the middle
//!   depth, `shift = −dir·ORBIT_PARALLAX·W·p·(d/255 − ½)`: parts nearer than the middle travel
//!   further in the direction the picture moves, farther parts against it. The window is
//!   narrowed about its centre by the room that shift needs (`p`-proportional too), so every
//!   read stays inside the canvas; at `p = 0` the frame is the flat orbit's first.
//!
//! Both follow the plan's progress `p`, so they ease exactly as the flat motions (v25).

use crate::geometry::clip_plan::{ClipPlan, Motion};

/// How much depth spreads the dolly's zoom exponent: far parts zoom as `z^(1 − ½·K)`, near as
/// `z^(1 + ½·K)`.
pub const DOLLY_DEPTH: f64 = 1.2;
/// The near-to-far difference of the orbit's lateral travel, as a fraction of the frame width.
pub const ORBIT_PARALLAX: f64 = 0.04;

/// How depth bends one frame (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Parallax {
    pub ox: f64,
    pub oy: f64,
    pub scale: [f64; 256],
    pub shift: [f64; 256],
}

impl Parallax {
    /// The canvas point read for flat point `(u, v)` at nearness `d`.
    #[inline]
    pub fn bend(&self, u: f64, v: f64, d: u8) -> (f64, f64) {
        let i = usize::from(d);
        (
            self.ox + (u - self.ox) * self.scale[i] + self.shift[i],
            self.oy + (v - self.oy) * self.scale[i],
        )
    }
}

/// The parallax of frame `n` of `plan`.
pub fn parallax_at(plan: &ClipPlan, n: u32) -> Parallax {
    let (w, h) = (f64::from(plan.width), f64::from(plan.height));
    let corners = plan.window_at(n);
    let window_w = corners[1].0 - corners[0].0;
    let centre_x = (corners[0].0 + corners[1].0) / 2.0;
    let nearness = |d: usize| d as f64 / 255.0 - 0.5;
    match plan.motion {
        Motion::PushIn | Motion::PushOut => {
            let z = w / window_w;
            Parallax {
                ox: w / 2.0,
                oy: h / 2.0,
                scale: std::array::from_fn(|d| z.powf(-DOLLY_DEPTH * nearness(d))),
                shift: [0.0; 256],
            }
        }
        Motion::OrbitLeft | Motion::OrbitRight => {
            let p = plan.progress(n);
            let dir = if plan.motion == Motion::OrbitLeft {
                1.0
            } else {
                -1.0
            };
            let travel = ORBIT_PARALLAX * w * p;
            // Room for a shift of up to travel/2 on either side of the window.
            let scale = 1.0 - travel / window_w;
            Parallax {
                ox: centre_x,
                oy: h / 2.0,
                scale: [scale; 256],
                shift: std::array::from_fn(|d| -dir * travel * nearness(d)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use stillreel_core::{Engine, Orientation, Resolution};

    use super::*;

    fn plan(motion: Motion) -> ClipPlan {
        ClipPlan::new(
            Orientation::Landscape,
            Resolution::P720,
            Engine::V25,
            motion,
        )
    }

    /// Where the frame point `(x, y)` reads from at frame `n`, for nearness `d`.
    fn read(plan: &ClipPlan, n: u32, x: f64, y: f64, d: u8) -> (f64, f64) {
        let map = crate::geometry::homography::Homography::from_corners(
            plan.window_at(n),
            plan.width,
            plan.height,
        );
        let (u, v) = map.map(x, y);
        parallax_at(plan, n).bend(u, v, d)
    }

    #[test]
    fn every_read_stays_inside_the_canvas() {
        for motion in [
            Motion::PushIn,
            Motion::PushOut,
            Motion::OrbitLeft,
            Motion::OrbitRight,
        ] {
            let p = plan(motion);
            for n in 0..p.frames {
                for (x, y) in [
                    (0.0, 0.0),
                    (1280.0, 0.0),
                    (0.0, 720.0),
                    (1280.0, 720.0),
                    (640.0, 360.0),
                ] {
                    for d in [0, 128, 255] {
                        let (u, v) = read(&p, n, x, y, d);
                        assert!(
                            (-1e-6..=1280.0 + 1e-6).contains(&u)
                                && (-1e-6..=720.0 + 1e-6).contains(&v),
                            "{motion:?} frame {n} ({x},{y}) d {d}: ({u},{v})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_first_frame_is_the_flat_first_frame() {
        for motion in [Motion::PushIn, Motion::OrbitLeft, Motion::OrbitRight] {
            let p = plan(motion);
            for d in [0, 255] {
                let flat = crate::geometry::homography::Homography::from_corners(
                    p.window_at(0),
                    1280,
                    720,
                )
                .map(300.0, 200.0);
                let (u, v) = read(&p, 0, 300.0, 200.0, d);
                assert!(
                    (u - flat.0).abs() < 1e-9 && (v - flat.1).abs() < 1e-9,
                    "{motion:?}"
                );
            }
        }
        // Push-in starts on the photo itself.
        assert_eq!(
            read(&plan(Motion::PushIn), 0, 100.0, 50.0, 255),
            (100.0, 50.0)
        );
    }

    #[test]
    fn a_dolly_grows_near_parts_faster_and_an_orbit_moves_them_against_far_ones() {
        let p = plan(Motion::PushIn);
        // A point left of centre: near parts read closer to the centre (magnified more).
        let near = read(&p, 149, 320.0, 360.0, 255).0;
        let far = read(&p, 149, 320.0, 360.0, 0).0;
        assert!(near > far + 20.0, "near {near} far {far}");
        // Orbit-left: the picture moves right; near parts read further left (move further
        // right), far parts less: at least 2 % of the width apart by the end.
        let o = plan(Motion::OrbitLeft);
        let near = read(&o, 149, 640.0, 360.0, 255).0;
        let far = read(&o, 149, 640.0, 360.0, 0).0;
        assert!(far - near >= 0.02 * 1280.0, "near {near} far {far}");
        let r = plan(Motion::OrbitRight);
        assert!(read(&r, 149, 640.0, 360.0, 255).0 > read(&r, 149, 640.0, 360.0, 0).0);
    }

    #[test]
    fn depth_moves_are_smooth_per_frame() {
        for motion in [
            Motion::PushIn,
            Motion::PushOut,
            Motion::OrbitLeft,
            Motion::OrbitRight,
        ] {
            let p = plan(motion);
            for d in [0, 128, 255] {
                for (x, y) in [(0.0, 0.0), (1280.0, 720.0), (400.0, 300.0)] {
                    let xs: Vec<(f64, f64)> = (0..p.frames).map(|n| read(&p, n, x, y, d)).collect();
                    for w in xs.windows(2) {
                        let step = ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt();
                        assert!(step < 2.0, "{motion:?} d {d} ({x},{y}): step {step}");
                    }
                }
            }
        }
    }
}
