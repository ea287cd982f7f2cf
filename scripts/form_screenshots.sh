#!/usr/bin/env bash
# Refreshes the form's screenshots committed in docs/ (docs/form-*.png, listed in web/README.md):
# runs the form's end-to-end tests that take them (web/e2e/) with STILLREEL_E2E_SHOTS_DIR=docs.
# Test runs (scripts/test.sh, `npm run e2e`) save the same screenshots under target/e2e-shots/,
# so testing leaves the working tree clean; run this when the form's look changes and commit
# the PNGs it rewrites. Needs Chromium (scripts/setup.sh installs it).
# Usage: bash scripts/form_screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
(cd web && { cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null || npm ci --no-audit --no-fund; } \
  && npm run build)
cargo build -p stillreel-server --bin stillreel --locked
(cd web && STILLREEL_BIN="$PWD/../target/debug/stillreel" STILLREEL_REQUIRE_SERVER=1 STILLREEL_E2E_SHOTS_DIR=docs \
  node --test --test-concurrency=1 e2e/form.test.mjs e2e/account.test.mjs e2e/library.test.mjs e2e/preview-form.test.mjs)
echo "form-screenshots: docs/form-*.png rewritten; changed:"
git status --short -- 'docs/form-*.png'
