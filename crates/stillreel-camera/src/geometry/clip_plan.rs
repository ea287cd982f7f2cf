//! Clip plans: what each frame of a clip shows, as pure math.
//!
//! A clip is the picture cover-cropped to the output frame (the *canvas*, exactly W×H), then
//! viewed through a moving window. The window is a quadrilateral in canvas coordinates that
//! ffmpeg's `perspective` filter maps onto the whole output frame with bilinear sampling, so it
//! moves by fractions of a pixel (unlike `zoompan`, which snaps to whole pixels). Each corner
//! coordinate is either linear in the progress `p` or exponential in it (`a + b·rᵖ`: a zoom at
//! a constant perceived rate); [`Coord`] evaluates that here for tests and writes the same
//! formula as an ffmpeg expression for the filter, so plan and graph cannot drift apart.

use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution};

use crate::input::framing::{self, Framing};

/// Zoom factor at the close end of push-in and push-out (1.0 is the whole canvas).
pub const PUSH_ZOOM: f64 = 1.15;
/// Constant zoom of an orbit; the margin it leaves is the room the window travels across.
pub const ORBIT_ZOOM: f64 = 1.12;
/// How much taller one side of the orbit window is than the other at either end (fraction of
/// its half-height): the trapezoid swing that reads as turning around the subject.
pub const ORBIT_SKEW: f64 = 0.06;
/// Source-to-frame aspect ratio above which `auto` orbits on v25 (the picture is noticeably
/// wider than the frame, so the crop threw away sides worth travelling across).
pub const AUTO_ORBIT_ASPECT: f64 = 1.2;

/// A camera motion with `auto` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    PushIn,
    PushOut,
    OrbitLeft,
    OrbitRight,
}

impl Motion {
    /// The wire name.
    pub const fn as_camera_motion(self) -> CameraMotion {
        match self {
            Motion::PushIn => CameraMotion::PushIn,
            Motion::PushOut => CameraMotion::PushOut,
            Motion::OrbitLeft => CameraMotion::OrbitLeft,
            Motion::OrbitRight => CameraMotion::OrbitRight,
        }
    }
}

/// The `auto` rule's fingerprint of a picture: 64-bit FNV-1a of the file's bytes, small and
/// stable across versions and platforms (unlike `DefaultHasher`), so the browser's preview and
/// the renderer pick the same motion for the same file.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Decides `auto` (and passes explicit motions through), deterministically from the picture:
/// - v25, the upright picture's aspect ratio at least [`AUTO_ORBIT_ASPECT`] times the frame's,
///   and a framing that crops it (`fit` resolved by [`framing::resolve`] is `cover` or
///   `smart`; always, on the generative engine, whose model is given the whole photo): an orbit across the width the crop would otherwise waste; left when the file's
///   FNV-1a digest is even, right when odd.
/// - otherwise push-in when the digest is even, push-out when odd. A contained picture
///   (`contain-blur`, which `auto` framing picks for a wide photo in a portrait frame) crops
///   nothing to travel across, and an orbit would tilt its sharp edges against the level
///   blurred bands around it; a push keeps them level.
///
/// The same file at the same frame always gets the same motion; different pictures spread
/// over the motions instead of all pushing in.
pub fn resolve_motion(
    requested: CameraMotion,
    engine: Engine,
    upright: (u32, u32),
    frame: (u32, u32),
    fit: Fit,
    digest: u64,
) -> Motion {
    let even = digest.is_multiple_of(2);
    match requested {
        CameraMotion::PushIn => Motion::PushIn,
        CameraMotion::PushOut => Motion::PushOut,
        CameraMotion::OrbitLeft => Motion::OrbitLeft,
        CameraMotion::OrbitRight => Motion::OrbitRight,
        CameraMotion::Auto => {
            let source_aspect = f64::from(upright.0) / f64::from(upright.1.max(1));
            let frame_aspect = f64::from(frame.0) / f64::from(frame.1.max(1));
            // The model of the generative engine sees the whole photo: no framing applies.
            let cropped = engine == Engine::Generative
                || framing::resolve(fit, upright, frame) != Framing::ContainBlur;
            let wide = source_aspect >= frame_aspect * AUTO_ORBIT_ASPECT && cropped;
            match (engine, wide, even) {
                // The generative engine's model is asked for the same move v25 would draw.
                (Engine::V25 | Engine::Generative, true, true) => Motion::OrbitLeft,
                (Engine::V25 | Engine::Generative, true, false) => Motion::OrbitRight,
                (_, _, true) => Motion::PushIn,
                (_, _, false) => Motion::PushOut,
            }
        }
    }
}

