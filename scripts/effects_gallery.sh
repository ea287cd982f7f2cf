#!/usr/bin/env bash
# Renders every procedural effect on a bundled sample (720p, 5 s, a simple push-in made here,
# NOT the render crate's clip graph, which is not wired to effects yet) and saves one PNG still
# per effect into docs/effects/. Usage: scripts/effects_gallery.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p stillreel-effects --example fragment
FRAG=target/debug/examples/fragment
render() { # name vfx-json sample W H frame
  local name=$1 vfx=$2 sample=$3 W=$4 H=$5 n=$6
  local Z="(1+0.15*in/149)"
  local base="[0:v]scale=$W:$H:force_original_aspect_ratio=increase,crop=$W:$H,format=yuv420p,settb=1/30,loop=loop=149:size=1:start=0,setpts=N/30/TB,perspective=x0=W/2-W/2/$Z:y0=H/2-H/2/$Z:x1=W/2+W/2/$Z:y1=H/2-H/2/$Z:x2=W/2-W/2/$Z:y2=H/2+H/2/$Z:x3=W/2+W/2/$Z:y3=H/2+H/2/$Z:eval=frame[base]"
  ffmpeg -hide_banner -loglevel error -nostdin -y -i "samples/$sample" \
    -filter_complex "$base;$($FRAG "$vfx" "$W" "$H");[fx]select=eq(n\\,$n),scale=iw/2:-2" -frames:v 1 "docs/effects/$name.png"
  echo "docs/effects/$name.png"
}
render day-to-twilight '{"type":"day-to-twilight"}' house-bungalow.jpg 1280 720 140
render catch-the-sunshine '{"type":"catch-the-sunshine"}' house-colonial.jpg 1280 720 60
render pencil-sketch '{"type":"pencil-sketch"}' house-bungalow.jpg 1280 720 65
render construction '{"type":"construction"}' house-modern.webp 1280 720 70
render starry-night '{"type":"starry-night"}' house-colonial.jpg 1280 720 100
render sway-trees '{"type":"sway-trees"}' house-colonial.jpg 1280 720 40
render shadows '{"type":"shadows"}' living-room.png 1280 720 60
render house-drop '{"type":"house-drop"}' house-bungalow.jpg 1280 720 10
render static-ceiling-fan '{"type":"static-ceiling-fan"}' living-room.png 1280 720 60
render word-drop-portrait '{"type":"word-drop","config":{"text":"Très Beau: 100%!","color":"gold"}}' house-townhouse-portrait.jpg 720 1280 90
render word-drop-silver '{"type":"word-drop","config":{"text":"Just Listed","color":"silver"}}' house-colonial.jpg 1280 720 90
