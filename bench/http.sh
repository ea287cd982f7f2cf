#!/usr/bin/env bash
# HTTP benchmark of the API: wrk, 1 thread, 64 connections, against a release
# `stillreel serve` on SQLite with STILLREEL_WORKERS=0, beside a bare axum handler answering
# the same get_video body, in the same run. Rounds interleave the three targets; medians are
# reported. Peak RSS of the server is VmHWM from /proc at the end.
#
#   bash bench/http.sh            # 3 rounds of 10 s each per target
#   ROUNDS=5 DURATION=20s bash bench/http.sh
#   BASELINE_BIN=/path/to/old/stillreel bash bench/http.sh
#   BIN=/path/to/stillreel BARE=/path/to/bare bash bench/http.sh   # prebuilt binaries, no build
#
# With BASELINE_BIN (a `stillreel` binary of an earlier commit, built --release), that binary
# is served too, on its own fresh data dir, and each round also runs get_video and
# create_video against it, interleaved with the others; the table adds the two and their
# ratios new/baseline, measured side by side.
#
# Also: get_videos listing one page of 50 videos (an account of its own holding exactly 50),
# and the memory a 20 MB photo upload costs a fresh server (VmHWM growth over the upload).
#
# Targets (docs/BENCHMARKS.md): get_video >= 40 % of bare req/s; create_video >= 2000 req/s with
# p99 <= 50 ms; peak RSS <= 100 MB; get_videos (50 per page) >= 5000 req/s; a 20 MB upload
# grows the server's peak RSS by < 10 MB.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
CONNECTIONS=64

if [ -n "${BIN:-}" ] && [ -n "${BARE:-}" ]; then
  bin="$BIN"; bare="$BARE"
else
  cargo build --release -p stillreel-server --bin stillreel --example bare --locked
  bin=target/release/stillreel
  bare=target/release/examples/bare
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sport=$(free_port); bport=$(free_port)
export STILLREEL_DATA_DIR="$work/data" STILLREEL_LISTEN="127.0.0.1:$sport" STILLREEL_WORKERS=0 \
  STILLREEL_WEB_DIR="$work/no-web" RUST_LOG="${RUST_LOG:-info}"
unset STILLREEL_DATABASE_URL

