#!/usr/bin/env bash
# Scale-out benchmarks, figures in docs/BENCHMARKS.md ("Scale-out"):
#   (i)   queue claims per second with no-op jobs on PostgreSQL, 1 / 8 / 32 concurrent
#         claimers (crates/stillreel-server/examples/claims.rs: queue::claim_fair + complete)
#   (ii)  one 6-clip 720p video with 2 worker processes (one slot each) against 1
#   (iii) 8 videos x 6 clips with 1, 2 and 3 workers
#   (iv)  stitch tail (last clip recorded -> video complete), from PostgreSQL's timestamps
# (ii)-(iv) run real processes (bench/scale.py): one API with STILLREEL_WORKERS=0 and N
# `stillreel worker`s sharing a fresh database and a fresh moto bucket.
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
  echo "== (i) queue claims per second ($CLAIM_JOBS no-op jobs a round, $ROUNDS rounds)"
  STILLREEL_BENCH_PG_URL="$STILLREEL_TEST_PG_URL" \
    "$target/examples/claims" "$CLAIM_JOBS" "$ROUNDS" 1 8 32
fi

rest=""
for p in one batch; do [[ " $PARTS " == *" $p "* ]] && rest="$rest $p"; done
if [ -n "$rest" ]; then
  echo "== (ii)-(iv) workers:$rest"
  STILLREEL_BIN="$target/stillreel" MOTO_SERVER="$moto" \
    PG_ADMIN_URL="$STILLREEL_TEST_PG_URL" SAMPLES_DIR="$PWD/samples" \
    ROUNDS="$ROUNDS" BATCH_ROUNDS="$BATCH_ROUNDS" PARTS="$rest" python3 bench/scale.py
fi
