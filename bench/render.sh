#!/usr/bin/env bash
# Render benchmark (figures in docs/BENCHMARKS.md). Five bundled stills (samples/, mixed sizes up to
# 2400x1600) into 25 s of push-in video through stillreel-render, beside one hand-written ffmpeg
# command (bench/baseline-ffmpeg.sh) and a MoviePy Ken Burns slideshow, in the same run; then
# combining 10 stored clips (50 s). Prints a Markdown table for docs/BENCHMARKS.md. RUNS (default 3)
# runs per measurement, median reported. Usage: bench/render.sh
#   BASELINE_RENDER_BENCH=/path/to/old/render_bench bench/render.sh   # also an earlier build, side by side
#   SKIP_MOVIEPY=1 bench/render.sh                                     # without the MoviePy run
#   RESOLUTIONS=720p RUNS=5 bench/render.sh                            # one resolution only
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OUT="$PWD/bench/out"; mkdir -p "$OUT"
IMAGES=(samples/house-colonial.jpg samples/house-bungalow.jpg samples/living-room.png \
        samples/house-townhouse-portrait.jpg samples/house-farm-exif-rotated.jpg)
for img in "${IMAGES[@]}"; do
  if [ ! -f "$img" ]; then
    # samples/ missing: generate stills of the same sizes.
    mkdir -p "$OUT/stills"; img="$OUT/stills/$(basename "${img%.*}").jpg"
    ffmpeg -v error -y -f lavfi -i "testsrc2=s=2400x1600" -frames:v 1 "$img"
  fi
done
cargo build -q --release -p stillreel-render --example render_bench
BIN=target/release/examples/render_bench
VENV=target/bench-venv
if [ -z "${SKIP_MOVIEPY:-}" ] && [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; "$VENV/bin/pip" install -q moviepy; fi

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
peak() { sort -n "$1" | tail -1; }

for res in ${RESOLUTIONS:-720p 1080p}; do
  size=1280x720; [ "$res" = 1080p ] && size=1920x1080
  : > "$OUT/ours-$res.txt"; : > "$OUT/base-$res.txt"; : > "$OUT/comb-$res.txt"; : > "$OUT/old-$res.txt"; : > "$OUT/oldcomb-$res.txt"
  export PEAK_LOG="$OUT/peak-ours-$res.log"; : > "$PEAK_LOG"
  for _ in $(seq "$RUNS"); do
    json=$(STILLREEL_FFMPEG="$PWD/bench/ffmpeg-peak-mem.sh" "$BIN" "$OUT" "$res" "${IMAGES[@]}")
    echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["render_wall"])' >> "$OUT/ours-$res.txt"
    echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["combine_wall"])' >> "$OUT/comb-$res.txt"
    PEAK_LOG="$OUT/peak-base-$res.log" wall env FFMPEG="$PWD/bench/ffmpeg-peak-mem.sh" \
      bench/baseline-ffmpeg.sh "$size" "$OUT/baseline-$res.mp4" "${IMAGES[@]}" >> "$OUT/base-$res.txt"
    if [ -n "${BASELINE_RENDER_BENCH:-}" ]; then
      oj=$("$BASELINE_RENDER_BENCH" "$OUT" "$res" "${IMAGES[@]}")
      echo "$oj" | python3 -c 'import json,sys; print(json.load(sys.stdin)["render_wall"])' >> "$OUT/old-$res.txt"
      echo "$oj" | python3 -c 'import json,sys; print(json.load(sys.stdin)["combine_wall"])' >> "$OUT/oldcomb-$res.txt"
    fi
  done
  ours=$(median < "$OUT/ours-$res.txt"); base=$(median < "$OUT/base-$res.txt"); comb=$(median < "$OUT/comb-$res.txt")
  old=""
  if [ -s "$OUT/old-$res.txt" ]; then
    o=$(median < "$OUT/old-$res.txt")
    old=" earlier_build=$o ours/earlier=$(echo "$ours / $o" | bc -l | cut -c1-5) earlier_combine=$(median < "$OUT/oldcomb-$res.txt")"
  fi
  echo "$res ours=$ours base=$base$old combine=$comb peak_ours_kib=$(peak "$OUT/peak-ours-$res.log") peak_base_kib=$(peak "$OUT/peak-base-$res.log")" | tee -a "$OUT/summary.txt"
done
if [ -z "${SKIP_MOVIEPY:-}" ]; then
  mp=$(wall "$VENV/bin/python" bench/moviepy_kenburns.py 1280 720 "$OUT/moviepy-720p.mp4" "${IMAGES[@]}")
  echo "moviepy720 $mp" | tee -a "$OUT/summary.txt"
fi
