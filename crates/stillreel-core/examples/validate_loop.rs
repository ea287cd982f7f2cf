//! Validates the benchmark's 20-image body N times (default 10,000); for profilers such as
//! `valgrind --tool=callgrind`, whose instruction counts do not depend on machine load.
#![allow(clippy::print_stdout)]
use stillreel_core::Options;

fn main() {
    let json = serde_json::to_string(&stillreel_core::builder::showcase(20)).unwrap_or_default();
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
