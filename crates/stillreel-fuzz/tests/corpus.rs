//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) and any saved crash inputs
//! (`fuzz/regressions/<target>/`) through the fuzz properties, on stable, as part of
//! `cargo test`.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_has_a_corpus_and_it_passes() {
    for (name, check) in stillreel_fuzz::TARGETS {
        let corpus = inputs(&root().join("corpus").join(name));
        assert!(
            corpus.len() >= 10,
            "fuzz/corpus/{name} has {} inputs; regenerate it (docs/SECURITY.md, Fuzzing)",
            corpus.len()
        );
        let regressions = inputs(&root().join("regressions").join(name));
        for file in corpus.iter().chain(&regressions) {
            let data = std::fs::read(file).expect("read input");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{name}: {} fails", file.display());
        }
    }
}

#[test]
fn the_fuzz_crate_has_a_target_for_each_property() {
    for (name, _) in stillreel_fuzz::TARGETS {
        let target = root().join("fuzz_targets").join(format!("{name}.rs"));
        let text = std::fs::read_to_string(&target)
            .unwrap_or_else(|_| panic!("{} is missing", target.display()));
        assert!(
            text.contains(&format!("stillreel_fuzz::{name}(")),
            "{} does not call stillreel_fuzz::{name}",
            target.display()
        );
    }
}
