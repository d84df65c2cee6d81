#!/usr/bin/env bash
# Builds the fuzz targets (Tests/Fuzz: libFuzzer and AddressSanitizer over the node's
# parsers of outside bytes) and runs each for SECONDS (default 10), or until it has run
# RUNS inputs when RUNS is set (the campaign: RUNS=10000000 SECONDS=600). Ends with one
# line per target, `NAME: N executions, K findings`, and exits non-zero on any finding.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     environment: RUNS, JOBS (targets at once),
#                                             FUZZ_TIMEOUT (s an input may take, default 1),
#                                             FUZZ_SKIP_BUILD (run the binary built before)
# Corpora persist in .build-fuzz/corpus/<target> (seeded from Tests/Fuzz/seeds, the inputs
# of past findings in Tests/Fuzz/regressions and, where
# ../shared has them, the ONVIF framework's test files); findings go to
# .build-fuzz/findings/<target>/ (crash-*, leak-*, timeout-*, slow-unit-*, oom-*); FUZZ_SCRATCH
# moves .build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
runs=${RUNS:--1}
# An input that takes longer is a hang (a finding). 1 s on a quiet machine (the campaign);
# a run beside other work gives more.
unit_timeout=${FUZZ_TIMEOUT:-1}
jobs=${JOBS:-1}
scratch=${FUZZ_SCRATCH:-$PWD/.build-fuzz}

mkdir -p "$scratch"
# FUZZ_SKIP_BUILD=1 runs the binary already built (a campaign beside edits to the checkout).
# SwiftPM passes the two sanitizers to swiftc as two flags in a random order, and swiftc
# keeps only the last: half the builds had no coverage instrumentation in any Swift code
# (bench/history/19). The one combined flag, after SwiftPM's, holds both.
if [ -z "${FUZZ_SKIP_BUILD:-}" ] && ! swift build --package-path Tests/Fuzz --scratch-path "$scratch" --sanitize fuzzer --sanitize address \
    -Xswiftc -sanitize=fuzzer,address --product AllSparkFuzz >"$scratch/build.log" 2>&1; then
    grep -E 'error:' "$scratch/build.log" | sort -u | head -n 40 >&2
    echo "fuzz: the build failed (all of it in $scratch/build.log)" >&2
    exit 1
fi
binary=$scratch/debug/AllSparkFuzz
echo "== fuzz: built ($binary)"   # scripts/test.sh starts its VM suites after this line

mapfile -t all < <(ALLSPARK_FUZZ_LIST=1 "$binary")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Seeds from the ONVIF Media Signing framework's test files, when ../shared is beside us.
onvif=../shared/third-party/onvif-media-signing-framework/media-signing-framework-r25.12.3.tar.gz
extra=$scratch/extra-seeds
rm -rf "$extra"
if [ -f "$onvif" ]; then
    unpacked=$(mktemp -d)
    tar -xzf "$onvif" -C "$unpacked" --wildcards '*/examples/test-files/*' '*/tests/*.pem'
    mkdir -p "$extra"/{mp4-boxes,media-file,signed-stream,certificate-chain,signing-install}
    cp "$unpacked"/*/examples/test-files/test_signed_h264.mp4 "$unpacked"/*/examples/test-files/test_h264.mp4 "$extra/mp4-boxes/"
    cp "$unpacked"/*/examples/test-files/test_signed_h264.mp4 "$extra/media-file/"
    ffmpeg -loglevel error -i "$unpacked"/*/examples/test-files/test_signed_h264.mp4 -c copy -bsf:v h264_mp4toannexb -f h264 \
        "$extra/signed-stream/onvif-test-signed.h264" || true
    for pem in "$unpacked"/*/tests/*.pem "$unpacked"/*/examples/test-files/ca.pem; do
        cp "$pem" "$extra/certificate-chain/onvif-$(basename "$pem")"
        cp "$pem" "$extra/signing-install/onvif-$(basename "$pem")"
    done
    rm -rf "$unpacked"
fi

