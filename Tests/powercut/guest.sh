#!/bin/bash
# Runs inside the power-cut VM at every boot (Tests/powercut/power_cut_vm.py boots it and
# cuts its power). Mounts the store's own disk, starts the node as a machine's boot would,
# reports what survived the last cut as the node lists it after its own recovery, then
# keeps writing what the cut should catch: chunks and evictions always, and token
# rotations, runtime-config writes or archive uploads (each one a line appended to the
# archive journal) in a tight loop. Each boot also reports the holds the last cut left,
# releases them and holds the first chunk it records, so that the cut finds a hold on disk. Everything reaches the host as lines appended to EVENTS,
# a file in a folder shared with the host (the console reaches the host only when the guest
# ends, and a cut guest never ends).
# Usage: guest.sh EVENTS NODE_BINARY ACTIVITY [ARCHIVE_ENV]
# ACTIVITY is eviction, token, config or archive; ARCHIVE_ENV (archive only) is a file of
# shell assignments: ARCHIVE_ENDPOINT, ARCHIVE_BUCKET, ARCHIVE_PREFIX and the credentials
# AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, for the host's radosgw as QEMU's user
# network shows it (10.0.2.2 is the host's loopback).
set -u
EVENTS=$1
NODE=$2
ACTIVITY=$3
# The node's log goes beside EVENTS, where the host reads it after the cut.
NODE_LOG=$(dirname "$EVENTS")/node.log
API=http://127.0.0.1:8090
STORE=/tmp/store/node
export ALLSPARK_SERVER_ANNOUNCE=false ALLSPARK_CLOCK_SYNC_REQUIRED=false
now() { date +%s%3N; }
say() { echo "$*" >> "$EVENTS"; }

mkdir -p /tmp/store
mount -t ext4 /dev/vda /tmp/store || { say "FAILED mount"; exit 1; }
mkdir -p "$STORE"
BOOT_MS=$(now)
say "BOOT $BOOT_MS"
# The guest's clock comes from the virtual RTC in whole seconds, so it runs up to a second
# behind the host's, and the node stamps frames by it: twice a second, the host's time as
# last read from the file the host keeps rewriting, and this clock's (bash builtins only,
# so the loop costs the emulated guest next to nothing).
HOST_CLOCK=$(dirname "$EVENTS")/host-clock
while true; do
    read -r host_ms < "$HOST_CLOCK" && say "CLOCK $host_ms $((${EPOCHREALTIME/./} / 1000))"
    sleep 0.5
done &
CHUNK_MS=2000
ARCHIVE_FLAGS=()
# QEMU's user network puts the guest at 10.0.2.15 and the host's loopback at 10.0.2.2.
# virtme-ng configures it by DHCP, which now and then never completes (the node then
# found the network unreachable for the whole boot); unless an address came within 5 s,
# the same settings are made here.
bring_up_user_network() {
    local device
    device=$(ls /sys/class/net | grep -vx lo | head -1)
    [ -n "$device" ] || { say "FAILED no network device"; return; }
    for _ in $(seq 50); do ip -4 -o addr show dev "$device" | grep -q inet && return; sleep 0.1; done
    ip link set "$device" up
    ip addr add 10.0.2.15/24 dev "$device"
    ip route add default via 10.0.2.2 dev "$device"
    say "NETWORK set by hand on $device"
}
if [ "$ACTIVITY" = archive ]; then
    set -a; . "$4"; set +a
    bring_up_user_network
    # Chunks of 1 s (the shortest the node takes): a journal line every second.
    CHUNK_MS=1000
    ARCHIVE_FLAGS=(--archive-endpoint "$ARCHIVE_ENDPOINT" --archive-bucket "$ARCHIVE_BUCKET" --archive-prefix "$ARCHIVE_PREFIX")
fi
# A roomy cap while what the last cut left is checked; 0.25 MiB over 2 s chunks (about
# 40 KiB each) after that, so that the oldest chunk is evicted every couple of seconds
# when the power goes, and the next boot has few chunks to check.
"$NODE" run --config /dev/null --store "$STORE" --source testsrc --size 320x180 --fps 10 --chunk-ms "$CHUNK_MS" \
    --cap-mb 64 --privacy none --port 8090 "${ARCHIVE_FLAGS[@]}" > "$NODE_LOG" 2>&1 &
for _ in $(seq 600); do curl -s -o /dev/null "$API/api/health" && break; sleep 0.2; done
curl -s -o /dev/null "$API/api/health" || { say "FAILED node did not start: $(tail -5 "$NODE_LOG")"; exit 1; }
say "READY $(now)"

