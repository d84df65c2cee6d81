#!/usr/bin/env bash
# The recorder on a disk whose syncs are slow (an SD card, a network disk), against a second
# binary, in one run: every fdatasync of the node is made SLOW_SYNC_MS longer by a preloaded
# wrapper built here, and each binary records the same 20 s 720p clip unpaced (--no-pace),
# in turn, ROUNDS times with the delay and ROUNDS times without it. Prints each run's wall
# seconds, and per binary and delay the median, and NEW/OLD.
# Usage: bench/slow-sync.sh NEW_BINARY OLD_BINARY
# Env:   SLOW_SYNC_MS=20  ROUNDS=3  SIZE=1280x720  CHUNK_MS=2000
set -euo pipefail
cd "$(dirname "$0")/.."
new=$1
old=$2
delay=${SLOW_SYNC_MS:-20}
rounds=${ROUNDS:-3}
size=${SIZE:-1280x720}
chunk_ms=${CHUNK_MS:-2000}
work=$(mktemp -d /tmp/allspark-slow-sync.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat >"$work/slow_fdatasync.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* fdatasync, SLOW_SYNC_MS milliseconds slower. */
int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    const char *text = getenv("SLOW_SYNC_MS");
    long ms = text ? atol(text) : 0;
    struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&pause, NULL);
    return real(fd);
}
EOF
gcc -shared -fPIC -O2 -o "$work/slow_fdatasync.so" "$work/slow_fdatasync.c" -ldl
ffmpeg -v error -f lavfi -i "testsrc2=size=$size:rate=30" -t 20 -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$work/clip.mp4"

# Prints the wall seconds of one recording of the clip by $1 with syncs $2 ms slower.
record() {
  local store="$work/store"
  rm -rf "$store"
  local started ended
  started=$(date +%s.%N)
  LD_PRELOAD="$work/slow_fdatasync.so" SLOW_SYNC_MS=$2 "$1" run --source "$work/clip.mp4" --size "$size" --fps 30 \
      --no-pace --no-loop --privacy none --chunk-ms "$chunk_ms" --store "$store" --config /dev/null 2>"$work/node.log" \
      || { cat "$work/node.log" >&2; exit 1; }
  ended=$(date +%s.%N)
  local frames
  frames=$("$1" chunks --store "$store" --json --config /dev/null | python3 -c 'import json,sys; print(sum(c["frames"] for c in json.load(sys.stdin)))')
  [ "$frames" -eq 600 ] || { echo "$1 stored $frames of 600 frames" >&2; exit 1; }
  python3 -c "print(f'{$ended - $started:.3f}')"
}

for ms in "$delay" 0; do
  : >"$work/new-$ms" && : >"$work/old-$ms"
  for round in $(seq "$rounds"); do
    record "$new" "$ms" >>"$work/new-$ms"
    record "$old" "$ms" >>"$work/old-$ms"
    echo "syncs +$ms ms, round $round: new $(tail -1 "$work/new-$ms") s, old $(tail -1 "$work/old-$ms") s"
  done
  python3 - "$work/new-$ms" "$work/old-$ms" "$ms" <<'EOF'
import statistics, sys
new = [float(line) for line in open(sys.argv[1])]
old = [float(line) for line in open(sys.argv[2])]
ratios = [a / b for a, b in zip(new, old)]
print(f"syncs +{sys.argv[3]} ms: new median {statistics.median(new):.2f} s, old {statistics.median(old):.2f} s, "
      f"new/old {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
EOF
done
