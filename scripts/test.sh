#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what a fresh Debian machine lacks, starts the
# services the tests need, then runs every check and every suite. Safe to run again and again.
#
# Setup and PostgreSQL's start are the only steps that stop the run (nothing after them could
# work without them). Every other step runs whatever failed before it: the checks (fmt,
# clippy, module structure, wasm32), `cargo test --workspace --no-fail-fast`, and each suite in
# scripts/suites/. A table of every step's result closes the run, and the exit status is
# non-zero when any step failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# No incremental caches: a clean clone's test build is one pass, and incremental data roughly
# doubled the build directory (a CI run on a clone filled the machine's disk with it).
export CARGO_INCREMENTAL=0

step() { printf '\n==> %s\n' "$*"; }

# One row per step: name, result, seconds, note.
rows=()
failures=0
# record NAME STATUS STARTED [NOTE]
record() {
  local result=ok
  if [ "$2" -ne 0 ]; then result="FAILED (exit $2)"; failures=$((failures + 1)); fi
  rows+=("$1|$result|$(( $(date +%s) - $3 ))|${4:-}")
}
# check NAME COMMAND...: runs a step that does not stop the run, and records it.
check() {
  local name=$1 started status=0
  shift
  step "$name"
  started=$(date +%s)
  "$@" || status=$?
  record "$name" "$status" "$started"
}
summary() {
  step "summary"
  printf '%-44s %-16s %6s  %s\n' step result seconds note
  local row name result secs note
  for row in "${rows[@]}"; do
    IFS='|' read -r name result secs note <<<"$row"
    printf '%-44s %-16s %6s  %s\n' "$name" "$result" "$secs" "$note"
  done
  if [ "$failures" -ne 0 ]; then
    echo "test.sh: $failures of ${#rows[@]} steps FAILED"
    exit 1
  fi
  echo "test.sh: all ${#rows[@]} steps passed"
}

mkdir -p target

step "setup"
bash scripts/setup.sh

check "cargo fmt --check" cargo fmt --all --check
check "cargo clippy (native)" cargo clippy --workspace --all-targets --locked -- -D warnings
module_structure() {
  python3 scripts/module_cycles.py crates/*/src >target/module-structure.log || { cat target/module-structure.log; return 1; }
  tail -n 1 target/module-structure.log
}
check "module structure (scripts/layers.toml)" module_structure
check "module check's own tests" python3 scripts/test_module_cycles.py
check "doc claims (files and Type::member in docs exist)" python3 scripts/doc_claims.py
check "doc check's own tests" python3 scripts/test_doc_claims.py
check "cargo check stillreel-core (wasm32)" cargo check -p stillreel-core --target wasm32-unknown-unknown --locked
# The camera's pixel kernels claim these targets besides x86-64 (the SIMD paths are per
# architecture); an rlib needs no linker for them.
check "cargo build stillreel-camera (wasm32)" cargo build -p stillreel-camera --target wasm32-unknown-unknown --locked
check "cargo build stillreel-camera (aarch64)" cargo build -p stillreel-camera --target aarch64-unknown-linux-gnu --locked

# Suites that need services or other runtimes live in scripts/suites/, one file each, run in
# name order; each prints its own closing line and exits non-zero on failure.
# The S3 tests must run here, not skip: a missing Garage fails them.
export STILLREEL_REQUIRE_S3=1
# The tests on real photographs (docs/EFFECTS.md, "Real photographs") likewise: setup.sh
# installs them, and a missing photograph fails those tests instead of skipping them.
export STILLREEL_REQUIRE_PHOTOS=1

step "start PostgreSQL"
# shellcheck source=scripts/postgres.sh
source scripts/postgres.sh

step "cargo test --workspace"
started=$(date +%s)
status=0
# --no-fail-fast: a failing test binary does not keep the others from running.
cargo test --workspace --locked --no-fail-fast 2>&1 | tee target/cargo-test.log || status=$?
passed=$( (grep -Eo '[0-9]+ passed' target/cargo-test.log || true) | awk '{s+=$1} END {print s+0}')
failed=$( (grep -Eo '[0-9]+ failed' target/cargo-test.log || true) | awk '{s+=$1} END {print s+0}')
# The failing tests by name, for the table (cargo lists them under "failures:").
failing=$( (grep -E '^test .* \.\.\. FAILED$' target/cargo-test.log || true) | awk '{print $2}' | sort -u | head -5 | paste -sd, -)
record "cargo test --workspace" "$status" "$started" "${passed} passed, ${failed} failed${failing:+: $failing}"

for suite in scripts/suites/*.sh; do
  [ -e "$suite" ] || continue
  name="suite $(basename "$suite")"
  step "$name"
  started=$(date +%s)
  status=0
  bash "$suite" 2>&1 | tee target/suite.log || status=$?
  # Each suite's own closing line (its last one) goes in the table.
  record "$name" "$status" "$started" "$( (grep -v '^\s*$' target/suite.log || true) | tail -n 1 | cut -c1-100)"
done
rm -f target/suite.log

summary
