#!/usr/bin/env bash
# Sets up a fresh Debian 12 or 13 machine with Swift and runs every test, at once:
# - a .deb for each release (scripts/package.sh, one release build each, niced, which the
#   package suite installs; the other release's built in a root of it,
#   scripts/debian-root.sh), then in that root the footage readers' and ONVIF validator's
#   suites against its binary (scripts/release-tests.sh);
# - the Swift suites (real libav, OpenCV, avahi-daemon), then the protocol/API tests, the
#   dashboard's browser tests, the documentation and the ONVIF clients, which drive the
#   built node binary from Python, in parallel pytest-xdist workers (`parallel_suites`
#   below; ALLSPARK_TEST_WORKERS, 4 by default);
# - once this release's package is built and the Python suites are done, the camera suite
#   (a real V4L2 driver in a VM) and the power-cut suite (3 seeded power cuts of a
#   recording VM), at once, each in a pytest process of its own;
# and, once the Python suites are done and both packages built, the package suite (each
# .deb installed into a booted Debian of its release with systemd; its containers share
# the host's network, so not beside the Python suites).
# The fuzz targets run over their corpora in the Swift suite (FuzzCorpusTests); mutating
# them under AddressSanitizer needs a build of its own and is scripts/fuzz.sh's work.
# Every pytest run fails on a skip (Tests/no_skips.py); -rs still prints why. Each part's
# start, end and duration are printed as it ends, and all of them and the whole at the end
# (Tests/test-times.md has the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python suites run in parallel pytest-xdist workers (their nodes mostly wait on real-time
# recording): every folder here, its modules spread over the workers by --dist loadgroup
# (modules that cannot run beside each other, or share module fixtures, carry an
# xdist_group mark). A new Python suite folder goes in this line.
parallel_suites=(Tests/protocol Tests/web Tests/docs Tests/onvif)
workers=${ALLSPARK_TEST_WORKERS:-4}
started=$SECONDS
logs=$(mktemp -d)
times=$logs/times
clock() { echo "$(( ($1) / 60 )) min $(( ($1) % 60 )) s"; }
mark() { echo "== $1 ($(clock "SECONDS - started") since the start)"; }
# The CPU seconds (user and system) of a `times` output's second line: a subshell's children.
cpu_seconds() { awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); total += t[1] * 60 + t[2] } printf "%d", total }' "$1"; }
timed() {   # NAME COMMAND...: runs a part, prints and keeps its start, end, duration and CPU time
    local name=$1 begin=$SECONDS status=0 cpu_file cpu
    shift
    cpu_file=$(mktemp -p "$logs")
    echo "== $name: started ($(clock "begin - started") since the start)"
    # In a subshell of its own, whose `times` then counts the part's processes only.
    ( set +e; "$@"; code=$?; times >"$cpu_file"; exit "$code" ) || status=$?
    cpu=$(cpu_seconds "$cpu_file")
    echo "== $name: ended with $status ($(clock "SECONDS - started") since the start, took $(clock "SECONDS - begin"), CPU $(clock "${cpu:-0}"))"
    printf '%7s %7s %7s %7s %6s  %s\n' "$(( begin - started ))" "$(( SECONDS - started ))" "$(( SECONDS - begin ))" "${cpu:-0}" "$status" "$name" >>"$times"
    return "$status"
}
release=$(. /etc/os-release && echo "${VERSION_ID:-}")
other=$(( release == 12 ? 13 : 12 ))
# Every pytest run loads Tests/no_skips.py: a skip fails the run (setup installs what each
# suite needs, so a skip would hide a suite that checked nothing).
export PYTHONPATH=$PWD/Tests${PYTHONPATH:+:$PYTHONPATH}
no_skips=(-p no_skips)

