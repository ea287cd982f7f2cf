//! Fuzz target: combine_video_clips validation of raw request bodies. The property is
//! `stillreel_fuzz::combine`, which `cargo test` also replays over corpus/combine.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stillreel_fuzz::combine(data);
});
