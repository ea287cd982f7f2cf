//! Validates the benchmark's 20-image body N times (default 10,000); for profilers such as
//! `valgrind --tool=callgrind`, whose instruction counts do not depend on machine load.
#![allow(clippy::print_stdout)]
use stillreel_core::builder::{CreateVideoBuilder, full_branding};
use stillreel_core::{CameraMotion, Options, Vfx, WordDropColor, WordDropConfig};

fn main() {
    let mut request = CreateVideoBuilder::new()
        .images(20)
        .motion(CameraMotion::PushIn)
        .branding(full_branding())
        .build();
    for (i, input) in request.image_inputs.iter_mut().enumerate() {
        input.vfx = match i % 4 {
            0 => Some(Vfx::DayToTwilight),
            1 => Some(Vfx::WordDrop {
                config: WordDropConfig {
                    text: "Just Listed €1.2M".chars().take(16).collect(),
                    color: WordDropColor::Gold,
                },
            }),
            2 => Some(Vfx::Shadows),
            _ => None,
        };
    }
    let json = serde_json::to_string(&request).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let options = Options::default();
    let mut ok = 0;
    for _ in 0..n {
        ok += usize::from(
            stillreel_core::validate_create_video(std::hint::black_box(&json), &options).is_ok(),
        );
    }
    println!("{ok} of {n} valid; body {} bytes", json.len());
}
