#!/usr/bin/env bash
# Live recording with privacy on: the node records a face video looped and paced at real
# time (as a camera delivers it) for MINUTES, then reports frames captured, dropped by the
# capture (more than 1 s late), encoded and searched by the face detector, and peak RSS.
# Goal (issue 3): 1280x720 at 30 fps with no dropped frames over 10 minutes; 1920x1080 ≥ 20 fps.
#
# Usage: bench/live-privacy.sh [MINUTES] [SIZE] [FPS] [node-binary]
#        (defaults: 10 1280x720 30 .build-release/release/allspark-node)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
size=${2:-1280x720}
fps=${3:-30}
node=$(realpath "${4:-.build-release/release/allspark-node}")
faces=${FACES:-$(realpath ../shared/faces)}
work=$(mktemp -d /tmp/allspark-live.XXXXXX)
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

input="$work/carphone-$size.mp4"
ffmpeg -v error -i "$faces/video/carphone_qcif.mp4" -vf "scale=${size/x/:},fps=$fps" \
    -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$input"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"$node" run --config /dev/null --source "$input" --size "$size" --fps "$fps" \
    --privacy face --store "$work/store" --port "$port" --uplink off >"$work/node.log" 2>&1 &
pid=$!
sleep $((minutes * 60))
curl -sf -m 30 "http://127.0.0.1:$port/api/status" >"$work/status.json"
grep VmHWM "/proc/$pid/status" | awk '{print $2}' >"$work/rss"
kill -TERM "$pid"
wait "$pid" || true

python3 - "$work/status.json" "$work/rss" "$minutes" "$size" "$fps" <<'PY'
import json, sys
status = json.load(open(sys.argv[1]))
rss_mb = int(open(sys.argv[2]).read()) / 1024
minutes, size, fps = float(sys.argv[3]), sys.argv[4], float(sys.argv[5])
recorder, privacy = status["recorder"], status["privacy"]
captured = recorder["framesCaptured"]
print(f"| {size} | {fps:.0f} | {minutes:.0f} min | {captured:.0f} | {captured / (minutes * 60):.1f} | "
      f"{recorder['framesDropped']:.0f} | {recorder['framesEncoded']:.0f} | {privacy['framesSearched']:.0f} "
      f"(1 in {captured / max(privacy['framesSearched'], 1):.1f}) | {privacy['meanDetectionMs']:.0f} | "
      f"{privacy['framesWithFaces']:.0f} | {rss_mb:.0f} |")
PY
