#!/usr/bin/env bash
# The hang-up suite: clients that reset or half-close at random points (mid-headers,
# mid-body, right after the body, while the answer is written) on every write endpoint
# (upload with and without Content-Length, create, combine, delete_video, delete_upload,
# brand kits), many times, on SQLite and on PostgreSQL (scripts/hangup.py). Afterwards the
# invariants hold: bytes on disk = bytes counted, no file without a row and no row without
# its file, the quota never passed, no video without its job, no deleted video's folder left.
#
# Seeded: HANGUP_SEED (default 1) reproduces a run; HANGUP_REQUESTS (default 600) per backend.
# PostgreSQL needs STILLREEL_TEST_PG_URL (scripts/postgres.sh); without it the suite fails.
# Prints `hangup: N passed`.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${STILLREEL_TEST_PG_URL:-}" ]; then
  # shellcheck source=scripts/postgres.sh
  source scripts/postgres.sh
fi

cargo build -p stillreel-server --bin stillreel --locked
bin=$PWD/target/debug/stillreel
seed="${HANGUP_SEED:-1}"
quota=$((3 * $(stat -c %s samples/logo.png) + 100))

work=$(mktemp -d)
server_pid=""
pg_db=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$pg_db" ]; then psql -q "$STILLREEL_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
for backend in sqlite postgres; do
  data="$work/$backend"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export STILLREEL_DATA_DIR="$data" STILLREEL_LISTEN="127.0.0.1:$port" STILLREEL_WORKERS=0 \
    STILLREEL_WEB_DIR="$work/no-web" STILLREEL_FETCH_ALLOW=127.0.0.1 RUST_LOG=error
  if [ "$backend" = postgres ]; then
    pg_db="hangup_$$"
    psql -q "$STILLREEL_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $pg_db" -c "CREATE DATABASE $pg_db" >/dev/null
    db_url="${STILLREEL_TEST_PG_URL%/*}/$pg_db"
    export STILLREEL_DATABASE_URL="$db_url"
    sql=(psql -q -At -F '|' "$db_url" -c)
  else
    unset STILLREEL_DATABASE_URL
    sql=(sqlite3 "$data/stillreel.db")
  fi
  mkdir -p "$data"
  "$bin" serve >"$work/$backend.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  account_json=$("$bin" accounts create hangup)
  key=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["api_key"])' "$account_json")
  account=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account"])' "$account_json")
  # Every account (the first-start one has no uploads): uuids are BLOBs on SQLite.
  "${sql[@]}" "UPDATE accounts SET upload_quota_bytes = $quota" >/dev/null
  if HANGUP_SEED="$seed" HANGUP_QUOTA="$quota" python3 scripts/hangup.py \
      "http://127.0.0.1:$port" "$key" "$account" "$data" "${sql[@]}"; then
    passed=$((passed + 1))
  else
    echo "hangup: $backend FAILED; server log:" >&2
    tail -20 "$work/$backend.log" >&2
  fi
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=""
done
echo "hangup: $passed passed (of 2 backends, seed $seed)"
[ "$passed" -eq 2 ]
