#!/usr/bin/env bash
# Schemathesis against the live server's OpenAPI document: generated requests (valid and
# invalid) for every operation, checked for 5xx answers and for responses that break the
# documented schema, status codes or content types.
#
# Installs schemathesis from PyPI into target/schemathesis/venv (once), builds and starts
# `stillreel serve` on a temp data dir with STILLREEL_WORKERS=0, creates an account with the
# CLI, runs schemathesis with its key, and prints `schemathesis: N passed, N failed`.
# Exits non-zero on any failure or when fewer than MIN_CASES requests were generated.
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-150}"
MIN_CASES=1000
venv=target/schemathesis/venv
st="$PWD/$venv/bin/schemathesis"

if ! "$st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "schemathesis: installing $SCHEMATHESIS_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi

cargo build -p stillreel-server --bin stillreel --locked
bin=target/debug/stillreel

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
export STILLREEL_DATA_DIR="$work/data" STILLREEL_LISTEN="127.0.0.1:$port" STILLREEL_WORKERS=0 \
  STILLREEL_WEB_DIR="$work/no-web" RUST_LOG=warn
unset STILLREEL_DATABASE_URL

# The account first (the CLI works with or without a running server), so `serve` finds one.
key=$("$bin" accounts create schemathesis | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
"$bin" serve >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
for _ in $(seq 1 100); do
  curl -sf "$base/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "$base/readyz" >/dev/null || { echo "schemathesis: server did not start"; cat "$work/serve.err"; exit 1; }

# Checks: everything schemathesis knows except
# - positive_data_acceptance: a body the schema allows can still be refused by rules a JSON
#   schema cannot express (unknown template ids, word-drop text after sanitizing, projects
#   that do not exist, the account's clip limit): those are 4xx by design;
# - the stateful checks (use_after_free, ensure_resource_availability): the document
#   declares no links between operations for them to follow.
set +e
# Run from the temp dir: hypothesis keeps its example database in the working directory.
(cd "$work" && "$st" run "$base/api/v1/openapi.json" --url "$base" \
  -H "Authorization: $key" \
  --checks all \
  --exclude-checks positive_data_acceptance,use_after_free,ensure_resource_availability \
  --max-examples "$MAX_EXAMPLES" --workers 2 --seed 20261122 \
  --no-color --report junit --report-dir "$work/report") >"$work/run.log" 2>&1
status=$?
set -e
tail -40 "$work/run.log"

# Keep the JUnit report and the log where they survive the temp dir.
junit=""
if ls "$work"/report/junit*.xml >/dev/null 2>&1; then
  junit=target/schemathesis/last-junit.xml
  cp "$(ls "$work"/report/junit*.xml | head -1)" "$junit"
fi
cp "$work/run.log" target/schemathesis/last-run.log
# Summary line: "N generated, N passed[, N skipped]" or "N generated, N found N unique failures".
read -r cases failed < <(python3 - "$work/run.log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
gen = re.search(r"(\d+) generated", text)
gen = int(gen.group(1)) if gen else 0
passed = re.search(r"generated, (\d+) passed", text)
found = re.search(r"found (\d+) unique failures?", text)
if passed:
    failed = gen - int(passed.group(1))
elif found:
    failed = int(found.group(1))
else:
    failed = 1  # no summary: count the run as failed
print(gen, failed)
PY
)
passed=$((cases - failed))
echo "schemathesis: ${passed} passed, ${failed} failed (${cases} generated requests; report: ${junit:-none})"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
  echo "schemathesis: FAILED (exit $status); server log tail:"; tail -20 "$work/serve.err"
  exit 1
fi
if [ "$cases" -lt "$MIN_CASES" ]; then
  echo "schemathesis: FAILED: only $cases requests generated (want >= $MIN_CASES)"
  exit 1
fi
