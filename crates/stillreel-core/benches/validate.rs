//! Validating + normalizing a 20-image create_video body from a JSON string (target: ≤ 10 µs median
//! natively, docs/BENCHMARKS.md). Run: `cargo bench -p stillreel-core --bench validate`.

use criterion::{Criterion, criterion_group, criterion_main};
use stillreel_core::Options;

/// A realistic 20-image body (see `builder::showcase`).
fn body() -> String {
    serde_json::to_string(&stillreel_core::builder::showcase(20)).unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let json = body();
    let options = Options::default();
    assert!(
        stillreel_core::validate_create_video(&json, &options).is_ok(),
        "the benchmark body is valid"
    );
    c.bench_function("validate_create_video_20_images", |b| {
        b.iter(|| stillreel_core::validate_create_video(std::hint::black_box(&json), &options))
    });
    c.bench_function("serde_json_parse_only_20_images", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(std::hint::black_box(&json)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
