#!/usr/bin/env bash
# How much framing and captions add to a clip (figures in docs/BENCHMARKS.md): one 5 s 720p push-in
# clip through the clip step (`render_bench clip ... ours`) with the photo covered in the middle
# (BENCH_FIT=cover, the base), placed by smart, contained over its blurred fill, and covered with a
# caption, run one after the other in every round (A B C D, A B C D, ...). Prints each variant's
# median and the median of its per-round ratios to the base.
#   bench/look.sh                                   # RUNS=5, samples/house-colonial.jpg
#   RUNS=9 LOOK_IMG=/usr/share/backgrounds/friends_by_Aitzol_Berasategi.jpg bench/look.sh
#   SKIP_BUILD=1 bench/look.sh                      # use target/release/examples/render_bench as built
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
IMG=${LOOK_IMG:-samples/house-colonial.jpg}
OUT="$PWD/bench/out/look"; mkdir -p "$OUT"
if [ -z "${SKIP_BUILD:-}" ]; then
  cargo build --release -q -p stillreel-render --example render_bench
fi
BIN=target/release/examples/render_bench
VARIANTS=(cover smart contain-blur caption)
declare -A TIMES
run() { # variant -> seconds
  local fit=$1 caption=()
  if [ "$1" = caption ]; then fit=cover; caption=(BENCH_CAPTION="Primary suite"); fi
  env BENCH_FIT="$fit" "${caption[@]}" "$BIN" clip "$OUT" 720p "$IMG" push-in ours \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["clip_wall"])'
}
for ((i = 0; i < RUNS; i++)); do
  for v in "${VARIANTS[@]}"; do TIMES[$v]+="$(run "$v") "; done
done
python3 - "$RUNS" "${TIMES[cover]}" "${TIMES[smart]}" "${TIMES[contain-blur]}" "${TIMES[caption]}" <<'PY'
import statistics, sys
runs = int(sys.argv[1])
names = ["cover", "smart", "contain-blur", "caption"]
series = {n: [float(x) for x in sys.argv[2 + i].split()] for i, n in enumerate(names)}
base = series["cover"]
for n in names:
    ratios = [a / b for a, b in zip(series[n], base)]
    print(f"{n:13s} median {statistics.median(series[n]):.3f} s   per-round ratio to cover {statistics.median(ratios):.3f}   ({runs} rounds)")
PY
