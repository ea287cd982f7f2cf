#!/usr/bin/env bash
# One video end to end through plain `stillreel serve`, the single-machine default (SQLite,
# local files, the render workers in the same process): the five bundled stills at 720p with
# the default engine, from POST /create_video to `complete` in GET /get_video (polled every
# 50 ms). Each run starts a fresh data dir and server, so no run is warmed by another.
#
#   bash bench/serve_video.sh                                  # RUNS=3
#   BASELINE_BIN=/path/to/old/stillreel bash bench/serve_video.sh
#   BIN=/path/to/stillreel BASELINE_BIN=... bash bench/serve_video.sh   # a prebuilt binary, no build
#   RESOLUTION=1080p CLIPS=6 WORKERS="1 2 3 4" bash bench/serve_video.sh   # 30 s at 1080p, per
#                                                                       # number of workers
#   RESOLUTION=1080p CLIPS=6 VIDEOS=4 WORKERS="2 4" bash bench/serve_video.sh  # 4 videos at once
#
# With BASELINE_BIN (a release `stillreel` of an earlier commit) the runs alternate between
# the two binaries, and the summary gives both medians and their ratio (new / baseline).
# WORKERS (a list) runs the binary once per value in every round, with STILLREEL_WORKERS and
# STILLREEL_ACCOUNT_MAX_RUNNING set to it (the runs' one account may fill every slot); unset,
# the server's own defaults apply. CLIPS (default 5) photos per video, taken in turn from the
# bundled samples; VIDEOS (default 1) identical videos created at once, timed from the first
# create to the last `complete`.
#
# Every round also times the ENCODER FLOOR: x264 alone, with the clips' settings, encoding the
# same frames (the round's video decoded to raw yuv420p in /dev/shm beforehand; VIDEOS encodes
# at once), and the summary gives the median of the per-round ratios video / floor: what the
# whole API adds to the one cost it cannot avoid.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
RESOLUTION="${RESOLUTION:-720p}"
CLIPS="${CLIPS:-5}"
VIDEOS="${VIDEOS:-1}"
if [ -n "${BIN:-}" ]; then
  bin="$(realpath "$BIN")"
else
  cargo build -q --release --locked -p stillreel-server --bin stillreel
  bin="$PWD/target/release/stillreel"
fi

