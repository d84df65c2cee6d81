#!/usr/bin/env bash
# The installed node against today's build: the package's binary (Swift runtime linked
# statically, scripts/package.sh) and scripts/run.sh's release build (shared Swift runtime)
# each record the test pattern with the default settings (1280x720, 30 fps, privacy on)
# and no clients, in turns (A B A B), for SECONDS each; prints VmRSS at the end and VmHWM.
#   bash bench/appliance-bench.sh [SECONDS]      (needs both builds)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
packaged=.build-package/release/allspark-node
shared=.build/release/allspark-node
for binary in "$packaged" "$shared"; do
    [ -x "$binary" ] || { echo "missing $binary: run scripts/package.sh and swift build -c release" >&2; exit 1; }
done
measure() {  # label binary
    local store
    store=$(mktemp -d)
    ALLSPARK_SERVER_ANNOUNCE=false ALLSPARK_CLOCK_SYNC_REQUIRED=false \
        "$2" run --config /dev/null --store "$store" --source testsrc --port 0 > "$store.log" 2>&1 &
    local pid=$!
    sleep "$seconds"
    local rss hwm
    rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
    kill -TERM $pid; wait $pid || true
    awk -v label="$1" -v rss="$rss" -v hwm="$hwm" 'BEGIN { printf "%-28s RSS %6.1f MiB  peak %6.1f MiB\n", label, rss / 1024, hwm / 1024 }'
    rm -rf "$store" "$store.log"
}
for round in 1 2; do
    measure "package (static runtime) #$round" "$packaged"
    measure "run.sh (shared runtime) #$round" "$shared"
done
ls -l "$packaged" "$shared" | awk '{printf "%-40s %6.1f MB\n", $9, $5 / 1e6}'
deb=$(ls -t dist/allspark-node_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] && echo "$deb: $(stat -c %s "$deb") bytes, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB"
