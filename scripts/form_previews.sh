#!/usr/bin/env bash
# Makes the form's previews (web/form/previews/*.jpg) from the effect gallery's stills in
# docs/effects/ (rendered from the bundled samples through the real pipeline by
# scripts/effects_gallery.sh): one per template, filled with the gallery's sample values
# (landscape), and one per effect that renders without a generative provider. Small JPEGs, so
# the form stays light; the form shows them beside the template and effect pickers.
# Usage: scripts/form_previews.sh   (after scripts/effects_gallery.sh when the stills change)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=docs/effects
OUT=web/form/previews
mkdir -p "$OUT"
jpeg() { # source.png name [filter before the scale]
  ffmpeg -hide_banner -loglevel error -nostdin -y -i "$SRC/$1" -vf "${3:-null},scale=480:-2" -q:v 5 "$OUT/$2.jpg"
  echo "$OUT/$2.jpg"
}
for template in intro-lower-third intro-title-card outro-contact-card outro-minimal; do
  jpeg "template-$template-landscape.png" "template-$template"
done
for effect in day-to-twilight catch-the-sunshine pencil-sketch construction starry-night \
  shadows house-drop static-ceiling-fan; do
  jpeg "$effect.png" "vfx-$effect"
done
# The sway-trees still is a rendered frame beside the map of what moved: the frame only.
jpeg sway-trees.png vfx-sway-trees "crop=iw/2:ih:0:0"
jpeg word-drop-silver.png vfx-word-drop
