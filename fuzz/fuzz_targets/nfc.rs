//! Fuzz target: the core's NFC composer against unicode-normalization (differential). The property is
//! `stillreel_fuzz::nfc`, which `cargo test` also replays over corpus/nfc.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stillreel_fuzz::nfc(data);
});
