//! Which instruction sets the kernels may use. Each kernel asks here ([`v2`], [`v3`]) rather
//! than the CPU directly, so a test (or an operator chasing a suspected SIMD bug) can hold every
//! kernel to a narrower set with [`set_cpu_extensions`], as fast_image_resize's resizer takes
//! its `CpuExtensions`; by default each uses the widest set the CPU has. On targets other than
//! x86-64 only [`CpuExtensions::None`] exists and every kernel runs its scalar twin.

use std::sync::atomic::{AtomicU8, Ordering};

/// The instruction sets the kernels have paths for, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpuExtensions {
    /// The scalar twins only.
    None = 0,
    /// x86-64-v2: SSSE3 and SSE4.1/4.2 (the push's row shuffles).
    X86_64V2 = 1,
    /// x86-64-v3: AVX2 and FMA (positions, blends, gathers of four and eight).
    X86_64V3 = 2,
}

/// The widest set kernels may use; `u8::MAX`: whatever the CPU has.
static CEILING: AtomicU8 = AtomicU8::new(u8::MAX);

impl CpuExtensions {
    pub const ALL: [CpuExtensions; 3] = [
        CpuExtensions::None,
        CpuExtensions::X86_64V2,
        CpuExtensions::X86_64V3,
    ];

    /// Whether this CPU has the set.
    pub fn is_supported(self) -> bool {
        match self {
            CpuExtensions::None => true,
            #[cfg(target_arch = "x86_64")]
            CpuExtensions::X86_64V2 => pulp::x86::V2::try_new().is_some(),
            #[cfg(target_arch = "x86_64")]
            CpuExtensions::X86_64V3 => pulp::x86::V3::try_new().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Every set this CPU has, narrowest first (what a test runs each kernel on).
    pub fn supported() -> Vec<CpuExtensions> {
        CpuExtensions::ALL
            .into_iter()
            .filter(|e| e.is_supported())
            .collect()
    }
}

/// Holds every kernel of this process to `extensions` (and narrower); the default is the widest
/// the CPU has. Takes effect for frames drawn after the call.
pub fn set_cpu_extensions(extensions: CpuExtensions) {
    CEILING.store(extensions as u8, Ordering::Relaxed);
}

/// The set the kernels use now: the widest the CPU has, within [`set_cpu_extensions`].
pub fn cpu_extensions() -> CpuExtensions {
    CpuExtensions::supported()
        .into_iter()
        .rfind(|e| allowed(*e))
        .unwrap_or(CpuExtensions::None)
}

fn allowed(extensions: CpuExtensions) -> bool {
    extensions as u8 <= CEILING.load(Ordering::Relaxed)
}

/// x86-64-v3, when the CPU has it and it is allowed.
#[cfg(target_arch = "x86_64")]
pub(crate) fn v3() -> Option<pulp::x86::V3> {
    if allowed(CpuExtensions::X86_64V3) {
        pulp::x86::V3::try_new()
    } else {
        None
    }
}

/// x86-64-v2, when the CPU has it and it is allowed.
#[cfg(target_arch = "x86_64")]
pub(crate) fn v2() -> Option<pulp::x86::V2> {
    if allowed(CpuExtensions::X86_64V2) {
        pulp::x86::V2::try_new()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use stillreel_core::{Engine, Orientation, Resolution};

    use super::*;
    use crate::depth::{DepthField, DepthMap};
    use crate::draw::warp::{Canvas, frame_bytes};
    use crate::geometry::clip_plan::{ClipPlan, Motion};
    use crate::geometry::homography::Homography;
    use crate::geometry::parallax::parallax_at;

    /// The ceiling is one per process: tests that move it take turns.
    pub(crate) static SWITCHING: Mutex<()> = Mutex::new(());

    /// A canvas of the frame's size with detail everywhere (a wrong read shows in the value).
    fn canvas(w: u32, h: u32) -> Canvas {
        let (wu, hu) = (w as usize, h as usize);
        let mut bytes = vec![0u8; frame_bytes(w, h)];
        for y in 0..hu {
            for x in 0..wu {
                bytes[y * wu + x] = ((x * 7 + y * 3 + (x * y) % 29) % 256) as u8;
            }
        }
        for (i, b) in bytes[wu * hu..].iter_mut().enumerate() {
            *b = ((i * 5) % 251) as u8;
        }
        Canvas::from_yuv420p(w, h, &bytes).expect("canvas")
    }

    /// Every frame kind, flat and bent by depth, landscape and portrait, drawn on each set the
    /// CPU has, against the scalar twins.
    fn frames() -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for orientation in [Orientation::Landscape, Orientation::Portrait] {
            for motion in [
                Motion::PushIn,
                Motion::PushOut,
                Motion::OrbitLeft,
                Motion::OrbitRight,
            ] {
                let plan = ClipPlan::new(orientation, Resolution::P720, Engine::V25, motion);
                let (w, h) = (plan.width / 4 * 2, plan.height / 4 * 2);
                let plan = ClipPlan {
                    width: w,
                    height: h,
                    ..plan
                };
                let canvas = canvas(w, h);
                let map_values = (0..64 * 36).map(|i| ((i % 64) * 1000) as u16).collect();
                let depth = DepthMap {
                    width: 64,
                    height: 36,
                    values: map_values,
                };
                let field = DepthField::prepare(&depth, (w, h), Some(&canvas.guide()));
                for n in [0, 75, 149] {
                    let map = Homography::from_corners(
                        plan.window_at(n),
                        canvas.width(),
                        canvas.height(),
                    );
                    let mut flat = vec![0u8; frame_bytes(w, h)];
                    canvas.draw(&map, &mut flat, 2);
                    let mut bent = vec![0u8; frame_bytes(w, h)];
                    canvas.draw_with_depth(&map, &field, &parallax_at(&plan, n), &mut bent, 2);
                    out.push(flat);
                    out.push(bent);
                }
            }
        }
        out
    }

    #[test]
    fn every_set_draws_the_scalar_frames() {
        let _turn = SWITCHING.lock().unwrap_or_else(|e| e.into_inner());
        let sets = CpuExtensions::supported();
        set_cpu_extensions(CpuExtensions::None);
        assert_eq!(cpu_extensions(), CpuExtensions::None);
        let scalar = frames();
        for set in sets {
            set_cpu_extensions(set);
            assert_eq!(cpu_extensions(), set);
            let drawn = frames();
            let mut worst = 0u8;
            for (a, b) in drawn.iter().zip(&scalar) {
                for (x, y) in a.iter().zip(b) {
                    worst = worst.max(x.abs_diff(*y));
                }
            }
            // The wide blends round once where the scalar ones round per tap: within one level.
            assert!(
                worst <= 1,
                "{set:?}: a pixel {worst} levels from the scalar frame"
            );
        }
        set_cpu_extensions(CpuExtensions::X86_64V3);
        assert_eq!(
            cpu_extensions(),
            *CpuExtensions::supported().last().expect("one")
        );
    }
}
