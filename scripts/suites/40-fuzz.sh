#!/usr/bin/env bash
# libFuzzer over every fuzz target (fuzz/fuzz_targets/), FUZZ_SECONDS each (default 60): the
# validators from raw bytes, the JSON reader against serde_json, NFC against
# unicode-normalization, the URL rule against the url crate. Starts from the committed corpus
# (fuzz/corpus/<target>, read only: new inputs go to a temp dir) and prints the executions
# of each target and the total. Exits non-zero on a crash; the input is kept in
# fuzz/artifacts/<target>/ (copy it to fuzz/regressions/<target>/ once fixed, and
# `cargo test` replays it for good).
#
# Needs a nightly toolchain and cargo-fuzz (scripts/setup.sh installs cargo-fuzz when nightly
# is there). Without either it says why and skips, exit 0: stable `cargo test` still replays
# the corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${FUZZ_SECONDS:-60}"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: skipped: no nightly toolchain (libFuzzer instrumentation needs it; none can be downloaded here)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: skipped: cargo-fuzz is not installed (scripts/setup.sh installs it: cargo install cargo-fuzz)"
  exit 0
fi

targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^stillreel-fuzz-targets$')
cargo +nightly fuzz build -O >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total=0
for target in $targets; do
  mkdir -p "$work/$target"
  log="$work/$target.log"
  # -max_len 65536: request bodies up to 64 KiB exercise every rule; longer ones only slow
  # each execution. -rss_limit_mb: a leak or blow-up fails the run instead of the machine.
  if ! cargo +nightly fuzz run -O "$target" "$work/$target" "fuzz/corpus/$target" -- \
      -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
      >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $target FAILED (input saved under fuzz/artifacts/$target/)"
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  total=$((total + ${runs:-0}))
  echo "fuzz: $target: ${runs:-0} executions in ${seconds} s, no crash"
done
echo "fuzz: all targets: $total executions, no crash"
