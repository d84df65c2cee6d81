#!/usr/bin/env bash
# Recorder throughput and memory against ffmpeg's segment muxer, on the same input, in one run.
#
# For each size: a 60 s clip made by ffmpeg (testsrc2, x264 crf 18), then
#   node:   allspark-node run --source CLIP --no-pace --no-loop --privacy none (30 s chunks)
#   ffmpeg: ffmpeg -i CLIP ... -f segment (30 s segments), same x264 preset, settings, CRF and GOP
# Both decode, encode and write chunks; frames/s = frames / wall time; CPU = user + system
# seconds. Peak RSS from GNU time; peak anonymous RSS (heap and other private memory, without
# mapped library and program files) sampled from /proc/PID/status every 50 ms.
# With ROUNDS=N each pair runs N times, in turn node first and ffmpeg first (a shared
# machine's load drifts within minutes: one pair is a sample of it, not a figure), and a
# last row per size and preset gives the median ratio and its range.
# Usage: bench/recorder-bench.sh [node-binary]   (default: a release build in .build-release)
# Env:   PRESETS="veryfast ultrafast"  SIZES="1280x720 1920x1080"  ROUNDS=1
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
rounds=${ROUNDS:-1}
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
  /usr/bin/time -f '%e %M %U %S' -o "$report" "$@" &
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

printf '| size | x264 preset | round | node frames/s | ffmpeg frames/s | ratio node/ffmpeg | node CPU s | ffmpeg CPU s | node peak RSS (MB) | ffmpeg peak RSS (MB) | node peak anon (MB) | ffmpeg peak anon (MB) |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'

run_node() {
  local store="$work/store-$size-$preset"
  ALLSPARK_ENCODER_PRESET=$preset ALLSPARK_ENCODER_CRF=$crf ALLSPARK_ENCODER_OPTIONS=$options measure "$work/node.time" \
      "$node" run --source "$clip" --size "$size" --fps "$fps" --no-pace --no-loop --privacy none \
      --chunk-ms 30000 --store "$store" --config /dev/null 2>"$work/node.log" \
      || { cat "$work/node.log"; exit 1; }
  local node_frames
  node_frames=$("$node" chunks --store "$store" --json --config /dev/null | python3 -c 'import json,sys; print(sum(c["frames"] for c in json.load(sys.stdin)))')
  [ "$node_frames" -eq "$frames" ] || { echo "node stored $node_frames of $frames frames" >&2; exit 1; }
  rm -rf "$store"
}

run_ffmpeg() {
  mkdir -p "$work/ffmpeg-$size-$preset"
  measure "$work/ffmpeg.time" \
      ffmpeg -v error -i "$clip" -c:v libx264 -preset "$preset" -crf "$crf" -g "$fps" "${ffmpeg_options[@]}" -pix_fmt yuv420p \
      -f segment -segment_time 30 -reset_timestamps 1 -segment_format mp4 "$work/ffmpeg-$size-$preset/chunk_%03d.mp4"
  rm -rf "$work/ffmpeg-$size-$preset"
}

for size in $sizes; do
  clip="$work/input-$size.mp4"
  ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=$fps" -t "$seconds" \
      -c:v libx264 -preset ultrafast -crf 18 -pix_fmt yuv420p "$clip"
  for preset in $presets; do
    ratios="$work/ratios-$size-$preset"
    : >"$ratios"
    for round in $(seq 1 "$rounds"); do
      if [ $((round % 2)) -eq 1 ]; then run_node; run_ffmpeg; else run_ffmpeg; run_node; fi
      read -r node_seconds node_kb node_user node_system <"$work/node.time"
      read -r ffmpeg_seconds ffmpeg_kb ffmpeg_user ffmpeg_system <"$work/ffmpeg.time"
      read -r node_anon_kb <"$work/node.time.anon"
      read -r ffmpeg_anon_kb <"$work/ffmpeg.time.anon"
      python3 - "$size" "$preset" "$round" "$frames" "$node_seconds" "$node_kb" "$ffmpeg_seconds" "$ffmpeg_kb" "$node_anon_kb" "$ffmpeg_anon_kb" \
          "$node_user" "$node_system" "$ffmpeg_user" "$ffmpeg_system" "$ratios" <<'PY'
import sys
size, preset, round_ = sys.argv[1:4]
frames = int(sys.argv[4])
ns, nkb, fs, fkb, nanon, fanon, nu, nsys, fu, fsys = map(float, sys.argv[5:15])
node_fps, ffmpeg_fps = frames / ns, frames / fs
print(f"| {size} | {preset} | {round_} | {node_fps:.1f} | {ffmpeg_fps:.1f} | {node_fps / ffmpeg_fps:.2f} | {nu + nsys:.2f} | {fu + fsys:.2f} "
      f"| {nkb / 1024:.0f} | {fkb / 1024:.0f} | {nanon / 1024:.0f} | {fanon / 1024:.0f} |")
with open(sys.argv[15], "a") as out:
    out.write(f"{node_fps / ffmpeg_fps} {(nu + nsys) / (fu + fsys)}\n")
PY
    done
    if [ "$rounds" -gt 1 ]; then
      python3 - "$size" "$preset" "$rounds" "$ratios" <<'PY'
import statistics, sys
size, preset, rounds, path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
pairs = [tuple(map(float, line.split())) for line in open(path) if line.strip()]
speed = [p[0] for p in pairs]
cpu = [p[1] for p in pairs]
print(f"| {size} | {preset} | median of {rounds} | | | **{statistics.median(speed):.2f}** ({min(speed):.2f}–{max(speed):.2f}) "
      f"| CPU node/ffmpeg {statistics.median(cpu):.3f} ({min(cpu):.3f}–{max(cpu):.3f}) | | | | | |")
PY
    fi
  done
done
