#!/usr/bin/env bash
# Render benchmark (figures in docs/BENCHMARKS.md), two parts (PARTS, default "clip video"):
#
# clip:  one 5 s push-in clip of samples/house-colonial.jpg (2400x1600 JPEG) through the clip step
#        (`render_bench clip ... ours`: canvas, the camera's frames drawn in Rust and piped to x264,
#        ffprobe check, store) beside the previous renderer's single ffmpeg run (`... reference`,
#        `perspective`) and beside the ENCODER FLOOR: x264 with the clip's very settings encoding the
#        same 150 frames (our clip decoded to raw yuv420p in /dev/shm) read from memory:
#          ffmpeg -nostdin -y -f rawvideo -pix_fmt yuv420p -s WxH -framerate 30 -i /dev/shm/frames.yuv \
#            -an -c:v libx264 -preset veryfast -crf 20 -profile:v high -level:v 3.1|4.1 -pix_fmt yuv420p \
#            -r 30 -g 60 -video_track_timescale 15360 -movflags +faststart -f mp4 floor.mp4
#        Interleaved, RUNS rounds, medians, and the median of the per-round ratios ours/floor
#        (each round's clip beside the floor run right after it). Also: peak RSS of every ffmpeg run and of the render
#        process, and the PSNR of our clip against the reference clip.
# video: five bundled stills (samples/, mixed sizes up to 2400x1600) into 25 s of push-in video
#        through stillreel-render, beside one hand-written ffmpeg command (bench/baseline-ffmpeg.sh)
#        and a MoviePy Ken Burns slideshow, in the same run; then combining 10 stored clips (50 s).
#        The API figure's floor: the encoder floor above for 750 frames (5 x the clip's).
# Prints lines for docs/BENCHMARKS.md. RUNS (default 3) runs per measurement, median reported. Usage:
#   bench/render.sh
#   BASELINE_RENDER_BENCH=/path/to/old/render_bench bench/render.sh   # also an earlier build, side by side
#                                                                      # (clip: its clip step in every round)
#   SKIP_MOVIEPY=1 bench/render.sh                                     # without the MoviePy run
#   RESOLUTIONS=720p RUNS=5 PARTS=clip bench/render.sh                 # one resolution, one part
#   CLIP_MOTION=orbit-left PARTS=clip bench/render.sh                  # the clip part with another motion
#   PARTS=depth bench/render.sh                                        # depth: a flat clip against a depth clip
#     DEPTH_MOTIONS=orbit-left                                         #   (motions; default push-in orbit-left)
#   PARTS=draw bench/render.sh                                         # draw: the frames alone, flat and depth, no encoder
#   PARTS=canvas bench/render.sh                                       # canvas: in process against the ffmpeg run
#   PARTS=combine RESOLUTIONS=720p RUNS=9 bench/render.sh              # combine: 10 stored clips joined, alone
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
[ -n "${SKIP_BUILD:-}" ] || cargo build -q --release -p stillreel-render --example render_bench
BIN=target/release/examples/render_bench
VENV=target/bench-venv
if [ -z "${SKIP_MOVIEPY:-}" ] && [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; "$VENV/bin/pip" install -q moviepy; fi

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
peak() { sort -n "$1" | tail -1; }
# The median of the per-round ratios of two files of times, line by line: pairs_median A B.
pairs_median() { paste "$1" "$2" | awk '{printf "%.4f\n", $1 / $2}' | median; }

json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
timed_peak() { /usr/bin/time -f "%M" -o "$1" "${@:2}"; }
CLIP_IMG=${CLIP_IMG:-samples/house-colonial.jpg}
CLIP_MOTION=${CLIP_MOTION:-push-in}
SHM=/dev/shm/stillreel-bench-$$; mkdir -p "$SHM"; trap 'rm -rf "$SHM"' EXIT
if [[ " ${PARTS:-clip video} " == *" clip "* ]]; then
for res in ${RESOLUTIONS:-720p 1080p}; do
  size=1280x720; level=3.1; [ "$res" = 1080p ] && size=1920x1080 && level=4.1
  : > "$OUT/clip-ours-$res.txt"; : > "$OUT/clip-ref-$res.txt"; : > "$OUT/clip-floor-$res.txt"
  : > "$OUT/clip-peak-ours-$res.log"; : > "$OUT/clip-peak-ref-$res.log"; : > "$OUT/clip-peak-floor-$res.log"
  : > "$OUT/clip-rss-ours-$res.log"; : > "$OUT/clip-base-$res.txt"
  for run in $(seq "$RUNS"); do
    oj=$(PEAK_LOG="$OUT/clip-peak-ours-$res.log" STILLREEL_FFMPEG="$PWD/bench/ffmpeg-peak-mem.sh" \
      timed_peak "$OUT/clip-rss.tmp" "$BIN" clip "$OUT" "$res" "$CLIP_IMG" "$CLIP_MOTION" ours)
    cat "$OUT/clip-rss.tmp" >> "$OUT/clip-rss-ours-$res.log"
    echo "$oj" | json_field clip_wall >> "$OUT/clip-ours-$res.txt"
    ours_clip=$(echo "$oj" | json_field clip)
    rj=$(PEAK_LOG="$OUT/clip-peak-ref-$res.log" STILLREEL_FFMPEG="$PWD/bench/ffmpeg-peak-mem.sh" \
      "$BIN" clip "$OUT" "$res" "$CLIP_IMG" "$CLIP_MOTION" reference)
    echo "$rj" | json_field clip_wall >> "$OUT/clip-ref-$res.txt"
    ref_clip=$(echo "$rj" | json_field clip)
    if [ -n "${BASELINE_RENDER_BENCH:-}" ]; then
      # The earlier build's clip step, in the same round.
      "$BASELINE_RENDER_BENCH" clip "$OUT/baseline" "$res" "$CLIP_IMG" "$CLIP_MOTION" ours | json_field clip_wall \
        >> "$OUT/clip-base-$res.txt"
    fi
    if [ "$run" = 1 ]; then
      ffmpeg -nostdin -v error -y -i "$ours_clip" -f rawvideo -pix_fmt yuv420p "$SHM/frames-$res.yuv"
      cp "$ours_clip" "$OUT/clip-ours-$res.mp4"; cp "$ref_clip" "$OUT/clip-ref-$res.mp4"
    fi
    # The encoder floor (see the header).
    PEAK_LOG="$OUT/clip-peak-floor-$res.log" wall bench/ffmpeg-peak-mem.sh -nostdin -y \
      -f rawvideo -pix_fmt yuv420p -s "$size" -framerate 30 -i "$SHM/frames-$res.yuv" \
      -an -c:v libx264 -preset veryfast -crf 20 -profile:v high -level:v "$level" -pix_fmt yuv420p \
      -r 30 -g 60 -video_track_timescale 15360 -movflags +faststart -f mp4 "$OUT/floor-$res.mp4" \
      >> "$OUT/clip-floor-$res.txt"
  done
  o=$(median < "$OUT/clip-ours-$res.txt"); r=$(median < "$OUT/clip-ref-$res.txt"); f=$(median < "$OUT/clip-floor-$res.txt")
  psnr=$(ffmpeg -nostdin -i "$OUT/clip-ours-$res.mp4" -i "$OUT/clip-ref-$res.mp4" -lavfi psnr -f null - 2>&1 \
    | sed -n 's/.*PSNR.* average:\([0-9.inf]*\).*/\1/p' | tail -1)
  echo "clip $res $CLIP_MOTION ours=$o [$(paste -sd/ "$OUT/clip-ours-$res.txt")] reference=$r [$(paste -sd/ "$OUT/clip-ref-$res.txt")]" \
    "floor=$f [$(paste -sd/ "$OUT/clip-floor-$res.txt")] ours/floor=$(echo "$o / $f" | bc -l | cut -c1-5)" \
    "ours/floor_pairs_median=$(pairs_median "$OUT/clip-ours-$res.txt" "$OUT/clip-floor-$res.txt")" \
    "reference/floor=$(echo "$r / $f" | bc -l | cut -c1-5) peak_ffmpeg_ours_kib=$(peak "$OUT/clip-peak-ours-$res.log")" \
    "peak_render_process_kib=$(peak "$OUT/clip-rss-ours-$res.log") peak_ffmpeg_reference_kib=$(peak "$OUT/clip-peak-ref-$res.log")" \
    "peak_floor_kib=$(peak "$OUT/clip-peak-floor-$res.log") psnr_ours_vs_reference=$psnr" | tee -a "$OUT/summary.txt"
  if [ -s "$OUT/clip-base-$res.txt" ]; then
    b=$(median < "$OUT/clip-base-$res.txt")
    echo "clip $res baseline=$b [$(paste -sd/ "$OUT/clip-base-$res.txt")] baseline/floor=$(echo "$b / $f" | bc -l | cut -c1-5)" \
      "baseline/floor_pairs_median=$(pairs_median "$OUT/clip-base-$res.txt" "$OUT/clip-floor-$res.txt")" \
      "ours/baseline_pairs_median=$(pairs_median "$OUT/clip-ours-$res.txt" "$OUT/clip-base-$res.txt")" \
      | tee -a "$OUT/summary.txt"
  fi
  rm -f "$SHM/frames-$res.yuv"
done
fi
# depth: one 720p clip of samples/living-room.png, flat and with samples/living-room-depth.png
# (showcase clip, the whole pipeline), push-in and orbit-left, interleaved, medians.
if [[ " ${PARTS:-clip video} " == *" depth "* ]]; then
  [ -n "${SKIP_BUILD:-}" ] || cargo build -q --release -p stillreel-render --example showcase
  SHOW=target/release/examples/showcase
  for m in ${DEPTH_MOTIONS:-push-in orbit-left}; do
    : > "$OUT/depth-flat-$m.txt"; : > "$OUT/depth-depth-$m.txt"
    for _ in $(seq "$RUNS"); do
      "$SHOW" clip "$OUT/show" 1280x720 "$m" none samples/living-room.png | json_field wall >> "$OUT/depth-flat-$m.txt"
      cp samples/living-room-depth.png "$OUT/depth-map.png"
      "$SHOW" clip "$OUT/show" 1280x720 "$m" none samples/living-room.png "$OUT/depth-map.png" | json_field wall >> "$OUT/depth-depth-$m.txt"
    done
    fl=$(median < "$OUT/depth-flat-$m.txt"); de=$(median < "$OUT/depth-depth-$m.txt")
    echo "depth $m flat=$fl [$(paste -sd/ "$OUT/depth-flat-$m.txt")] depth=$de [$(paste -sd/ "$OUT/depth-depth-$m.txt")] depth/flat=$(echo "$de / $fl" | bc -l | cut -c1-5)" \
      "depth/flat_pairs_median=$(pairs_median "$OUT/depth-depth-$m.txt" "$OUT/depth-flat-$m.txt")" | tee -a "$OUT/summary.txt"
  done
fi
# draw: the camera's drawing alone, no encoder (examples/draw_frames.rs): ms per frame of the
# 720p clip of samples/living-room.png, flat and over samples/living-room-depth.png.
if [[ " ${PARTS:-clip video} " == *" draw "* ]]; then
  [ -n "${SKIP_BUILD:-}" ] || cargo build -q --release -p stillreel-render --example draw_frames
  for m in push-in orbit-left; do
    target/release/examples/draw_frames samples/living-room.png samples/living-room-depth.png 1280x720 "$m" "$RUNS" | tee -a "$OUT/summary.txt"
  done
fi
# canvas: a clip's canvas made in process (still_canvas) against the ffmpeg canvas run it
# replaced, medians of RUNS × 3 alternate runs, a JPEG and a PNG sample at both sizes.
if [[ " ${PARTS:-clip video} " == *" canvas "* ]]; then
  for res in ${RESOLUTIONS:-720p 1080p}; do
    for img in samples/house-colonial.jpg samples/living-room.png; do
      echo "canvas $res $img $("$BIN" canvas "$res" "$img" $((RUNS * 3)))" | tee -a "$OUT/summary.txt"
    done
  done
fi
# combine: the combine alone (`render_bench combine`: 10 stored clips joined by `-c copy`, from the
# clips check to the stored video and poster), on the five clips of a video run made once in
# bench/out/combine-clips; with BASELINE_RENDER_BENCH (a build that has `combine`), that build's in
# every round too, alternately: medians and the median of the per-round ratios.
if [[ " ${PARTS:-clip video} " == *" combine "* ]]; then
  for res in ${RESOLUTIONS:-720p 1080p}; do
    made="$OUT/combine-clips/store/bench/$res"
    [ -f "$made/clip-004.mp4" ] || "$BIN" "$OUT/combine-clips" "$res" "${IMAGES[@]}" >/dev/null
    clips=("$made"/clip-00[0-4].mp4)
    : > "$OUT/combine-ours-$res.txt"; : > "$OUT/combine-old-$res.txt"
    for run in $(seq "$RUNS"); do
      "$BIN" combine "$OUT/combine-ours" "$res" "${clips[@]}" | json_field combine_wall >> "$OUT/combine-ours-$res.txt"
      if [ -n "${BASELINE_RENDER_BENCH:-}" ]; then
        "$BASELINE_RENDER_BENCH" combine "$OUT/combine-old" "$res" "${clips[@]}" | json_field combine_wall >> "$OUT/combine-old-$res.txt"
      fi
    done
    old=""
    if [ -s "$OUT/combine-old-$res.txt" ]; then
      old=" earlier=$(median < "$OUT/combine-old-$res.txt") [$(paste -sd/ "$OUT/combine-old-$res.txt")] pairs=$(pairs_median "$OUT/combine-ours-$res.txt" "$OUT/combine-old-$res.txt")"
    fi
    echo "combine $res ours=$(median < "$OUT/combine-ours-$res.txt") [$(paste -sd/ "$OUT/combine-ours-$res.txt")]$old load=$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/summary.txt"
  done
fi
[[ " ${PARTS:-clip video} " == *" video "* ]] || exit 0
for res in ${RESOLUTIONS:-720p 1080p}; do
  size=1280x720; [ "$res" = 1080p ] && size=1920x1080
  : > "$OUT/ours-$res.txt"; : > "$OUT/base-$res.txt"; : > "$OUT/comb-$res.txt"; : > "$OUT/old-$res.txt"; : > "$OUT/oldcomb-$res.txt"
  export PEAK_LOG="$OUT/peak-ours-$res.log"; : > "$PEAK_LOG"
  : > "$OUT/floor750-$res.txt"
  level=3.1; [ "$res" = 1080p ] && level=4.1
  for run in $(seq "$RUNS"); do
    json=$(STILLREEL_FFMPEG="$PWD/bench/ffmpeg-peak-mem.sh" "$BIN" "$OUT" "$res" "${IMAGES[@]}")
    echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["render_wall"])' >> "$OUT/ours-$res.txt"
    # The encoder floor for the video's 750 frames (decoded from it, read from memory).
    if [ "$run" = 1 ]; then
      ffmpeg -nostdin -v error -y -i "$(echo "$json" | json_field video)" -f rawvideo -pix_fmt yuv420p "$SHM/video-$res.yuv"
    fi
    wall ffmpeg -nostdin -y -f rawvideo -pix_fmt yuv420p -s "$size" -framerate 30 -i "$SHM/video-$res.yuv" \
      -an -c:v libx264 -preset veryfast -crf 20 -profile:v high -level:v "$level" -pix_fmt yuv420p \
      -r 30 -g 60 -video_track_timescale 15360 -movflags +faststart -f mp4 "$OUT/floor750-$res.mp4" \
      >> "$OUT/floor750-$res.txt"
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
  rm -f "$SHM/video-$res.yuv"
  f750=$(median < "$OUT/floor750-$res.txt")
  echo "$res ours=$ours [$(paste -sd/ "$OUT/ours-$res.txt")] floor750=$f750 ours/floor750=$(echo "$ours / $f750" | bc -l | cut -c1-5) base=$base ours/base=$(echo "$ours / $base" | bc -l | cut -c1-5)$old combine=$comb peak_ours_kib=$(peak "$OUT/peak-ours-$res.log") peak_base_kib=$(peak "$OUT/peak-base-$res.log")" | tee -a "$OUT/summary.txt"
done
if [ -z "${SKIP_MOVIEPY:-}" ]; then
  mp=$(wall "$VENV/bin/python" bench/moviepy_kenburns.py 1280 720 "$OUT/moviepy-720p.mp4" "${IMAGES[@]}")
  echo "moviepy720 $mp" | tee -a "$OUT/summary.txt"
fi
