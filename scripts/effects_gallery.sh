#!/usr/bin/env bash
# Renders the pictures of docs/EFFECTS.md from the bundled samples through the real render
# pipeline (`cargo run -p stillreel-render --example showcase`: fetch, clip graph with camera
# motion and effect, stitch, branded render) and saves PNG stills into docs/effects/:
#   - one still per effect (720p, push-in, the frame where the effect reads best; for
#     sway-trees the frame beside what moved);
#   - one strip per camera motion (first, middle and last frame side by side);
#   - one still per template (intro at 1.5 s, outro 1.5 s before the end), both orientations.
# Usage: scripts/effects_gallery.sh   (about 3 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p stillreel-render --example showcase
BIN=target/release/examples/showcase
OUT=docs/effects
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
S="$PWD/samples"
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
grab() { # video filter-of-selected-frames output
  ffmpeg -hide_banner -loglevel error -nostdin -y -i "$1" -vf "$2" -frames:v 1 "$3"
  echo "$3"
}

effect() { # name vfx-json sample frame [WxH]
  local size=${5:-1280x720} clip
  clip=$("$BIN" clip "$WORK" "$size" push-in "$2" "samples/$3" | field clip)
  grab "$clip" "select=eq(n\\,$4),scale=iw/2:-2" "$OUT/$1.png"
}
effect day-to-twilight '{"type":"day-to-twilight"}' house-bungalow.jpg 140
effect catch-the-sunshine '{"type":"catch-the-sunshine"}' house-colonial.jpg 60
effect pencil-sketch '{"type":"pencil-sketch"}' house-bungalow.jpg 65
effect construction '{"type":"construction"}' house-modern.webp 70
effect starry-night '{"type":"starry-night"}' house-bungalow.jpg 100
# sway-trees moves by a few pixels: beside a frame of the real render, what moves: the
# difference between frames 30 and 45 of the effect on the still picture (no camera move, no
# encoding, amplified 8x). Only the trees light up.
cargo build -q --release -p stillreel-effects --example fragment
sway=$("$BIN" clip "$WORK/sway" 1280x720 push-in '{"type":"sway-trees"}' samples/house-colonial.jpg | field clip)
frag=$(target/release/examples/fragment '{"type":"sway-trees"}' 1280 720 150)
ffmpeg -hide_banner -loglevel error -nostdin -y -i samples/house-colonial.jpg -i "$sway" -filter_complex \
  "[0:v]scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,format=yuv420p,loop=loop=149:size=1:start=0,setpts=N/30/TB[base];$frag;[fx]select='eq(n\\,30)+eq(n\\,45)',tblend=all_mode=difference,lutyuv=y=clip(val*8\\,0\\,255):u=128:v=128,setpts=0[d];[1:v]select=eq(n\\,40),setpts=0[s];[s][d]hstack,scale=1280:-2" \
  -frames:v 1 "$OUT/sway-trees.png"
echo "$OUT/sway-trees.png"
effect shadows '{"type":"shadows"}' living-room.png 60
effect house-drop '{"type":"house-drop"}' house-bungalow.jpg 10
effect static-ceiling-fan '{"type":"static-ceiling-fan"}' living-room.png 60
effect word-drop-portrait '{"type":"word-drop","config":{"text":"Très Beau: 100%!","color":"gold"}}' house-townhouse-portrait.jpg 90 720x1280
effect word-drop-silver '{"type":"word-drop","config":{"text":"Just Listed","color":"silver"}}' house-colonial.jpg 90

for motion in push-in push-out orbit-left orbit-right; do
  clip=$("$BIN" clip "$WORK" 1280x720 "$motion" none samples/house-colonial.jpg | field clip)
  grab "$clip" "select='eq(n\\,0)+eq(n\\,75)+eq(n\\,149)',scale=426:-2,drawbox=c=white:t=2,tile=3x1:padding=4:color=white" "$OUT/motion-$motion.png"
done

LOWER='{"template":"intro-lower-third","config":{"address":{"value":"1234 Maple Avenue\nSpringfield, OR 97477"},"agent_name":{"value":"Jane Doe"},"brokerage":{"value":"Acme Realty"},"logo":{"url":"file:'$S'/logo.png"}}}'
TITLE='{"template":"intro-title-card","config":{"headline":{"value":"Just Listed"},"price":{"value":"$749,000"},"address":{"value":"88 Harbor View Road, Portland"},"logo":{"url":"file:'$S'/logo.png"}}}'
CONTACT='{"template":"outro-contact-card","config":{"agent_name":{"value":"Jane Doe"},"phone":{"value":"(555) 010-2030"},"email":{"value":"jane@acme.example"},"brokerage":{"value":"Acme Realty\nLicensed in Oregon"},"headshot":{"url":"file:'$S'/headshot.jpg"},"logo":{"url":"file:'$S'/logo.png"}}}'
MINIMAL='{"template":"outro-minimal","config":{"logo":{"url":"file:'$S'/logo.png"},"brokerage":{"value":"Acme Realty"},"call_to_action":{"value":"Book a private showing today"},"website":{"value":"acme-realty.example"}}}'
brand() { # size intro outro intro-name outro-name images...
  local size=$1 intro=$2 outro=$3 iname=$4 oname=$5; shift 5
  local json video secs
  json=$("$BIN" brand "$WORK" "$size" "$intro" "$outro" true "$@")
  video=$(echo "$json" | field branded); secs=$(echo "$json" | field branded_seconds)
  local tag=landscape; [ "$size" = 720x1280 ] && tag=portrait
  grab "$video" "select=eq(n\\,45),scale=iw/2:-2" "$OUT/template-$iname-$tag.png"
  local last; last=$(python3 -c "print(int(round(($secs - 1.5) * 30)))")
  grab "$video" "select=eq(n\\,$last),scale=iw/2:-2" "$OUT/template-$oname-$tag.png"
}
brand 1280x720 "$LOWER" "$CONTACT" intro-lower-third outro-contact-card samples/house-colonial.jpg samples/living-room.png
brand 720x1280 "$TITLE" "$MINIMAL" intro-title-card outro-minimal samples/house-townhouse-portrait.jpg samples/house-bungalow.jpg
brand 1280x720 "$TITLE" "$MINIMAL" intro-title-card outro-minimal samples/house-bungalow.jpg samples/house-modern.webp
brand 720x1280 "$LOWER" "$CONTACT" intro-lower-third outro-contact-card samples/house-townhouse-portrait.jpg samples/living-room.png