/// How the camera's speed varies over a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pace {
    /// The engine's own curve: constant speed on v24, eased in and out on v25 (the camera is
    /// still at both ends of the clip).
    #[default]
    Engine,
    /// Constant speed from the first frame to the last on every engine: the camera is still
    /// moving when the clip ends, so the branded video's speed ramp, which accelerates the
    /// picture into each cut and out of it, shows the acceleration (an eased camera is nearly
    /// still exactly where the ramp speeds time up). Used for the clips of a video that asks
    /// for the speed ramp.
    Through,
}

/// Everything that decides the frames of one clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipPlan {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frames: u32,
    pub engine: Engine,
    pub motion: Motion,
    pub pace: Pace,
}

impl ClipPlan {
    /// A standard clip: [`stillreel_core::limits::CLIP_SECONDS`] at [`stillreel_core::limits::FPS`].
    pub fn new(
        orientation: Orientation,
        resolution: Resolution,
        engine: Engine,
        motion: Motion,
    ) -> Self {
        let (width, height) = resolution.dimensions(orientation);
        let fps = stillreel_core::limits::FPS;
        ClipPlan {
            width,
            height,
            fps,
            frames: stillreel_core::limits::CLIP_SECONDS * fps,
            engine,
            motion,
            pace: Pace::Engine,
        }
    }

    /// The same clip with the camera's speed following `pace`.
    pub fn with_pace(self, pace: Pace) -> Self {
        ClipPlan { pace, ..self }
    }

    /// Whether the camera eases in and out (is still at the clip's ends).
    pub fn eases(&self) -> bool {
        self.pace == Pace::Engine && self.engine == Engine::V25
    }

    /// Clip length in seconds.
    pub fn seconds(&self) -> f64 {
        f64::from(self.frames) / f64::from(self.fps)
    }

    /// Progress through the move at frame `n`: linear on v24 and with [`Pace::Through`],
    /// smoothstep (eased in and out) on v25.
    pub fn progress(&self, n: u32) -> f64 {
        let u = (f64::from(n) / f64::from(self.frames.saturating_sub(1).max(1))).clamp(0.0, 1.0);
        if self.eases() {
            u * u * (3.0 - 2.0 * u)
        } else {
            u
        }
    }

    /// The ffmpeg expression for [`ClipPlan::progress`] in terms of the frame number `in`.
    pub fn progress_expr(&self) -> String {
        let u = format!("min(in/{},1)", self.frames.saturating_sub(1).max(1));
        if self.eases() {
            format!("{u}*{u}*(3-2*{u})")
        } else {
            u
        }
    }

