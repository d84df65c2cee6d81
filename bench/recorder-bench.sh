#!/usr/bin/env bash
# Recorder throughput and memory against ffmpeg's segment muxer, on the same input, in one run.
#
# For each size: a 60 s clip made by ffmpeg (testsrc2, x264 crf 18), then
#   node:   allspark-node run --source CLIP --no-pace --no-loop --privacy none (30 s chunks)
#   ffmpeg: ffmpeg -i CLIP ... -f segment (30 s segments), same x264 preset, settings, CRF and GOP
# Both decode, encode and write chunks; frames/s = frames / wall time. Peak RSS from GNU time;
# peak anonymous RSS (heap and other private memory, without mapped library and program
# files) sampled from /proc/PID/status every 50 ms.
# Usage: bench/recorder-bench.sh [node-binary]   (default: a release build in .build-release)
# Env:   PRESETS="veryfast ultrafast"  SIZES="1280x720 1920x1080"
#        OPTIONS="tune=zerolatency"  encoder options for both (the node's encoder.options syntax)
set -euo pipefail
cd "$(dirname "$0")/.."
node=${1:-.build-release/release/allspark-node}
[ -x "$node" ] || swift build -c release --scratch-path .build-release
work=$(mktemp -d /tmp/allspark-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
presets=${PRESETS:-veryfast ultrafast}
sizes=${SIZES:-1280x720 1920x1080}
options=${OPTIONS:-}
# ffmpeg gets the node's libx264 defaults (H264Encoder.cameraX264Params), then the same
# options as the node: key=value,key=value -> -key value -key value (the last one wins).
ffmpeg_options=(-x264-params bframes=0:rc-lookahead=2:sliced-threads=1:force-cfr=1)
if [ -n "$options" ]; then
  IFS=',' read -ra pairs <<<"$options"
  for pair in "${pairs[@]}"; do ffmpeg_options+=("-${pair%%=*}" "${pair#*=}"); done
fi
crf=23
fps=30
seconds=60
frames=$((fps * seconds))

# Runs a command under GNU time (wall seconds and peak RSS into $1), sampling the peak
# RssAnon of the command into $1.anon. Returns the command's status.
measure() {
  local report=$1 child="" key value rest anon=0
  shift
  /usr/bin/time -f '%e %M' -o "$report" "$@" &
  local timer=$!
  while kill -0 "$timer" 2>/dev/null; do
    [ -n "$child" ] || child=$(pgrep -P "$timer" | head -1 || true)
    if [ -n "$child" ] && [ -r "/proc/$child/status" ]; then
      while read -r key value rest; do
        if [ "$key" = RssAnon: ] && [ "$value" -gt "$anon" ]; then anon=$value; fi
      done <"/proc/$child/status" 2>/dev/null || true
    fi
    sleep 0.05
  done
  echo "$anon" >"$report.anon"
  wait "$timer"
}

printf '| size | x264 preset | node frames/s | ffmpeg frames/s | ratio node/ffmpeg | node peak RSS (MB) | ffmpeg peak RSS (MB) | node peak anon (MB) | ffmpeg peak anon (MB) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for size in $sizes; do
  clip="$work/input-$size.mp4"
  ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=$fps" -t "$seconds" \
      -c:v libx264 -preset ultrafast -crf 18 -pix_fmt yuv420p "$clip"
  for preset in $presets; do

    store="$work/store-$size-$preset"
    ALLSPARK_ENCODER_PRESET=$preset ALLSPARK_ENCODER_CRF=$crf ALLSPARK_ENCODER_OPTIONS=$options measure "$work/node.time" \
        "$node" run --source "$clip" --size "$size" --fps "$fps" --no-pace --no-loop --privacy none \
        --chunk-ms 30000 --store "$store" --config /dev/null 2>"$work/node.log" \
        || { cat "$work/node.log"; exit 1; }
    node_frames=$("$node" chunks --store "$store" --json --config /dev/null | python3 -c 'import json,sys; print(sum(c["frames"] for c in json.load(sys.stdin)))')
    [ "$node_frames" -eq "$frames" ] || { echo "node stored $node_frames of $frames frames" >&2; exit 1; }

    rm -rf "$store"
    mkdir -p "$work/ffmpeg-$size-$preset"
    measure "$work/ffmpeg.time" \
        ffmpeg -v error -i "$clip" -c:v libx264 -preset "$preset" -crf "$crf" -g "$fps" "${ffmpeg_options[@]}" -pix_fmt yuv420p \
        -f segment -segment_time 30 -reset_timestamps 1 -segment_format mp4 "$work/ffmpeg-$size-$preset/chunk_%03d.mp4"
    rm -rf "$work/ffmpeg-$size-$preset"

    read -r node_seconds node_kb <"$work/node.time"
    read -r ffmpeg_seconds ffmpeg_kb <"$work/ffmpeg.time"
    read -r node_anon_kb <"$work/node.time.anon"
    read -r ffmpeg_anon_kb <"$work/ffmpeg.time.anon"
    python3 - "$size" "$preset" "$frames" "$node_seconds" "$node_kb" "$ffmpeg_seconds" "$ffmpeg_kb" "$node_anon_kb" "$ffmpeg_anon_kb" <<'PY'
import sys
size, preset, frames, ns, nkb, fs, fkb, nanon, fanon = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:])
node_fps, ffmpeg_fps = frames / ns, frames / fs
print(f"| {size} | {preset} | {node_fps:.1f} | {ffmpeg_fps:.1f} | {node_fps / ffmpeg_fps:.2f} | {nkb / 1024:.0f} | {fkb / 1024:.0f} "
      f"| {nanon / 1024:.0f} | {fanon / 1024:.0f} |")
PY
  done
done
