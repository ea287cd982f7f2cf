#!/usr/bin/env bash
# Transition benchmark (figures in docs/BENCHMARKS.md): a 10-clip 720p video (the five bundled
# stills twice, push-in) rendered through the real pipeline with `transition` cut and
# crossfade, interleaved, median of RUNS (default 3) of `render_bench`'s render wall (fetch,
# clips two at a time, stitch: with a crossfade the stitch encodes every seam in one ffmpeg run
# and copies the rest). Also reports the combine of 10 stored clips each way (the stitch alone), and a
# crossfade combine of clips rendered for a cut video (they lack the seams' keyframes).
# Usage: bench/transition.sh        RESOLUTION=1080p bench/transition.sh
#        BASELINE_RENDER_BENCH=<older render_bench> bench/transition.sh   (beside the build before)
#        RENDER_BENCH=<render_bench> bench/transition.sh                  (a binary built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
RES=${RESOLUTION:-720p}
OUT="$PWD/bench/out/transition"; mkdir -p "$OUT"
# BUILD=debug: the debug driver (ffmpeg does the work either way; saves the slow LTO link).
# RENDER_BENCH=<render_bench>: use that binary, build nothing.
if [ -n "${RENDER_BENCH:-}" ]; then
  BIN=$RENDER_BENCH
elif [ "${BUILD:-release}" = debug ]; then
  cargo build -q -p stillreel-render --example render_bench; BIN=target/debug/examples/render_bench
else
  cargo build -q --release -p stillreel-render --example render_bench; BIN=target/release/examples/render_bench
fi
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
IMAGES=(samples/house-colonial.jpg samples/house-bungalow.jpg samples/living-room.png
        samples/house-townhouse-portrait.jpg samples/house-farm-exif-rotated.jpg)
# BASELINE_RENDER_BENCH=<render_bench of the build before>: the same runs, interleaved, with it.
VARIANTS=(new); [ -n "${BASELINE_RENDER_BENCH:-}" ] && VARIANTS+=(before)
for v in "${VARIANTS[@]}"; do for t in cut crossfade; do
  : > "$OUT/$v-render-$t.txt"; : > "$OUT/$v-combine-$t.txt"; done; : > "$OUT/$v-combine-late.txt"; done
for _ in $(seq "$RUNS"); do
  for v in "${VARIANTS[@]}"; do
    bin=$BIN; [ "$v" = before ] && bin=$BASELINE_RENDER_BENCH
    for t in cut crossfade; do
      # After the cut render, its clips (no seam keyframes) are also combined with a crossfade.
      also=; [ "$t" = cut ] && [ "$v" = new ] && also=crossfade
      json=$(BENCH_TRANSITION=$t BENCH_COMBINE_ALSO=$also "$bin" "$OUT/run" "$RES" "${IMAGES[@]}" "${IMAGES[@]}")
      echo "$json" | field render_wall >> "$OUT/$v-render-$t.txt"
      echo "$json" | field combine_wall >> "$OUT/$v-combine-$t.txt"
      [ -n "$also" ] && echo "$json" | field combine_also_wall >> "$OUT/$v-combine-late.txt"
    done
  done
done
runs() { paste -sd/ "$1" | sed 's#/# / #g'; }
echo "| 10-clip $RES video | build | cut (s) | crossfade (s) | runs (crossfade) | crossfade / cut |"
echo "|---|---|---|---|---|---|"
for v in "${VARIANTS[@]}"; do
  rc=$(median < "$OUT/$v-render-cut.txt"); rx=$(median < "$OUT/$v-render-crossfade.txt")
  cc=$(median < "$OUT/$v-combine-cut.txt"); cx=$(median < "$OUT/$v-combine-crossfade.txt")
  echo "| render (clips + stitch) | $v | $rc | $rx | $(runs "$OUT/$v-render-crossfade.txt") | $(echo "scale=3; $rx / $rc" | bc -l) × |"
  echo "| combine of 10 stored clips of its own video | $v | $cc | $cx | $(runs "$OUT/$v-combine-crossfade.txt") | $(echo "scale=3; $cx / $cc" | bc -l) × |"
  if [ -s "$OUT/$v-combine-late.txt" ]; then
    cl=$(median < "$OUT/$v-combine-late.txt")
    echo "| crossfade combine of 10 clips rendered for a cut video | $v | $cc | $cl | $(runs "$OUT/$v-combine-late.txt") | $(echo "scale=3; $cl / $cc" | bc -l) × |"
  fi
done
