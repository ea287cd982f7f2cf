#!/usr/bin/env bash
# Effects and branding benchmark (figures in docs/BENCHMARKS.md).
#  1. Per effect: wall time of one 5 s 720p landscape push-in clip through the real pipeline
#     (`showcase clip`: own-file fetch, clip graph with the effect, stitch) as a multiple of the
#     same clip with no effect. Runs are interleaved (none, effect 1, ..., effect 10, then again)
#     so load from other processes hits every variant alike; median of RUNS (default 3).
#  2. Branded render of a 5-clip 720p video (intro-lower-third with logo, outro-contact-card
#     with headshot and logo, speed ramp) against its main render, same process, median of RUNS.
# Prints Markdown rows for docs/BENCHMARKS.md. Usage: bench/effects.sh (SKIP_BUILD=1: use the
# release showcase already built; BASELINE_SHOWCASE=<an earlier showcase binary>: part 1 also
# runs that build, interleaved with this one in every round, and prints its rows and the
# new/baseline ratio; EFFECTS_ONLY=1: skip part 2)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OUT="$PWD/bench/out/effects"; mkdir -p "$OUT"
[ -n "${SKIP_BUILD:-}" ] || cargo build -q --release -p stillreel-render --example showcase
BIN=target/release/examples/showcase
IMG=samples/house-colonial.jpg
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

EFFECTS=(none day-to-twilight catch-the-sunshine pencil-sketch construction starry-night
         sway-trees shadows house-drop static-ceiling-fan word-drop)
# EFFECTS_LIST="none starry-night" bench/effects.sh: only those (keep `none`: the ratios' base).
[ -n "${EFFECTS_LIST:-}" ] && read -ra EFFECTS <<< "$EFFECTS_LIST"
vfx_json() {
  case $1 in
    none) echo none ;;
    word-drop) echo '{"type":"word-drop","config":{"text":"Just Listed","color":"gold"}}' ;;
    *) echo "{\"type\":\"$1\"}" ;;
  esac
}
BASE_BIN=${BASELINE_SHOWCASE:-}
for e in "${EFFECTS[@]}"; do : > "$OUT/$e.txt"; : > "$OUT/$e.baseline.txt"; done
for _ in $(seq "$RUNS"); do
  for e in "${EFFECTS[@]}"; do
    "$BIN" clip "$OUT/run" 1280x720 push-in "$(vfx_json "$e")" "$IMG" | field wall >> "$OUT/$e.txt"
    if [ -n "$BASE_BIN" ]; then
      "$BASE_BIN" clip "$OUT/run" 1280x720 push-in "$(vfx_json "$e")" "$IMG" | field wall >> "$OUT/$e.baseline.txt"
    fi
  done
done
base=$(median < "$OUT/none.txt")
if [ -n "$BASE_BIN" ]; then
  bbase=$(median < "$OUT/none.baseline.txt")
  echo "| effect | median wall (s) | runs | × plain clip | baseline median (s) | baseline runs | baseline × its plain clip | new / baseline |"
  echo "|---|---|---|---|---|---|---|---|"
else
  echo "| effect | median wall (s) | runs | × plain clip |"
  echo "|---|---|---|---|"
fi
for e in "${EFFECTS[@]}"; do
  m=$(median < "$OUT/$e.txt")
  runs=$(paste -sd/ "$OUT/$e.txt" | sed 's#/# / #g')
  row="| $e | $m | $runs | $(echo "scale=2; $m / $base" | bc -l) |"
  if [ -n "$BASE_BIN" ]; then
    bm=$(median < "$OUT/$e.baseline.txt")
    bruns=$(paste -sd/ "$OUT/$e.baseline.txt" | sed 's#/# / #g')
    row="$row $bm | $bruns | $(echo "scale=2; $bm / $bbase" | bc -l) | $(echo "scale=2; $m / $bm" | bc -l) |"
  fi
  echo "$row"
done
[ -z "${EFFECTS_ONLY:-}" ] || exit 0

S="$PWD/samples"
INTRO='{"template":"intro-lower-third","config":{"address":{"value":"1234 Maple Avenue\nSpringfield, OR 97477"},"agent_name":{"value":"Jane Doe"},"brokerage":{"value":"Acme Realty"},"logo":{"url":"file:'$S'/logo.png"}}}'
OUTRO='{"template":"outro-contact-card","config":{"agent_name":{"value":"Jane Doe"},"phone":{"value":"(555) 010-2030"},"email":{"value":"jane@acme.example"},"brokerage":{"value":"Acme Realty"},"headshot":{"url":"file:'$S'/headshot.jpg"},"logo":{"url":"file:'$S'/logo.png"}}}'
: > "$OUT/main.txt"; : > "$OUT/brand.txt"
for _ in $(seq "$RUNS"); do
  json=$("$BIN" brand "$OUT/run" 1280x720 "$INTRO" "$OUTRO" true \
    samples/house-colonial.jpg samples/house-bungalow.jpg samples/living-room.png \
    samples/house-modern.webp samples/house-townhouse-portrait.jpg)
  echo "$json" | field main_wall >> "$OUT/main.txt"
  echo "$json" | field brand_wall >> "$OUT/brand.txt"
done
main=$(median < "$OUT/main.txt"); brand=$(median < "$OUT/brand.txt")
echo
echo "| 5-clip 720p video | median wall (s) | runs |"
echo "|---|---|---|"
echo "| main render | $main | $(paste -sd/ "$OUT/main.txt" | sed 's#/# / #g') |"
echo "| branded render | $brand | $(paste -sd/ "$OUT/brand.txt" | sed 's#/# / #g') |"
echo "| ratio branded / main | $(echo "scale=2; $brand / $main" | bc -l) × | |"