mkdir -p "$scratch/bin" "$scratch/logs"
run_target() {
    local name=$1 corpus=$scratch/corpus/$1 findings=$scratch/findings/$1
    rm -rf "$findings"   # this run's findings only; keep one by copying it to Tests/Fuzz/regressions
    mkdir -p "$corpus" "$findings"
    ln -sf "$binary" "$scratch/bin/fuzz-$name"
    local seeds=(Tests/Fuzz/seeds/"$name")
    # Every input a finding came from runs again first (the Swift suite holds them too).
    [ -d Tests/Fuzz/regressions/"$name" ] && seeds+=(Tests/Fuzz/regressions/"$name")
    [ -d "$extra/$name" ] && seeds+=("$extra/$name")
    # An input slower than FUZZ_TIMEOUT is kept (slow-unit-*) and judged alone at the end;
    # -timeout, ten times that, stops the run only for one that never ends. -rss_limit_mb
    # bounds the process, and one allocation above -malloc_limit_mb is a finding (oom-*).
    # The Swift runtime's own backtracer is off: libFuzzer reports a trap with its input.
    local files=/dev/shm/allspark-fuzz-$name-$$
    [ -d /dev/shm ] || files=$scratch/files/$name
    ALLSPARK_FUZZ_SCRATCH=$files SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
        "$scratch/bin/fuzz-$name" -max_total_time="$seconds" -runs="$runs" \
        -timeout=$(( unit_timeout * 10 )) -report_slow_units="$unit_timeout" \
        -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
        -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$scratch/logs/$name.log" 2>&1 || true
    rm -rf "$files"
}
export -f run_target
export scratch binary seconds runs extra unit_timeout
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_target {}'

# libFuzzer's times are wall-clock: on a busy machine a starved process can pass the limit on
# an input that takes milliseconds. Each slow input and timeout is run again alone, and counts
# as a hang only if it still takes the limit; otherwise it is set aside as the load's, and said so.
recheck_timeouts() {
    local name=$1 input took
    for input in "$scratch/findings/$name"/timeout-* "$scratch/findings/$name"/slow-unit-*; do
        [ -e "$input" ] || continue
        took=$(ALLSPARK_FUZZ_SCRATCH=/dev/shm/allspark-fuzz-recheck-$$ SWIFT_BACKTRACE=enable=no \
            timeout 60 "$scratch/bin/fuzz-$name" "$input" 2>&1 | sed -n 's/^Executed .* in \([0-9]*\) ms$/\1/p')
        rm -rf /dev/shm/allspark-fuzz-recheck-$$
        if [ -n "$took" ] && [ "$took" -lt $(( unit_timeout * 1000 )) ]; then
            mkdir -p "$scratch/load-timeouts/$name"
            mv "$input" "$scratch/load-timeouts/$name/"
            kind="a timeout"
            [[ "$(basename "$input")" == slow-unit-* ]] && kind="a slow input"
            echo "    $name: $kind under load took $took ms alone (set aside in $scratch/load-timeouts/$name)"
        fi
    done
}

failed=0
for name in "${targets[@]}"; do
    recheck_timeouts "$name"
    log=$scratch/logs/$name.log
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
    findings=$(find "$scratch/findings/$name" -type f | wc -l)
    if [ -z "$executions" ]; then
        echo "$name: did not finish (see $log)"; tail -n 20 "$log"; failed=1; continue
    fi
    echo "$name: $executions executions, $findings findings (coverage ${coverage:-?} edges, corpus $(find "$scratch/corpus/$name" -type f | wc -l))"
    # A binary whose Swift code lost libFuzzer's instrumentation still runs under ASan, but
    # blind; an incremental rebuild did that once (bench/history/19), so it is said.
    grep -q 'INITED cov:' "$log" || echo "    $name: WARNING: no coverage feedback (an uninstrumented build; remove $scratch and build again)"
    if [ "$findings" -gt 0 ]; then
        failed=1
        grep -m1 -A12 'ERROR: \|==ERROR\|Fatal error\|deadly signal' "$log" | sed 's/^/    /' || true
        find "$scratch/findings/$name" -type f | sed 's/^/    finding: /'
    fi
done
exit "$failed"
