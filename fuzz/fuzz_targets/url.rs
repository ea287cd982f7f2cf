//! Fuzz target: the core's URL rule against the url crate the fetcher uses (differential). The property is
//! `stillreel_fuzz::url`, which `cargo test` also replays over corpus/url.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stillreel_fuzz::url(data);
});