    /// The window's corners (top-left, top-right, bottom-left, bottom-right) as formulas.
    pub fn window(&self) -> Window {
        let w = f64::from(self.width);
        let h = f64::from(self.height);
        let (cx, cy) = (w / 2.0, h / 2.0);
        match self.motion {
            Motion::PushIn | Motion::PushOut => {
                // Half sizes shrink as (w/2)/z with z = z0·(z1/z0)^p, i.e. (w/2/z0)·(z0/z1)^p.
                let (z0, z1) = if self.motion == Motion::PushIn {
                    (1.0, PUSH_ZOOM)
                } else {
                    (PUSH_ZOOM, 1.0)
                };
                let r = z0 / z1;
                let hw = w / 2.0 / z0;
                let hh = h / 2.0 / z0;
                let left = Coord::Exp { a: cx, b: -hw, r };
                let right = Coord::Exp { a: cx, b: hw, r };
                let top = Coord::Exp { a: cy, b: -hh, r };
                let bottom = Coord::Exp { a: cy, b: hh, r };
                Window {
                    corners: [(left, top), (right, top), (left, bottom), (right, bottom)],
                }
            }
            Motion::OrbitLeft | Motion::OrbitRight => {
                let hw = w / 2.0 / ORBIT_ZOOM;
                let hh = h / 2.0 / ORBIT_ZOOM;
                let travel = cx - hw;
                // Orbit-left: the window travels from the right margin to the left one while the
                // taller side swings from right to left; orbit-right mirrors it.
                let dir = if self.motion == Motion::OrbitLeft {
                    1.0
                } else {
                    -1.0
                };
                // center x = cx + dir·travel·(1 - 2p)
                let x_off = |side: f64| Coord::Lin {
                    a: cx + dir * travel + side * hw,
                    b: -2.0 * dir * travel,
                };
                // skew k(p) = dir·SKEW·(1 - 2p); left half-height hh·(1 - k), right hh·(1 + k).
                // (side = -1 for the left edge, +1 for the right.)
                let k0 = dir * ORBIT_SKEW;
                let y = |sign: f64, side: f64| {
                    // y = cy + sign·hh·(1 + side·k(p)) = cy + sign·hh + sign·hh·side·k0·(1 - 2p)
                    let a = cy + sign * hh + sign * hh * side * k0;
                    Coord::Lin {
                        a,
                        b: -2.0 * sign * hh * side * k0,
                    }
                };
                let (left, right) = (-1.0, 1.0);
                Window {
                    corners: [
                        (x_off(left), y(-1.0, left)),
                        (x_off(right), y(-1.0, right)),
                        (x_off(left), y(1.0, left)),
                        (x_off(right), y(1.0, right)),
                    ],
                }
            }
        }
    }

    /// The window at frame `n`, evaluated.
    pub fn window_at(&self, n: u32) -> [(f64, f64); 4] {
        let p = self.progress(n);
        self.window().corners.map(|(x, y)| (x.eval(p), y.eval(p)))
    }
}

/// One corner coordinate as a function of the progress `p` (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coord {
    /// `a + b·p`
    Lin { a: f64, b: f64 },
    /// `a + b·rᵖ`
    Exp { a: f64, b: f64, r: f64 },
}

impl Coord {
    pub fn eval(self, p: f64) -> f64 {
        match self {
            Coord::Lin { a, b } => a + b * p,
            Coord::Exp { a, b, r } => a + b * r.powf(p),
        }
    }

    /// The same formula as an ffmpeg expression, with `p` the progress expression.
    pub fn expr(self, p: &str) -> String {
        match self {
            Coord::Lin { a, b } => format!("{a:.6}+({b:.6})*({p})"),
            Coord::Exp { a, b, r } => format!("{a:.6}+({b:.6})*pow({r:.9},{p})"),
        }
    }
}

