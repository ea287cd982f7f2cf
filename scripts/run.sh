#!/usr/bin/env bash
# Runs stillreel with its embedded defaults: SQLite and local files under ./data, the web form
# at http://127.0.0.1:8080/, render workers in the same process. Works offline: the bundled
# sample photos are served at /samples/ and read from disk by the renderer.
# First run: installs what the machine lacks, builds the form and the release binary, creates a
# local account and prints its API key. Later runs reuse all of that.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh run

# The browser form and its two wasm modules (web/dist: validation, and the preview's camera),
# rebuilt when missing or older than any of their sources (after a pull, a stale form would
# validate with old rules or preview with an old camera).
stale_web() {
  [ ! -f web/dist/index.html ] && return 0
  [ -n "$(find crates/stillreel-core crates/stillreel-wasm crates/stillreel-preview \
      crates/stillreel-camera crates/stillreel-effects web/src web/form web/scripts web/package-lock.json \
      wasm-pack.toml Cargo.toml Cargo.lock -newer web/dist/index.html -type f -print -quit 2>/dev/null)" ]
}
if stale_web; then
  (cd web && { cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null || npm ci --no-audit --no-fund; } && npm run build)
fi

cargo build --release --locked -p stillreel-server --bin stillreel
exec target/release/stillreel serve "$@"