work=$(mktemp -d)
spid=""
cleanup() {
  [ -n "$spid" ] && { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# once NAME BINARY [WORKERS]: one fresh server, VIDEOS videos; appends "NAME seconds" to
# $work/results.
once() {
  local name=$1 binary=$2 slots=${3:-} port data key
  port=$(free_port); data="$work/data-$name-$RANDOM"
  export STILLREEL_DATA_DIR="$data" STILLREEL_LISTEN="127.0.0.1:$port" \
    STILLREEL_PUBLIC_URL="http://127.0.0.1:$port" STILLREEL_SAMPLES_DIR="$PWD/samples" \
    STILLREEL_WEB_DIR="$work/no-web" RUST_LOG=warn
  unset STILLREEL_DATABASE_URL STILLREEL_STORAGE_URL STILLREEL_WORKERS STILLREEL_ACCOUNT_MAX_RUNNING
  if [ -n "$slots" ]; then export STILLREEL_WORKERS="$slots" STILLREEL_ACCOUNT_MAX_RUNNING="$slots"; fi
  key=$("$binary" accounts create bench | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
  "$binary" serve >"$work/$name.out" 2>>"$work/$name.log" &
  spid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  python3 - "$name" "$port" "$key" "$RESOLUTION" "$CLIPS" "$VIDEOS" >>"$work/results" <<'PY'
import json, sys, time, urllib.request
name, port, key, resolution = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
clips, videos = int(sys.argv[5]), int(sys.argv[6])
base = f"http://127.0.0.1:{port}"
samples = ["house-colonial.jpg", "house-bungalow.jpg", "living-room.png",
           "house-townhouse-portrait.jpg", "house-farm-exif-rotated.jpg", "house-modern.webp"]
images = [samples[i % len(samples)] for i in range(clips)]
body = {"image_inputs": [{"image_url": f"{base}/samples/{i}", "camera_motion": "push-in"} for i in images],
        "resolution": resolution}
def call(path, data=None):
    req = urllib.request.Request(base + path, data=json.dumps(data).encode() if data else None,
                                 headers={"Authorization": key, "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)
start = time.monotonic()
pending = {call("/api/v1/create_video", body)["uuid"] for _ in range(videos)}
while pending:
    for uuid in sorted(pending):
        video = call(f"/api/v1/get_video?uuid={uuid}")
        if video["status"] == "error":
            sys.exit(f"{name}: a video ended in error: {video.get('error')}")
        if video["status"] == "complete":
            pending.discard(uuid)
    time.sleep(0.05)
took = time.monotonic() - start
print(name, f"{took:.2f}")
PY
  kill "$spid"; wait "$spid" 2>/dev/null || true; spid=""
  tail -1 "$work/results"
  floor "$name" "$data"
}

# floor NAME DATA_DIR: the encoder floor for the video this round made (see the header).
floor() {
  local name=$1 data=$2 video frames w h level started
  video=$(find "$data" -name "video-*.mp4" | head -1)
  [ -n "$video" ] || { echo "floor: no video under $data" >&2; return; }
  frames=/dev/shm/stillreel-floor-$$.yuv
  ffmpeg -nostdin -v error -y -i "$video" -an -f rawvideo -pix_fmt yuv420p "$frames"
  read -r w h < <(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 "$video" | tr , ' ')
  level=3.1; [ "$h" -gt 720 ] && [ "$w" -gt 720 ] && level=4.1
  started=$(date +%s.%N)
  for n in $(seq 1 "$VIDEOS"); do
    ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt yuv420p -s "${w}x${h}" -framerate 30 -i "$frames" \
      -an -c:v libx264 -preset veryfast -crf 20 -profile:v high -level:v "$level" -pix_fmt yuv420p \
      -r 30 -g 60 -video_track_timescale 15360 -movflags +faststart -f mp4 "$work/floor-$n.mp4" &
  done
  wait
  echo "floor-$name $(python3 -c "import time; print(f'{time.time() - $started:.2f}')")" >>"$work/results"
  rm -f "$frames"
  tail -1 "$work/results"
}

for run in $(seq 1 "$RUNS"); do
  echo "run $run/$RUNS"
  if [ -n "${WORKERS:-}" ]; then
    for slots in $WORKERS; do once "workers-$slots" "$bin" "$slots"; done
  else
    once new "$bin"
  fi
  if [ -n "${BASELINE_BIN:-}" ]; then once baseline "$BASELINE_BIN"; fi
done

python3 - "$work/results" "$RUNS" "$RESOLUTION" "$CLIPS" "$VIDEOS" "$(nproc)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
times = {}
for name, t in rows:
    times.setdefault(name, []).append(float(t))
what = "one video" if sys.argv[5] == "1" else f"{sys.argv[5]} videos at once"
print(f"\n{what}, {sys.argv[4]} images, {sys.argv[3]}, through `stillreel serve` on {sys.argv[6]} cores, "
      f"medians of {sys.argv[2]} runs")
for name, ts in times.items():
    print(f"{name:<15} {statistics.median(ts):7.2f} s  (runs {' / '.join(f'{t:.2f}' for t in ts)})")
for name in [n for n in times if not n.startswith("floor-")]:
    if name in times and f"floor-{name}" in times:
        ratios = [t / f for t, f in zip(times[name], times[f"floor-{name}"])]
        print(f"{name} / its encoder floor, median of per-round ratios: {statistics.median(ratios):.3f} x"
              f"  (rounds {' / '.join(f'{r:.3f}' for r in ratios)})")
if "baseline" in times:
    print(f"new / baseline: {statistics.median(times['new']) / statistics.median(times['baseline']):.2f} x")
PY
