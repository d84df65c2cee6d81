#!/bin/bash
# Runs inside the power-cut VM at every boot (Tests/powercut/power_cut_vm.py boots it and
# cuts its power). Mounts the store's own disk, starts the node as a machine's boot would,
# reports what survived the last cut as the node lists it after its own recovery, then
# keeps writing what the cut should catch: chunks and evictions always, and token
# rotations or runtime-config writes in a tight loop. Everything reaches the host as lines
# on the console. Usage: guest.sh NODE_BINARY ACTIVITY (eviction, token or config)
set -u
NODE=$1
ACTIVITY=$2
API=http://127.0.0.1:8090
STORE=/tmp/store/node
export ALLSPARK_SERVER_ANNOUNCE=false ALLSPARK_CLOCK_SYNC_REQUIRED=false
now() { date +%s%3N; }

mkdir -p /tmp/store
mount -t ext4 /dev/vda /tmp/store || { echo "FAILED mount"; exit 1; }
mkdir -p "$STORE"
BOOT_MS=$(now)
echo "BOOT $BOOT_MS"
# A 1 MiB cap over 2 s chunks: the oldest chunk is evicted every couple of seconds.
"$NODE" run --config /dev/null --store "$STORE" --source testsrc --size 320x180 --fps 10 --chunk-ms 2000 \
    --cap-mb 1 --privacy none --port 8090 > /tmp/node.log 2>&1 &
for _ in $(seq 600); do curl -s -o /dev/null "$API/api/health" && break; sleep 0.2; done
curl -s -o /dev/null "$API/api/health" || { echo "FAILED node did not start"; tail -20 /tmp/node.log; exit 1; }
echo "READY $(now)"

# What the last cut left, once the node has recovered it: the chunks that began before this boot.
"$NODE" chunks --json --store "$STORE" | python3 -c '
import json, sys
before = [chunk for chunk in json.load(sys.stdin) if chunk["startMs"] < int(sys.argv[1])]
print("LISTED " + json.dumps(before, separators=(",", ":")))
for chunk in before:
    print("FILE " + chunk["file"] + " " + str(chunk["frames"]))
' "$BOOT_MS" > /tmp/listed.txt
grep '^LISTED ' /tmp/listed.txt
# Each listed chunk must decode to its last frame (one still evicted meanwhile is GONE, not broken).
grep '^FILE ' /tmp/listed.txt | while read -r _ file frames; do
    decoded=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$STORE/$file" 2>/dev/null)
    errors=$(ffmpeg -v error -i "$STORE/$file" -f null - 2>&1 | wc -l)
    if [ -e "$STORE/$file" ]; then echo "CHECK $file $frames ${decoded:-0} $errors"; else echo "GONE $file"; fi
done
echo "CHECKED $(now)"

TOKEN=$(cat "$STORE/.allspark-token")
case $ACTIVITY in
    token)
        n=0
        while true; do
            token=$("$NODE" token --rotate --store "$STORE") && n=$((n + 1)) && echo "ROTATED $n $token"
        done ;;
    config)
        while true; do
            for megabytes in 1 1.5; do
                curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $TOKEN" \
                    -H 'Content-Type: application/json' -d "{\"videoBufferMaxMB\": $megabytes}" "$API/api/config" \
                    | grep -q 200 && echo "CONFIG $megabytes"
                TOKEN=$(cat "$STORE/.allspark-token")
            done
        done ;;
    *)
        while true; do echo "ALIVE $(now)"; sleep 1; done ;;
esac