# What the last cut left, once the node has recovered it: the chunks that began before this boot.
# A listing that fails is said with its exit status and tried again (once, in 8 boots on a
# host at load 12, it printed nothing and the boot's checks never came).
for attempt in 1 2 3; do
    "$NODE" chunks --json --config /dev/null --store "$STORE" > /tmp/chunks.json 2> /tmp/chunks-errors && break
    say "LISTFAILED attempt $attempt status $? $(tail -c 300 /tmp/chunks-errors | tr '\n' ' ')"
    sleep 1
done
python3 -c '
import json, sys
before = [chunk for chunk in json.load(sys.stdin) if chunk["startMs"] < int(sys.argv[1])]
print("LISTED " + json.dumps(before, separators=(",", ":")))
for chunk in before:
    print("FILE " + chunk["file"] + " " + str(chunk["frames"]))
' "$BOOT_MS" < /tmp/chunks.json > /tmp/listed.txt
grep '^LISTED ' /tmp/listed.txt >> "$EVENTS"
# Each listed chunk must decode to its last frame (one still evicted meanwhile is GONE, not broken).
grep '^FILE ' /tmp/listed.txt | while read -r _ file frames; do
    decoded=$(ffmpeg -nostdin -v error -i "$STORE/$file" -map 0:v:0 -f framecrc - 2>/tmp/decode-errors | grep -vc '^#')
    if [ -e "$STORE/$file" ]; then say "CHECK $file $frames $decoded $(wc -l < /tmp/decode-errors)"; else say "GONE $file"; fi
done
say "CHECKED $(now)"

TOKEN=$(cat "$STORE/.allspark-token")
# The holds the last cut left (the host checks the last boot's hold is among them and its
# chunk still listed), released so they do not add up over the boots; then a hold on the
# first chunk of this boot, which the 0.25 MiB cap below would evict within seconds.
holds=$(curl -s -H "Authorization: Bearer $TOKEN" "$API/api/holds")
say "HOLDS $(echo "$holds" | python3 -c 'import json, sys; print(json.dumps([h["id"] for h in json.load(sys.stdin)["holds"]]))')"
for id in $(echo "$holds" | python3 -c 'import json, sys; print(" ".join(h["id"] for h in json.load(sys.stdin)["holds"]))'); do
    curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$API/api/holds/$id"
done
for _ in $(seq 100); do
    first=$(curl -s -H "Authorization: Bearer $TOKEN" "$API/api/chunks?start=$((BOOT_MS / 1000 + 1))" \
        | python3 -c 'import json, sys; c = json.load(sys.stdin)["chunks"]; print(c[0]["file"], c[0]["startMs"], c[0]["endMs"]) if c else None')
    [ -n "$first" ] && break
    sleep 0.5
done
read -r held_file held_start held_end <<< "$first"
held=$(curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"start\": $held_start.0e-3, \"end\": $((held_end + 1)).0e-3, \"reason\": \"power-cut rig\"}" "$API/api/holds" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["hold"]["id"])') && say "HELD $held $held_file" \
    || say "FAILED no hold placed on $held_file"
curl -s -o /dev/null -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"videoBufferMaxMB": 0.25}' "$API/api/config" || say "FAILED the cap could not be set"

case $ACTIVITY in
    token)
        n=0
        while true; do
            token=$("$NODE" token --rotate --config /dev/null --store "$STORE") && n=$((n + 1)) && say "ROTATED $n $token"
        done ;;
    config)
        while true; do
            for megabytes in 0.25 0.5; do
                curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $TOKEN" \
                    -H 'Content-Type: application/json' -d "{\"videoBufferMaxMB\": $megabytes}" "$API/api/config" \
                    | grep -q 200 && say "CONFIG $megabytes"
                TOKEN=$(cat "$STORE/.allspark-token")
            done
        done ;;
    archive)
        # The uploader's count of chunks archived, as it grows: each is a journal line.
        archived=0
        while true; do
            count=$(curl -s -H "Authorization: Bearer $TOKEN" "$API/api/status" | grep -o '"chunksArchived" *: *[0-9]*' | grep -o '[0-9]*$')
            if [ -n "$count" ] && [ "$count" != "$archived" ]; then archived=$count; say "ARCHIVED $count"; fi
            sleep 0.5
        done ;;
    *)
        while true; do say "ALIVE $(now)"; sleep 1; done ;;
esac
