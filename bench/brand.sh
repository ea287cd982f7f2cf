#!/usr/bin/env bash
# Branded render benchmark (figures in docs/BENCHMARKS.md): a 30 s 1080p landscape video (six
# bundled stills, 5 s each, with music) rendered, then branded (intro-lower-third with a logo,
# outro-contact-card with headshot and logo) without and with the speed ramp. Without the ramp
# only the intro's span and the outro card are encoded and the rest is copied; with it also the
# 2.4 s around each cut (the clips are keyed where the ramp begins and ends). `showcase brand` renders the main video and its branded copy in one
# process and reports both walls; runs interleave ramp off and on; median of RUNS (default 3).
# The rows "ramp false"/"ramp true" encode the outro card every time (no card cache: a brand's
# first video); the row "ramp false, card cached" renders with the card cache on
# (SHOWCASE_CARD_CACHE=1, filled by one run before the timed ones: the brand's next videos).
# Usage: bench/brand.sh            RESOLUTION=1280x720 bench/brand.sh (another frame)
#        BASELINE_SHOWCASE=<older showcase> bench/brand.sh   (beside the build before)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SIZE=${RESOLUTION:-1920x1080}
OUT="$PWD/bench/out/brand"; mkdir -p "$OUT"
# BUILD=debug: the debug driver (ffmpeg does the work either way; saves the slow LTO link).
if [ "${BUILD:-release}" = debug ]; then
  cargo build -q -p stillreel-render --example showcase; BIN=target/debug/examples/showcase
else
  cargo build -q --release -p stillreel-render --example showcase; BIN=target/release/examples/showcase
fi
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# 40 s of music (a chord), looped and cut by the render.
MUSIC="$OUT/music.m4a"
[ -f "$MUSIC" ] || ffmpeg -v error -y -f lavfi -i "sine=f=220:d=40" -f lavfi -i "sine=f=277:d=40" \
  -filter_complex "[0:a][1:a]amix=inputs=2" -c:a aac "$MUSIC"
S="$PWD/samples"
INTRO='{"template":"intro-lower-third","config":{"address":{"value":"1234 Maple Avenue\nSpringfield, OR 97477"},"agent_name":{"value":"Jane Doe"},"brokerage":{"value":"Acme Realty"},"logo":{"url":"file:'$S'/logo.png"}}}'
OUTRO='{"template":"outro-contact-card","config":{"agent_name":{"value":"Jane Doe"},"phone":{"value":"(555) 010-2030"},"email":{"value":"jane@acme.example"},"brokerage":{"value":"Acme Realty"},"headshot":{"url":"file:'$S'/headshot.jpg"},"logo":{"url":"file:'$S'/logo.png"}}}'
IMAGES=(samples/house-colonial.jpg samples/house-bungalow.jpg samples/living-room.png
        samples/house-modern.webp samples/house-townhouse-portrait.jpg samples/house-farm-exif-rotated.jpg)
# BASELINE_SHOWCASE=<showcase of the build before>: the same runs, interleaved, with it.
BUILDS=(new); [ -n "${BASELINE_SHOWCASE:-}" ] && BUILDS+=(before)
for b in "${BUILDS[@]}"; do for v in main-false brand-false main-true brand-true main-cached brand-cached; do : > "$OUT/$b-$v.txt"; done; done
rm -rf "$OUT/run/store/brand-cache"
for b in "${BUILDS[@]}"; do
  bin=$BIN; [ "$b" = before ] && bin=$BASELINE_SHOWCASE
  SHOWCASE_CARD_CACHE=1 SHOWCASE_MUSIC="$MUSIC" "$bin" brand "$OUT/run" "$SIZE" "$INTRO" "$OUTRO" false "${IMAGES[@]}" > /dev/null
done
for _ in $(seq "$RUNS"); do
  for b in "${BUILDS[@]}"; do
    bin=$BIN; [ "$b" = before ] && bin=$BASELINE_SHOWCASE
    for mode in false true cached; do
      ramp=$mode; cache=0; [ "$mode" = cached ] && ramp=false && cache=1
      json=$(SHOWCASE_CARD_CACHE=$cache SHOWCASE_MUSIC="$MUSIC" "$bin" brand "$OUT/run" "$SIZE" "$INTRO" "$OUTRO" "$ramp" "${IMAGES[@]}")
      echo "$json" | field main_wall >> "$OUT/$b-main-$mode.txt"
      echo "$json" | field brand_wall >> "$OUT/$b-brand-$mode.txt"
    done
  done
done
echo "| 30 s $SIZE video | build | main render (s) | branded render (s) | runs (branded) | branded / main |"
echo "|---|---|---|---|---|---|"
for b in "${BUILDS[@]}"; do
  for mode in false true cached; do
    label="speed ramp $mode"; [ "$mode" = cached ] && label="speed ramp false, card cached"
    m=$(median < "$OUT/$b-main-$mode.txt"); br=$(median < "$OUT/$b-brand-$mode.txt")
    echo "| $label | $b | $m | $br | $(paste -sd/ "$OUT/$b-brand-$mode.txt" | sed 's#/# / #g') | $(echo "scale=3; $br / $m" | bc -l) × |"
  done
done