setup() {
    bash scripts/setup.sh --test
    if [ -x scripts/start-avahi.sh ]; then bash scripts/start-avahi.sh; fi
}
timed "set up" setup
# setup.sh puts the tests' Python packages in a venv where python3 is Debian's own.
python=python3
[ -x /opt/allspark-tests/bin/python3 ] && python=/opt/allspark-tests/bin/python3
# The two packages' release builds start now, beside the debug build and the suites, at
# nice 10: they are the longest chain (a release build's whole-module step keeps one core
# busy for minutes, which the debug build and the suites fill), and niced they take only
# the CPU the suites leave. Package.resolved is written once first, so the builds that run
# at once only read it. This release's package is built here; the other's in a root of it
# (scripts/debian-root.sh), where the footage readers' and ONVIF validator's suites then
# judge its binary. The release-dependent Swift suites in that root (release-tests.sh
# --swift, Tests/release-suites.txt) need a debug build of their own there, more than this
# command's 90-minute bound leaves on a slow 2-core host: they are run by hand (Tests/README.md).
# Each part's output is kept in a log and shown when it is done.
swift package resolve
this_package_built=$logs/this-package-built
other_package_built=$logs/other-package-built
this_package_part() {
    timed "Debian $release package (release build)" nice -n 10 bash scripts/package.sh --debian "$release"
    touch "$this_package_built"
}
other_release_part() {
    timed "Debian $other package (release build in a Debian $other root)" nice -n 10 bash scripts/package.sh --debian "$other"
    touch "$other_package_built"
    timed "Debian $other root: footage readers and validator" \
        env ALLSPARK_ROOT_SETUP=--release-tests nice -n 5 bash scripts/debian-root.sh "$other" --private-network \
        env ALLSPARK_NODE_BIN=".build-package-deb$other/release/allspark-node" bash scripts/release-tests.sh
}
this_package_part >"$logs/this" 2>&1 &
this_pid=$!
other_release_part >"$logs/other" 2>&1 &
other_pid=$!
# The VM suites wait for this release's package and the Python suites (their CPU: two
# guests beside the Python suites cost the floods' node frames), then run beside the
# package suite, the two at once, each in a pytest process and --basetemp of its own: a
# software-emulated guest keeps about one core busy on average (measured: the camera guest
# 14 CPU-minutes in 18, the power-cut guests 18 in 17), so one after the other they left
# a core idle for half an hour at the end (Tests/test-times.md).
vm_suite() {   # FOLDER NAME
    timed "$2 suite (a VM)" "$python" -m pytest "${no_skips[@]}" -q -rs --durations=5 --basetemp="$logs/$1-suite" "Tests/$1"
}
python_suites_done=$logs/python-suites-done
vm_part() {
    while [ ! -e "$this_package_built" ] && kill -0 "$this_pid" 2>/dev/null; do sleep 5; done
    # $$ is this script: gone (a build failed), the VM suites have nothing to wait for.
    while [ ! -e "$python_suites_done" ] && kill -0 $$ 2>/dev/null; do sleep 5; done
    [ -e "$python_suites_done" ] || return 1
    local status=0 camera power_cut
    vm_suite camera camera >"$logs/vm-camera" 2>&1 &
    camera=$!
    vm_suite powercut power-cut >"$logs/vm-powercut" 2>&1 &
    power_cut=$!
    wait "$camera" || status=$?
    wait "$power_cut" || status=$?
    cat "$logs/vm-camera" "$logs/vm-powercut"
    return "$status"
}
vm_part >"$logs/vm" 2>&1 &
vm_pid=$!
timed "debug build (node and Swift tests)" swift build --build-tests
timed "Swift suites" swift test --skip-build
python_status=0
timed "Python suites in $workers workers: ${parallel_suites[*]}" \
    "$python" -m pytest "${no_skips[@]}" -q -rs --durations=10 -n "$workers" --dist loadgroup \
    --basetemp="$logs/parallel-suites" "${parallel_suites[@]}" || python_status=$?
touch "$python_suites_done"
# The package suite once both packages are built: its booted containers share the host's
# network and mDNS, so not beside the suites above; beside the VM suites (their guests
# have networks of their own) and the Debian 13 root (--private-network) it may run.
while [ ! -e "$this_package_built" ] && kill -0 "$this_pid" 2>/dev/null; do sleep 5; done
while [ ! -e "$other_package_built" ] && kill -0 "$other_pid" 2>/dev/null; do sleep 5; done
package_status=0
if [ -e "$this_package_built" ] && [ -e "$other_package_built" ]; then
    timed "package suite (Debian 12 and 13)" \
        "$python" -m pytest "${no_skips[@]}" -q -rs --durations=10 --basetemp="$logs/package-suite" Tests/package || package_status=$?
else
    echo "== the packages were not built: the package suite did not run"
    package_status=1
fi
show() {   # NAME PID LABEL: waits for a part, prints its log's end, keeps its status
    local status=0
    wait "$2" || status=$?
    echo "== $3 ($status):"
    sed -e 's/.*\x1b\[2K//' "$logs/$1" | tail -n "${4:-120}"   # the text after swift build's progress updates
    if [ "$status" -ne 0 ]; then   # what failed, wherever it is in the log
        echo "== $3: the lines that say what failed"
        grep -a -E "recorded an issue|✘|FAILED|^E   |error:" "$logs/$1" | head -n 60 || true
    fi
    return "$status"
}
vm_status=0; show vm "$vm_pid" "the camera and power-cut suites" 160 || vm_status=$?
this_status=0; show this "$this_pid" "the Debian $release package" 40 || this_status=$?
other_status=0; show other "$other_pid" "the Debian $other package and root" 200 || other_status=$?
mark "all done"
echo "== the parts, in seconds since the start (some overlap, as the script says; cpu: the part's processes' user and system seconds):"
printf '%7s %7s %7s %7s %6s  %s\n' start end took cpu status part
sort -n -k1,1 "$times"
echo "== the whole test command: $(clock "SECONDS - started")"
rm -rf "$logs"
for status in "$python_status" "$package_status" "$vm_status" "$this_status" "$other_status"; do
    [ "$status" -eq 0 ] || { echo "== a part failed (exit $status), see above"; exit "$status"; }
done
