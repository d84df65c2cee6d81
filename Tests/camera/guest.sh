#!/bin/bash
# Runs inside the VM (Tests/camera/vm.py boots it): a real vivid V4L2 driver, the node
# recording from it, and the faults users meet. Writes what happened to $1 for the host's
# tests to judge. Usage: guest.sh OUT NODE_BINARY
set -u
OUT=$1
NODE=$2
API=http://127.0.0.1:8090
export ALLSPARK_SERVER_ANNOUNCE=false ALLSPARK_SERVER_AUTH=none ALLSPARK_CLOCK_SYNC_REQUIRED=false
VIVID=/sys/bus/platform/drivers/vivid
step() { echo "$(date +%s.%N) $*" >> "$OUT/steps.txt"; }
health() { curl -s -o /dev/null -w '%{http_code}' "$API/api/health"; }
chunks() { ls "$1"/chunk_*.mp4 2>/dev/null | wc -l; }
wait_chunks() {  # store count seconds
    for _ in $(seq $(($3 * 5))); do [ "$(chunks "$1")" -ge "$2" ] && return 0; sleep 0.2; done; return 1
}
start_node() {  # name source extra-args...
    local name=$1 source=$2; shift 2
    mkdir -p "$OUT/$name"
    "$NODE" run --config /dev/null --source "$source" --size 320x180 --fps 10 --chunk-ms 2000 --privacy none \
        --port 8090 --store "$OUT/$name/store" "$@" > "$OUT/$name/node.log" 2>&1 &
    NODE_PID=$!
    for _ in $(seq 300); do curl -s -o /dev/null "$API/api/health" && return 0; sleep 0.2; done
}
stop_node() { kill -TERM "$NODE_PID"; wait "$NODE_PID"; echo $? > "$OUT/$1/exit-status"; }
# The /dev/videoN of the camera with bus info $1, in the devices --json file $2.
device_of() {
    python3 -c 'import json, sys; print(next(c["device"] for c in json.load(open(sys.argv[2])) if c["busInfo"] == sys.argv[1]))' "$1" "$2"
}
# Samples /api/health every 0.5 s, $2 * 2 times, into $1 (time the request started, body, HTTP code).
sample_health() {
    for _ in $(seq $(($2 * 2))); do
        echo "$(date +%s.%N) $(curl -s -w ' %{http_code}' "$API/api/health")" >> "$1"; sleep 0.5
    done
}

# Two instances (one platform device, vivid.0, holds both): two cameras with bus infos
# platform:vivid-000 and -001, each with capture, output, VBI and other nodes.
modprobe vivid n_devs=2 no_error_inj=0 || { echo "modprobe vivid failed" > "$OUT/failed"; exit 1; }
udevadm settle 2>/dev/null
step vivid loaded
v4l2-ctl --list-devices > "$OUT/v4l2-list-devices.txt" 2>&1
"$NODE" devices --json > "$OUT/devices.json" 2> "$OUT/devices.err"
"$NODE" devices > "$OUT/devices.txt" 2>&1
ls -l /dev/v4l/by-id /dev/v4l/by-path > "$OUT/stable-links.txt" 2>&1
CAPTURE0=$(device_of platform:vivid-000 "$OUT/devices.json")

# Recording from the first camera, then its faults, in one run.
start_node record "$CAPTURE0"
step record started
wait_chunks "$OUT/record/store" 3 60; step record three-chunks
sleep 0.9
step fault disconnect; v4l2-ctl -d "$CAPTURE0" -c disconnect=1 > "$OUT/record/disconnect.txt" 2>&1; step fault disconnect done
sample_health "$OUT/record/health-disconnect.txt" 4
before=$(chunks "$OUT/record/store"); wait_chunks "$OUT/record/store" $((before + 2)) 40 && step fault disconnect recovered || step fault disconnect not-recovered
step fault fatal-streaming; v4l2-ctl -d "$CAPTURE0" -c inject_fatal_streaming_error=1 > "$OUT/record/fatal.txt" 2>&1
sample_health "$OUT/record/health-fatal.txt" 3
before=$(chunks "$OUT/record/store"); wait_chunks "$OUT/record/store" $((before + 2)) 40 && step fault fatal-streaming recovered || step fault fatal-streaming not-recovered
# The next STREAMON fails once: a fatal streaming error makes the node restart streaming into it.
step fault streamon; v4l2-ctl -d "$CAPTURE0" -c inject_vidioc_streamon_error=1 -c inject_fatal_streaming_error=1 > "$OUT/record/streamon.txt" 2>&1
sample_health "$OUT/record/health-streamon.txt" 3
before=$(chunks "$OUT/record/store"); wait_chunks "$OUT/record/store" $((before + 2)) 40 && step fault streamon recovered || step fault streamon not-recovered
step fault unplug; echo vivid.0 > "$VIVID/unbind"
sample_health "$OUT/record/health-unplugged.txt" 10
echo vivid.0 > "$VIVID/bind"; step fault plugged-back
before=$(chunks "$OUT/record/store"); wait_chunks "$OUT/record/store" $((before + 2)) 60 && step fault unplug recovered || step fault unplug not-recovered
curl -s "$API/api/status" > "$OUT/record/status.json"
stop_node record

# An explicit camera format is honoured; a size the camera cannot give is refused by name.
"$NODE" devices --json > "$OUT/devices-after-faults.json"
CAPTURE0=$(device_of platform:vivid-000 "$OUT/devices-after-faults.json")
ALLSPARK_CAMERA_FORMAT=nv12 start_node format "$CAPTURE0"
wait_chunks "$OUT/format/store" 2 60
stop_node format
start_node badsize "$CAPTURE0" --size 334x222
sleep 4
curl -s "$API/api/health" > "$OUT/badsize/health.json"
stop_node badsize

# Unplugged while something still holds the old device node, a camera comes back under a
# new /dev/videoN (the old number stays taken until released): how cameras renumber.
replug_renumbered() {  # device-held-open
    sleep 600 < "$1" & local holder=$!
    sleep 0.5
    echo vivid.0 > "$VIVID/unbind"; echo vivid.0 > "$VIVID/bind"
    sleep 1; kill "$holder"; wait "$holder" 2>/dev/null
}

# source: auto finds the capture node when it is not /dev/video0.
replug_renumbered "$CAPTURE0"
"$NODE" devices --json > "$OUT/devices-renumbered.json" 2>&1
start_node auto auto
wait_chunks "$OUT/auto/store" 2 60
stop_node auto

# The same camera under a new node number: named by bus info, recording follows it.
start_node renumber v4l2:platform:vivid-000
wait_chunks "$OUT/renumber/store" 2 60
"$NODE" devices --json > "$OUT/renumber/devices-before.json"
step renumber unbinding
replug_renumbered "$(device_of platform:vivid-000 "$OUT/renumber/devices-before.json")"
step renumber rebound
"$NODE" devices --json > "$OUT/renumber/devices-after.json"
before=$(chunks "$OUT/renumber/store"); wait_chunks "$OUT/renumber/store" $((before + 2)) 60 && step renumber recovered || step renumber not-recovered
stop_node renumber
step done
touch "$OUT/finished"
