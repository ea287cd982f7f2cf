#!/usr/bin/env bash
# The scale-out suite: PostgreSQL + Garage (S3) + one API process (STILLREEL_WORKERS=0) +
# three `stillreel worker` processes with data dirs of their own, real processes all
# (crates/stillreel-server/tests/scale_out.rs). Scenarios, one test each, run one at a time
# (one of them restarts the machine's PostgreSQL):
#   a  3 videos x 6 clips complete: one clip record per index, 150 frames a clip, 900 the
#      video, audio and video within one frame, every URL through the API's 302
#   b  kill -9 of a worker's process group mid-clip: rescued within lease + sweep, no ffmpeg
#      of it survives, the video completes
#   c  SIGSTOP past the lease, then SIGCONT: the late worker records nothing, the video is right
#   d  PostgreSQL restarted mid-run (pg_ctlcluster ... restart): the videos complete
#   e  Garage killed with -9 mid-run, started again on the same data and port: the clips
#      stored before the kill are there, the videos complete
#
# Needs STILLREEL_TEST_PG_URL (scripts/postgres.sh) and Garage (scripts/setup.sh); a missing
# Garage fails here (STILLREEL_REQUIRE_S3=1), never skips. Prints `scale-out: N passed`.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${STILLREEL_TEST_PG_URL:-}" ]; then
  # shellcheck source=scripts/postgres.sh
  source scripts/postgres.sh
fi
export STILLREEL_REQUIRE_S3=1

started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test -p stillreel-server --test scale_out --locked -- --ignored --test-threads=1 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
echo "scale-out: ${passed} passed, ${failed} failed in $(( $(date +%s) - started )) s"
if [ "$status" -ne 0 ] || [ "$passed" -lt 5 ]; then
  echo "scale-out: FAILED" >&2
  exit 1
fi
