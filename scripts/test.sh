#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what a fresh Debian machine lacks, starts the
# services the tests need, then runs every suite. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n==> %s\n' "$*"; }

step "setup"
bash scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (native)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "module structure (no import cycle; long files say why)"
python3 scripts/module_cycles.py crates/*/src >target/module-structure.log || { cat target/module-structure.log; exit 1; }
tail -n 1 target/module-structure.log

step "cargo check stillreel-core for wasm32"
cargo check -p stillreel-core --target wasm32-unknown-unknown --locked

# Suites that need services or other runtimes live in scripts/suites/, one file each, run in
# name order; each prints its own closing line and exits non-zero on failure.
# The S3 tests must run here, not skip: a missing moto fails them.
export STILLREEL_REQUIRE_MOTO=1

step "start PostgreSQL"
# shellcheck source=scripts/postgres.sh
source scripts/postgres.sh

step "cargo test --workspace"
cargo test --workspace --locked 2>&1 | tee target/cargo-test.log
passed=$(grep -Eo '[0-9]+ passed' target/cargo-test.log | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/cargo-test.log | awk '{s+=$1} END {print s+0}')

for suite in scripts/suites/*.sh; do
  [ -e "$suite" ] || continue
  step "suite $(basename "$suite")"
  bash "$suite"
done

step "summary"
echo "cargo: ${passed} passed, ${failed} failed"
