#!/usr/bin/env bash
# The wasm module and the npm package `stillreel` (web/): clippy for wasm32, the case table in
# headless Chromium (wasm-bindgen-test), the package build (wasm-pack + npm binaryen wasm-opt,
# settings from /wasm-pack.toml), Node tests of the built package and its client (against a
# started server), the packed tarball installed and imported, the README's npm steps run as
# written (test/readme.test.mjs), the size budget, and the form's end-to-end tests (the key's
# storage and the CSP in e2e/key.test.mjs; live parts only when a server is available).
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n--> %s\n' "$*"; }
log=target/wasm-web-suite
mkdir -p "$log"

step "clippy stillreel-wasm (wasm32)"
cargo clippy -p stillreel-wasm --target wasm32-unknown-unknown --all-targets -- -D warnings

step "npm ci (web/)"
# Idempotent: reinstall only when the lock file changed since the last install.
if ! cmp -s web/package-lock.json web/node_modules/.package-lock.json 2>/dev/null; then
  (cd web && npm ci --no-audit --no-fund)
fi

step "native: generated TypeScript types and the native outcome snapshot are fresh"
cargo test -p stillreel-wasm

step "wasm-bindgen-test in headless Chromium"
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p stillreel-wasm --target wasm32-unknown-unknown --test browser 2>&1 | tee "$log/browser.log"
# wasm-bindgen-test prints "skipping" and exits 0 when it runs nothing: count what ran.
ran=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$log/browser.log" | awk '{s+=$4} END {print s+0}')
expected=$(grep -Ec '^\s*(#\[wasm_bindgen_test\]|cases_[a-z_]+ => )' crates/stillreel-wasm/tests/browser.rs)
if ! grep -q 'Running headless tests in Chrome' "$log/browser.log" || [ "$ran" -lt "$expected" ] || [ "$ran" -eq 0 ]; then
  echo "wasm-web: the browser suite ran $ran tests, expected at least $expected (in Chrome)" >&2
  exit 1
fi

step "npm run build (web/)"
(cd web && npm run build)

step "the stillreel binary (the client tests and the form's end-to-end test start it)"
cargo build -p stillreel-server --bin stillreel

step "node --test: the built package, the client against a started server, npm pack + install (Node, Chromium); the TypeScript types"
(cd web && STILLREEL_BIN="$PWD/../target/debug/stillreel" STILLREEL_REQUIRE_SERVER=1 npm test && npm run typecheck)

step "size budget"
(cd web && npm run size)

step "form end-to-end (Playwright, Chromium)"
(cd web && STILLREEL_BIN="$PWD/../target/debug/stillreel" STILLREEL_REQUIRE_SERVER=1 npm run e2e)

echo "wasm-web: ok ($ran browser tests)"
