//! Fuzz target: the core's JSON reader against serde_json (differential). The property is
//! `stillreel_fuzz::json_reader`, which `cargo test` also replays over corpus/json_reader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stillreel_fuzz::json_reader(data);
});
