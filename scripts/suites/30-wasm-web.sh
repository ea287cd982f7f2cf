#!/usr/bin/env bash
# The wasm modules and the npm package `stillreel` (web/): clippy for wasm32, the case table in
# headless Chromium (wasm-bindgen-test), the package build (both modules: wasm-pack + npm
# binaryen wasm-opt, settings from /wasm-pack.toml), Node tests of the built package and its
# client (against a started server), the packed tarball installed and imported, the README's npm
# steps run as written (test/readme.test.mjs), both size budgets, the form's end-to-end tests
# (the key's storage and the CSP in e2e/key.test.mjs; live parts only when a server is
# available), the preview's same-pixels test against the renderer's frames
# (e2e/preview.test.mjs) and its speed (bench/preview.mjs, at least 30 fps at 640 x 360).
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n--> %s\n' "$*"; }
log=target/wasm-web-suite
mkdir -p "$log"

step "clippy stillreel-wasm and stillreel-preview (wasm32)"
cargo clippy -p stillreel-wasm -p stillreel-preview --target wasm32-unknown-unknown --all-targets -- -D warnings

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

step "the renderer's reference frames for the preview's same-pixels test"
rm -rf target/preview-ref
cargo run --quiet -p stillreel-render --example reference_frames -- target/preview-ref

step "form end-to-end and the preview's same pixels (Playwright, Chromium)"
(cd web && STILLREEL_BIN="$PWD/../target/debug/stillreel" STILLREEL_REQUIRE_SERVER=1 \
  STILLREEL_PREVIEW_REF="$PWD/../target/preview-ref" npm run e2e)

step "preview speed (headless Chromium): at least 30 fps at 640 x 360"
node bench/preview.mjs --runs 3 --min-fps 30 | tee "$log/preview-speed.log"

echo "wasm-web: ok ($ran browser tests; $(grep -Eo '640x360 at [0-9.]+ fps' "$log/preview-speed.log"))"
