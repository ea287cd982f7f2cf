#!/usr/bin/env bash
# Regenerates the committed fuzz corpus (fuzz/corpus/<target>/): seeds from the rule cases in
# tests/cases/ (the seed-corpus binary), FUZZ_SECONDS (default 60) of libFuzzer per target to
# grow it, then `cargo fuzz cmin` to keep only inputs that add coverage. Needs nightly and
# cargo-fuzz. Stable `cargo test -p stillreel-fuzz` replays the result.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^stillreel-fuzz-targets$')
rm -rf fuzz/corpus
cargo run -q -p stillreel-fuzz --bin seed-corpus -- fuzz/corpus
cargo +nightly fuzz build -O
for target in $targets; do
  cargo +nightly fuzz run -O "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048
  cargo +nightly fuzz cmin -O "$target" "fuzz/corpus/$target" -- -max_len=65536
  echo "fuzz-corpus: $target: $(ls "fuzz/corpus/$target" | wc -l) inputs"
done
