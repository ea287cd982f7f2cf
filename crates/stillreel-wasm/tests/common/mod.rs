//! What the native and the browser test share: the case table's runner (the core's test uses
//! the same one) and the native snapshot the browser test compares the wasm module with.

#![allow(dead_code, reason = "each test binary uses a different part")]

use serde_json::Value;

#[path = "../../../../tests/case_runner.rs"]
pub mod cases;

/// The native outcomes of every case, in file and case order (written by `native.rs`).
pub const NATIVE_OUTCOMES: &str = include_str!("../native-outcomes.json");

/// The outcome as the snapshot records it: the result object, or `{"malformed": message}`.
pub fn record(result: Result<Value, String>) -> Value {
    match result {
        Ok(outcome) => outcome,
        Err(message) => serde_json::json!({ "malformed": message }),
    }
}
