#!/usr/bin/env bash
# Transition benchmark (figures in docs/BENCHMARKS.md): a 10-clip 720p video (the five bundled
# stills twice, push-in) rendered through the real pipeline with `transition` cut and
# crossfade, interleaved, median of RUNS (default 3) of `render_bench`'s render wall (fetch,
# clips two at a time, stitch: with a crossfade the stitch encodes one seam per join and copies
# the rest). Also reports the combine of 10 stored clips each way (the stitch alone).
# Usage: bench/transition.sh        RESOLUTION=1080p bench/transition.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
RES=${RESOLUTION:-720p}
OUT="$PWD/bench/out/transition"; mkdir -p "$OUT"
# BUILD=debug: the debug driver (ffmpeg does the work either way; saves the slow LTO link).
if [ "${BUILD:-release}" = debug ]; then
  cargo build -q -p stillreel-render --example render_bench; BIN=target/debug/examples/render_bench
else
  cargo build -q --release -p stillreel-render --example render_bench; BIN=target/release/examples/render_bench
fi
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
IMAGES=(samples/house-colonial.jpg samples/house-bungalow.jpg samples/living-room.png
        samples/house-townhouse-portrait.jpg samples/house-farm-exif-rotated.jpg)
for t in cut crossfade; do : > "$OUT/render-$t.txt"; : > "$OUT/combine-$t.txt"; done
for _ in $(seq "$RUNS"); do
  for t in cut crossfade; do
    json=$(BENCH_TRANSITION=$t "$BIN" "$OUT/run" "$RES" "${IMAGES[@]}" "${IMAGES[@]}")
    echo "$json" | field render_wall >> "$OUT/render-$t.txt"
    echo "$json" | field combine_wall >> "$OUT/combine-$t.txt"
  done
done
rc=$(median < "$OUT/render-cut.txt"); rx=$(median < "$OUT/render-crossfade.txt")
cc=$(median < "$OUT/combine-cut.txt"); cx=$(median < "$OUT/combine-crossfade.txt")
echo "| 10-clip $RES video | cut (s) | crossfade (s) | runs (crossfade) | crossfade / cut |"
echo "|---|---|---|---|---|"
echo "| render (clips + stitch) | $rc | $rx | $(paste -sd/ "$OUT/render-crossfade.txt" | sed 's#/# / #g') | $(echo "scale=3; $rx / $rc" | bc -l) × |"
echo "| combine of 10 stored clips | $cc | $cx | $(paste -sd/ "$OUT/combine-crossfade.txt" | sed 's#/# / #g') | $(echo "scale=3; $cx / $cc" | bc -l) × |"
