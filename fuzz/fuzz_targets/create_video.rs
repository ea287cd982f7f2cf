//! Fuzz target: create_video validation of raw request bodies. The property is
//! `stillreel_fuzz::create_video`, which `cargo test` also replays over corpus/create_video.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stillreel_fuzz::create_video(data);
});
