//! Writes the starting corpus of every fuzz target from the rule cases in `tests/cases/`:
//! request bodies for the validators and the JSON reader, URLs for the URL rule, every
//! string for NFC. `scripts/fuzz-corpus.sh` runs it, fuzzes, then minimizes (`cargo fuzz cmin`).
//!
//! Usage: `cargo run -p stillreel-fuzz --bin seed-corpus -- <fuzz/corpus dir>`

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[expect(
    clippy::print_stdout,
    reason = "a command-line tool reports what it wrote"
)]
fn main() {
    let out = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus"));
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cases)
        .expect("tests/cases")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut seeds: [(&str, BTreeSet<Vec<u8>>); 5] = [
        ("create_video", BTreeSet::new()),
        ("combine", BTreeSet::new()),
        ("json_reader", BTreeSet::new()),
        ("nfc", BTreeSet::new()),
        ("url", BTreeSet::new()),
    ];
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read cases");
        let rows: Vec<Value> = serde_json::from_str(&text).expect("cases are JSON");
        for row in rows {
            let Some(body) = row.get("body") else {
                continue;
            };
            // A malformed body is kept as the text it stands for.
            let raw = match body {
                Value::String(s) if row.get("malformed").is_some() => s.clone().into_bytes(),
                other => other.to_string().into_bytes(),
            };
            let target = match row["endpoint"].as_str() {
                Some("create_video") => 0,
                Some("combine_video_clips") => 1,
                _ => 2,
            };
            if target < 2 {
                seeds[target].1.insert(raw.clone());
            }
            seeds[2].1.insert(raw);
            let mut strings = Vec::new();
            collect_strings(body, &mut strings);
            for s in strings {
                if s.starts_with("http") || s.contains("://") {
                    seeds[4].1.insert(s.clone().into_bytes());
                }
                seeds[3].1.insert(s.into_bytes());
            }
        }
    }
    for (target, inputs) in &seeds {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir).expect("corpus dir");
        for input in inputs {
            std::fs::write(dir.join(format!("seed-{:016x}", fnv1a(input))), input)
                .expect("write seed");
        }
        println!("{target}: {} seeds", inputs.len());
    }
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            collect_strings(v, out);
        }),
        _ => {}
    }
}

/// Stable names: the same seed always gets the same file.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
