#!/usr/bin/env bash
# The cog suite: the `cog` model provider protocol against Replicate's real Cog server
# (`python -m cog.server.http` from PyPI's cog, installed by scripts/setup.sh into
# target/cog/venv), started without Docker on free ports, one server per test model of
# tests/cog/, behind the real stillreel server (crates/stillreel-server/tests/cog.rs):
#   success   depth (v25 with a depth map), staging (the model's picture in decoded frames),
#             clip (ai_engine generative: each clip the model's, ffprobed)
#   409       two jobs at once against one Cog server: both complete
#   422       a wrong input name: Cog's `loc: msg` in the video's error
#   starting  a video made while the model's setup() runs waits for it
#   failures  setup failed (at once, provider_unavailable), an exception in predict
#             (provider_failed), a time limit (the prediction cancelled on Cog), and the
#             measured time to fail of a dead, a busy and a broken host
#   calls     one prediction per input, however many clips and videos need it at once
#   health    /get_engines lists each role's last known health
# The tests are #[ignore]d in plain `cargo test`; they run here one at a time, so that the
# measured times are not another test's renders. Prints `cog: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${STILLREEL_TEST_PG_URL:-}" ]; then
  # shellcheck source=scripts/postgres.sh
  source scripts/postgres.sh
fi
if ! target/cog/venv/bin/python -c 'import cog, coglet' 2>/dev/null; then
  echo "cog: target/cog/venv has no cog: run scripts/setup.sh" >&2
  echo "cog: FAILED" >&2
  exit 1
fi

started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test -p stillreel-server --test cog --locked -- --ignored --test-threads=1 --nocapture 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
# The measured times, together at the end.
grep '^cog: ' "$log" || true
echo "cog: ${passed} passed, ${failed} failed in $(( $(date +%s) - started )) s"
if [ "$status" -ne 0 ] || [ "$passed" -lt 13 ]; then
  echo "cog: FAILED" >&2
  exit 1
fi