key=$("$bin" accounts create bench | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
export STILLREEL_BENCH_KEY="$key"
"$bin" serve >"$work/serve.out" 2>"$work/serve.log" &
spid=$!; pids+=("$spid")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$sport/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

# The video get_video reads: one made of five images, as the create_video run makes them.
body=$(sed -n '/^wrk.body = \[\[/,/\]\]$/p' bench/create_video.lua | sed '1s/^wrk.body = \[\[//; $s/\]\]$//')
video=$(curl -sf "http://127.0.0.1:$sport/api/v1/create_video" -H "Authorization: $key" \
  -H 'content-type: application/json' -d "$body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])')
curl -sf "http://127.0.0.1:$sport/api/v1/get_video?uuid=$video" -H "Authorization: $key" >"$work/record.json"
# A second server on the same database with the get_video cache off, to show the uncached
# path too (SQLite allows several processes; this one only reads).
uport=$(free_port)
STILLREEL_LISTEN="127.0.0.1:$uport" STILLREEL_GET_VIDEO_CACHE=off "$bin" serve >"$work/serve2.out" 2>"$work/serve2.log" &
upid=$!; pids+=("$upid")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$uport/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
BARE_LISTEN="127.0.0.1:$bport" BARE_BODY_FILE="$work/record.json" "$bare" &
bpid=$!; pids+=("$bpid")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$bport/api/v1/get_video" >/dev/null 2>&1 && break; sleep 0.1; done
echo "record body: $(wc -c <"$work/record.json") bytes; server pid $spid, bare pid $bpid"

# The library: an account of its own with exactly 50 videos, listed as one page.
lkey=$("$bin" accounts create library | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$sport/api/v1/create_video" -H "Authorization: $lkey" \
    -H 'content-type: application/json' -d "$body" >/dev/null
done
listed=$(curl -sf "http://127.0.0.1:$sport/api/v1/get_videos?limit=50" -H "Authorization: $lkey" \
  | tee "$work/list.json" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["videos"]))')
echo "get_videos page: $listed videos, $(wc -c <"$work/list.json") bytes"

# The baseline server, if any: same settings, its own data dir, its own account and video.
if [ -n "${BASELINE_BIN:-}" ]; then
  oport=$(free_port)
  okey=$(STILLREEL_DATA_DIR="$work/base-data" "$BASELINE_BIN" accounts create bench \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
  STILLREEL_DATA_DIR="$work/base-data" STILLREEL_LISTEN="127.0.0.1:$oport" "$BASELINE_BIN" serve \
    >"$work/base.out" 2>"$work/base.log" &
  opid=$!; pids+=("$opid")
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$oport/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  ovideo=$(curl -sf "http://127.0.0.1:$oport/api/v1/create_video" -H "Authorization: $okey" \
    -H 'content-type: application/json' -d "$body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])')
  echo "baseline: $BASELINE_BIN (pid $opid)"
fi

# run NAME URL [wrk args...]: appends "NAME rps p99_ms non200" to $work/results
run() {
  local name=$1 url=$2; shift 2
  local out
  out=$(wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url")
  echo "$out" >>"$work/wrk.log"
  python3 - "$name" "$out" >>"$work/results" <<'PY'
import re, sys
name, out = sys.argv[1], sys.argv[2]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
bad = re.search(r"non200 (\d+)", out)
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
socket = re.search(r"Socket errors: (.*)", out)
nbad = int(bad.group(1)) if bad else (int(errors.group(1)) if errors else 0)
print(name, rps, p99, nbad, "socket-errors" if socket else "")
PY
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS"
  run bare "http://127.0.0.1:$bport/api/v1/get_video"
  run get_video "http://127.0.0.1:$sport/api/v1/get_video?uuid=$video" -s bench/get_video.lua
  run get_uncached "http://127.0.0.1:$uport/api/v1/get_video?uuid=$video" -s bench/get_video.lua
  run create_video "http://127.0.0.1:$sport/api/v1/create_video" -s bench/create_video.lua
  STILLREEL_BENCH_KEY="$lkey" run get_videos "http://127.0.0.1:$sport/api/v1/get_videos?limit=50" -s bench/get_video.lua
  if [ -n "${BASELINE_BIN:-}" ]; then
    STILLREEL_BENCH_KEY="$okey" run base_get_video "http://127.0.0.1:$oport/api/v1/get_video?uuid=$ovideo" -s bench/get_video.lua
    STILLREEL_BENCH_KEY="$okey" run base_create_video "http://127.0.0.1:$oport/api/v1/create_video" -s bench/create_video.lua
  fi
done

# Upload memory: a fresh server (nothing else has touched its heap), one 20 MB photo of
# noise (JPEG at the best quality, so it stays about that big), peak RSS before and after.
photo="$work/photo.jpg"
ffmpeg -v error -f lavfi -i "nullsrc=s=6000x4600,geq=lum='random(1)*255':cb=128:cr=128" \
  -frames:v 1 -q:v 1 -y "$photo"
mport=$(free_port)
STILLREEL_LISTEN="127.0.0.1:$mport" "$bin" serve >"$work/serve3.out" 2>"$work/serve3.log" &
mpid=$!; pids+=("$mpid")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$mport/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$mport/api/v1/get_account" -H "Authorization: $lkey" >/dev/null
hwm_before=$(awk '/VmHWM/ {print $2}' "/proc/$mpid/status")
curl -sf "http://127.0.0.1:$mport/api/v1/upload_media" -H "Authorization: $lkey" \
  -H 'content-type: image/jpeg' --data-binary @"$photo" >"$work/upload.json"
hwm_after=$(awk '/VmHWM/ {print $2}' "/proc/$mpid/status")
photo_bytes=$(stat -c %s "$photo")
echo "upload: $(cat "$work/upload.json")"

echo "per round (target req/s p99_ms non-200):"; cat "$work/results"
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$spid/status")
bare_rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$bpid/status")
python3 - "$work/results" "$rss_kb" "$bare_rss_kb" "$ROUNDS" "$DURATION" "$hwm_before" "$hwm_after" "$photo_bytes" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
def med(name, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == name)
def bad(name):
    return sum(int(r[3]) for r in rows if r[0] == name)
rss = int(sys.argv[2]) / 1024
bare_rss = int(sys.argv[3]) / 1024
bare, get, create = med("bare", 1), med("get_video", 1), med("create_video", 1)
print(f"\nmedians of {sys.argv[4]} rounds x {sys.argv[5]}, wrk -t1 -c64")
print(f"{'target':<14}{'req/s':>10}{'p99 ms':>10}{'non-200':>9}")
for name in ("bare", "get_video", "get_uncached", "create_video", "get_videos"):
    print(f"{name:<14}{med(name, 1):>10.0f}{med(name, 2):>10.2f}{bad(name):>9}")
ratio = get / bare
print(f"get_video / bare: {ratio:.1%} (target >= 40%); uncached (cache off): {med('get_uncached', 1) / bare:.1%}")
print(f"create_video: {create:.0f} req/s, p99 {med('create_video', 2):.1f} ms (target >= 2000 req/s, p99 <= 50 ms)")
print(f"server peak RSS (VmHWM): {rss:.1f} MB (target <= 100 MB); bare: {bare_rss:.1f} MB")
if any(r[0] == "base_get_video" for r in rows):
    print(f"{'baseline get':<14}{med('base_get_video', 1):>10.0f}{med('base_get_video', 2):>10.2f}{bad('base_get_video'):>9}")
    print(f"{'baseline create':<14}{med('base_create_video', 1):>10.0f}{med('base_create_video', 2):>10.2f}{bad('base_create_video'):>9}")
    print(f"new / baseline: get_video {get / med('base_get_video', 1):.2f} x, create_video {create / med('base_create_video', 1):.2f} x")
listing = med("get_videos", 1)
growth = (int(sys.argv[7]) - int(sys.argv[6])) / 1024
print(f"get_videos (50 per page): {listing:.0f} req/s, p99 {med('get_videos', 2):.1f} ms (target >= 5000 req/s)")
print(f"upload of a {int(sys.argv[8]) / 1e6:.1f} MB photo: peak RSS {int(sys.argv[6]) / 1024:.1f} -> {int(sys.argv[7]) / 1024:.1f} MB, growth {growth:.1f} MB (target < 10 MB)")
ok = listing >= 5000 and growth < 10 and bad("get_videos") == 0 and ratio >= 0.40 and create >= 2000 and med("create_video", 2) <= 50 and rss <= 100 and bad("get_video") == 0 and bad("create_video") == 0
print("targets:", "met" if ok else "NOT met")
PY
echo "videos stored: $(curl -sf "http://127.0.0.1:$sport/metrics" | awk '/^stillreel_jobs\{state="queued"\}/ {print $2}') queued jobs"
