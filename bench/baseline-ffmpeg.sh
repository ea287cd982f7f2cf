#!/usr/bin/env bash
# The hand-written baseline: ONE ffmpeg command that turns five stills into a 25 s push-in
# slideshow of the same kind as stillreel's (each still decoded once, cover-cropped, smooth
# sub-pixel push-in with `perspective`, H.264 yuv420p veryfast crf 20, AAC 48 kHz stereo
# silent track, +faststart). Usage: baseline-ffmpeg.sh <WxH> <out.mp4> <img1> ... <img5>
set -euo pipefail
size=$1; out=$2; shift 2
W=${size%x*}; H=${size#*x}
inputs=(); graph=""; n=0
for img in "$@"; do
  inputs+=(-framerate 30 -i "$img")
  # push-in 1.0 -> 1.15 over 150 frames, eased (smoothstep), as a person would write it
  p="min(in/149,1)*min(in/149,1)*(3-2*min(in/149,1))"
  hw="($W/2)*pow(1/1.15,$p)"; hh="($H/2)*pow(1/1.15,$p)"
  graph+="[$n:v]scale=$W:$H:force_original_aspect_ratio=increase,crop=$W:$H,setsar=1,format=yuv420p,"
  graph+="loop=loop=149:size=1:start=0,setpts=N/(30*TB),"
  graph+="perspective=x0='$W/2-$hw':y0='$H/2-$hh':x1='$W/2+$hw':y1='$H/2-$hh':x2='$W/2-$hw':y2='$H/2+$hh':x3='$W/2+$hw':y3='$H/2+$hh':eval=frame[v$n];"
  n=$((n+1))
done
for i in $(seq 0 $((n-1))); do graph+="[v$i]"; done
graph+="concat=n=$n:v=1:a=0,format=yuv420p[v];anullsrc=r=48000:cl=stereo,atrim=end_sample=$((48000*5*n))[a]"
exec "${FFMPEG:-ffmpeg}" -nostdin -hide_banner -loglevel error -y "${inputs[@]}" \
  -filter_complex "$graph" -map "[v]" -map "[a]" -frames:v $((150*n)) \
  -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -r 30 \
  -c:a aac -b:a 128k -ar 48000 -ac 2 -movflags +faststart "$out"