/// The window's four corners: top-left, top-right, bottom-left, bottom-right (the order of
/// `perspective`'s x0..x3 / y0..y3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub corners: [(Coord, Coord); 4],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(engine: Engine, motion: Motion) -> ClipPlan {
        ClipPlan::new(Orientation::Landscape, Resolution::P720, engine, motion)
    }

    fn width_at(p: &ClipPlan, n: u32) -> f64 {
        let c = p.window_at(n);
        c[1].0 - c[0].0
    }

    fn center_x(p: &ClipPlan, n: u32) -> f64 {
        let c = p.window_at(n);
        (c[0].0 + c[1].0) / 2.0
    }

    #[test]
    fn clip_is_150_frames_at_30_fps() {
        let p = plan(Engine::V25, Motion::PushIn);
        assert_eq!((p.width, p.height, p.fps, p.frames), (1280, 720, 30, 150));
        assert!((p.seconds() - 5.0).abs() < 1e-9);
        let portrait = ClipPlan::new(
            Orientation::Portrait,
            Resolution::P1080,
            Engine::V24,
            Motion::PushIn,
        );
        assert_eq!((portrait.width, portrait.height), (1080, 1920));
    }

    #[test]
    fn push_in_window_shrinks_every_frame_and_stays_inside() {
        for engine in [Engine::V24, Engine::V25] {
            let p = plan(engine, Motion::PushIn);
            assert!(
                (width_at(&p, 0) - 1280.0).abs() < 1e-6,
                "starts with the whole canvas"
            );
            assert!(
                (width_at(&p, 149) - 1280.0 / PUSH_ZOOM).abs() < 1e-6,
                "ends at the close zoom"
            );
            for n in 1..p.frames {
                assert!(
                    width_at(&p, n) < width_at(&p, n - 1),
                    "{engine:?} frame {n}"
                );
                for (x, y) in p.window_at(n) {
                    assert!((0.0..=1280.0).contains(&x) && (0.0..=720.0).contains(&y));
                }
                // Centred: no drift sideways.
                assert!((center_x(&p, n) - 640.0).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn push_out_mirrors_push_in() {
        let p = plan(Engine::V24, Motion::PushOut);
        assert!((width_at(&p, 0) - 1280.0 / PUSH_ZOOM).abs() < 1e-6);
        assert!((width_at(&p, 149) - 1280.0).abs() < 1e-6);
        for n in 1..p.frames {
            assert!(width_at(&p, n) > width_at(&p, n - 1));
        }
    }

    #[test]
    fn moves_are_sub_pixel_and_without_jumps() {
        // The window edge moves less than 2 px per frame, and its speed changes by a small
        // fraction of a pixel between frames: smooth, no stepping.
        for (engine, motion) in [
            (Engine::V24, Motion::PushIn),
            (Engine::V25, Motion::PushIn),
            (Engine::V25, Motion::OrbitLeft),
            (Engine::V25, Motion::OrbitRight),
        ] {
            let p = plan(engine, motion);
            let xs: Vec<f64> = (0..p.frames).map(|n| p.window_at(n)[0].0).collect();
            let steps: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(steps.iter().all(|s| s.abs() < 2.0), "{motion:?}: {steps:?}");
            assert!(
                steps.iter().any(|s| s.abs() > 0.0 && s.abs() < 1.0),
                "moves by fractions of a pixel"
            );
            for w in steps.windows(2) {
                assert!(
                    (w[1] - w[0]).abs() < 0.05,
                    "{engine:?} {motion:?} acceleration {w:?}"
                );
            }
        }
    }

    #[test]
    fn v24_is_linear_and_v25_eases() {
        let v24 = plan(Engine::V24, Motion::OrbitLeft);
        let v25 = plan(Engine::V25, Motion::OrbitLeft);
        let step = |p: &ClipPlan, n: u32| (center_x(p, n + 1) - center_x(p, n)).abs();
        // v24: the same step everywhere.
        assert!((step(&v24, 0) - step(&v24, 74)).abs() < 1e-9);
        assert!((step(&v24, 148) - step(&v24, 74)).abs() < 1e-9);
        // v25: slow at both ends, fastest in the middle.
        assert!(step(&v25, 0) < step(&v25, 74) / 10.0);
        assert!(step(&v25, 148) < step(&v25, 74) / 10.0);
        // Both arrive at the same place.
        assert!((center_x(&v24, 149) - center_x(&v25, 149)).abs() < 1e-9);
    }

    #[test]
    fn through_pace_keeps_moving_at_the_ends() {
        // With the speed ramp the camera must not stop where the ramp speeds time up: at the
        // clip's first and last frames a v25 clip paced `Through` moves as fast as in its
        // middle, and arrives where the eased one does.
        let eased = plan(Engine::V25, Motion::OrbitLeft);
        let through = eased.with_pace(Pace::Through);
        assert!(eased.eases() && !through.eases());
        let step = |p: &ClipPlan, n: u32| (center_x(p, n + 1) - center_x(p, n)).abs();
        assert!((step(&through, 0) - step(&through, 74)).abs() < 1e-9);
        assert!((step(&through, 148) - step(&through, 74)).abs() < 1e-9);
        assert!(step(&through, 148) > 10.0 * step(&eased, 148));
        assert!((center_x(&through, 149) - center_x(&eased, 149)).abs() < 1e-9);
        assert_eq!(through.progress_expr(), "min(in/149,1)");
    }

    #[test]
    fn orbits_travel_in_opposite_directions_inside_the_canvas() {
        let left = plan(Engine::V25, Motion::OrbitLeft);
        let right = plan(Engine::V25, Motion::OrbitRight);
        assert!(center_x(&left, 149) < center_x(&left, 0));
        assert!(center_x(&right, 149) > center_x(&right, 0));
        for n in 1..left.frames {
            assert!(center_x(&left, n) < center_x(&left, n - 1));
        }
        for p in [left, right] {
            for n in 0..p.frames {
                for (x, y) in p.window_at(n) {
                    assert!((-1e-9..=1280.0 + 1e-9).contains(&x), "x {x}");
                    assert!((0.0..=720.0).contains(&y), "y {y}");
                }
            }
        }
        // The trapezoid swings: left edge shorter than the right at the start, taller at the end.
        let height = |p: &ClipPlan, n: u32, side: usize| {
            let c = p.window_at(n);
            c[side + 2].1 - c[side].1
        };
        assert!(height(&left, 0, 0) < height(&left, 0, 1));
        assert!(height(&left, 149, 0) > height(&left, 149, 1));
    }

    #[test]
    fn expressions_match_the_evaluated_plan() {
        // The expression text is built from the same numbers; check a value by substituting p.
        let c = Coord::Exp {
            a: 640.0,
            b: -640.0,
            r: 1.0 / PUSH_ZOOM,
        };
        assert_eq!(c.expr("P"), "640.000000+(-640.000000)*pow(0.869565217,P)");
        assert_eq!(
            plan(Engine::V24, Motion::PushIn).progress_expr(),
            "min(in/149,1)"
        );
        assert_eq!(
            plan(Engine::V25, Motion::PushIn).progress_expr(),
            "min(in/149,1)*min(in/149,1)*(3-2*min(in/149,1))"
        );
    }

    #[test]
    fn auto_rule() {
        let frame = (1280, 720);
        let auto = |upright, frame, fit, digest| {
            resolve_motion(CameraMotion::Auto, Engine::V25, upright, frame, fit, digest)
        };
        // Explicit motions pass through, whatever the framing.
        assert_eq!(
            resolve_motion(
                CameraMotion::PushOut,
                Engine::V25,
                (100, 100),
                frame,
                Fit::Auto,
                0
            ),
            Motion::PushOut
        );
        assert_eq!(
            resolve_motion(
                CameraMotion::OrbitLeft,
                Engine::V25,
                (3000, 1000),
                (720, 1280),
                Fit::ContainBlur,
                1
            ),
            Motion::OrbitLeft
        );
        // Frame-shaped pictures push in or out by digest parity, on both engines.
        assert_eq!(auto((1600, 900), frame, Fit::Auto, 2), Motion::PushIn);
        assert_eq!(auto((1600, 900), frame, Fit::Auto, 3), Motion::PushOut);
        // Wide panoramas, cropped, orbit on v25 ...
        assert_eq!(auto((2400, 1000), frame, Fit::Auto, 4), Motion::OrbitLeft);
        // ... (one over about 3:1 is contained by auto framing, which keeps it whole, and
        // pushes; covered, it orbits) ...
        assert_eq!(auto((6000, 2000), frame, Fit::Auto, 4), Motion::PushIn);
        assert_eq!(auto((6000, 2000), frame, Fit::Cover, 4), Motion::OrbitLeft);
        assert_eq!(auto((2400, 1000), frame, Fit::Smart, 5), Motion::OrbitRight);
        // ... but never on v24.
        assert_eq!(
            resolve_motion(
                CameraMotion::Auto,
                Engine::V24,
                (2400, 1000),
                frame,
                Fit::Auto,
                5
            ),
            Motion::PushOut
        );
        // Portrait frame: a landscape picture is "wide". Covered, it orbits across what the
        // crop leaves out; with auto framing it is contained (covering would keep 42 % of it),
        // and a contained picture pushes.
        assert_eq!(
            auto((1200, 900), (720, 1280), Fit::Cover, 6),
            Motion::OrbitLeft
        );
        assert_eq!(auto((1200, 900), (720, 1280), Fit::Auto, 6), Motion::PushIn);
        assert_eq!(
            auto((1200, 900), (720, 1280), Fit::ContainBlur, 7),
            Motion::PushOut
        );
        // A picture only a little wider than a portrait frame is covered by auto framing, and
        // orbits.
        assert_eq!(
            auto((900, 1280), (720, 1280), Fit::Auto, 8),
            Motion::OrbitLeft
        );
    }
}
