#!/usr/bin/env bash
# Scale-out benchmarks, figures in docs/BENCHMARKS.md ("Scale-out"):
#   (i)   queue claims per second with no-op jobs on PostgreSQL, 1 / 8 / 32 concurrent
#         claimers (crates/stillreel-server/examples/claims.rs: queue::claim_fair + complete),
#         beside the floor of a bare FOR UPDATE SKIP LOCKED claim and its completion run by
#         pgbench on the same server (bench/claim_floor.sql), and ours / floor
#   (ii)  one 6-clip 720p video with 2 worker processes (one slot each) against 1
#   (iii) 8 videos x 6 clips with 1, 2 and 3 workers
#   (iv)  stitch tail (last clip recorded -> video complete), from PostgreSQL's timestamps
# (ii)-(iv) run real processes (bench/scale.py): one API with STILLREEL_WORKERS=0 and N
# `stillreel worker`s sharing a fresh database and a fresh moto bucket, each worker pinned to
# a core of its own with taskset (PIN=0: unpinned).
#
#   bash bench/scale.sh                       # everything: ~15 min on 2 cores
#   PARTS="claims" bash bench/scale.sh        # only (i); also: one, batch
#   ROUNDS=5 BATCH_ROUNDS=2 CLAIM_JOBS=5000 bash bench/scale.sh
#   PROFILE=dev bash bench/scale.sh           # debug build: no 10-minute LTO link on a busy
#                                             # machine; the renders are ffmpeg's either way
#
# Needs PostgreSQL (started here through scripts/postgres.sh unless STILLREEL_TEST_PG_URL is
# set) and moto (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS="${PARTS:-claims one batch}"
ROUNDS="${ROUNDS:-3}"
BATCH_ROUNDS="${BATCH_ROUNDS:-1}"
CLAIM_JOBS="${CLAIM_JOBS:-3000}"
PROFILE="${PROFILE:-release}"

if [ -z "${STILLREEL_TEST_PG_URL:-}" ]; then
  # shellcheck source=scripts/postgres.sh
  source scripts/postgres.sh
fi
moto="${MOTO_SERVER:-$PWD/target/moto/venv/bin/moto_server}"
[ -x "$moto" ] || { echo "moto_server missing at $moto: run scripts/setup.sh" >&2; exit 1; }

cargo build --profile "$PROFILE" -p stillreel-server --bin stillreel --example claims --locked
target="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")"

echo "machine: $(nproc) cores, $(ffmpeg -version | head -1 | cut -d' ' -f1-3), PostgreSQL $(psql "$STILLREEL_TEST_PG_URL" -qAtc 'SHOW server_version')"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)'), profile $PROFILE"

if [[ " $PARTS " == *" claims "* ]]; then
  # Ours and the floor alternate, one round each at a time (ours at C claimers, then the floor
  # at C clients, for C in 1 8 32, ROUNDS times), so load from other processes falls on both
  # alike; each pair gives a ratio, and the medians and the median ratio are reported.
  echo "== (i) queue claims per second beside the floor, pgbench + bench/claim_floor.sql ($CLAIM_JOBS no-op jobs a round, $ROUNDS rounds interleaved)"
  floor_url="$(python3 -c 'import sys, re; u = sys.argv[1]; b, _, q = u.partition("?"); print(re.sub(r"/[^/]*$", "/stillreel_floor", b) + ("?" + q if q else ""))' "$STILLREEL_TEST_PG_URL")"
  psql "$STILLREEL_TEST_PG_URL" -qc "DROP DATABASE IF EXISTS stillreel_floor" -c "CREATE DATABASE stillreel_floor"
  psql "$floor_url" -q -c "CREATE TABLE floor_jobs (id bigserial PRIMARY KEY, state text NOT NULL,
                                                   lease_token text)" \
    -c "CREATE INDEX floor_jobs_queued ON floor_jobs (id) WHERE state = 'queued'"
  declare -A ours_rates floor_rates ratios
  for _ in $(seq "$ROUNDS"); do
    for c in 1 8 32; do
      mine="$(STILLREEL_BENCH_PG_URL="$STILLREEL_TEST_PG_URL" "$target/examples/claims" "$CLAIM_JOBS" 1 "$c" \
        | sed -n "s/^claims claimers=$c round=1 rate=\([0-9.]*\).*/\1/p")"
      psql "$floor_url" -q -c "TRUNCATE floor_jobs" \
        -c "INSERT INTO floor_jobs (state) SELECT 'queued' FROM generate_series(1, $CLAIM_JOBS + $c)" \
        -c "VACUUM ANALYZE floor_jobs"
      floor="$(pgbench -n -f bench/claim_floor.sql -c "$c" -j "$c" -t $((CLAIM_JOBS / c)) "$floor_url" 2>/dev/null \
        | awk '/^tps/ {print $3; exit}')"
      ratio="$(awk -v a="$mine" -v b="$floor" 'BEGIN {printf "%.2f", a / b}')"
      echo "round claimers=$c ours=$mine/s floor=$floor/s ours/floor=$ratio"
      ours_rates[$c]+="$mine "; floor_rates[$c]+="$floor "; ratios[$c]+="$ratio "
    done
  done
  med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  for c in 1 8 32; do
    echo "claims claimers=$c ours median=$(med <<<"${ours_rates[$c]}")/s ($(tr ' ' / <<<"${ours_rates[$c]% }")) floor median=$(med <<<"${floor_rates[$c]}")/s ($(tr ' ' / <<<"${floor_rates[$c]% }")) ours/floor median=$(med <<<"${ratios[$c]}") ($(tr ' ' / <<<"${ratios[$c]% }"))"
  done
  psql "$STILLREEL_TEST_PG_URL" -qc "DROP DATABASE IF EXISTS stillreel_floor"
fi

rest=""
for p in one batch; do [[ " $PARTS " == *" $p "* ]] && rest="$rest $p"; done
if [ -n "$rest" ]; then
  echo "== (ii)-(iv) workers:$rest"
  STILLREEL_BIN="$target/stillreel" MOTO_SERVER="$moto" \
    PG_ADMIN_URL="$STILLREEL_TEST_PG_URL" SAMPLES_DIR="$PWD/samples" \
    ROUNDS="$ROUNDS" BATCH_ROUNDS="$BATCH_ROUNDS" PARTS="$rest" python3 bench/scale.py
fi
