#!/usr/bin/env bash
# Sets up a fresh Debian 12 or 13 machine with Swift and runs every test, at once:
# - one release build of this release's package with the Swift test bundle
#   (scripts/package.sh --with-tests): the Swift suites (real libav, OpenCV, avahi-daemon)
#   run from it, and every Python suite drives its binary, the one the package ships;
# - the other release's package, built in a root of it (scripts/debian-root.sh) in the
#   background at a low CPU weight, then in that root the footage readers' and ONVIF
#   validator's suites against its binary (scripts/release-tests.sh);
# - the protocol/API tests, the dashboard's browser tests, the documentation and the ONVIF
#   clients, in parallel pytest-xdist workers (`parallel_suites` below;
#   ALLSPARK_TEST_WORKERS, 4 by default);
# - once those are done, the camera suite (a real V4L2 driver in a VM) and the power-cut
#   suite (3 seeded power cuts of a recording VM), at once, each in a pytest process of
#   its own, and beside them the package suite (each .deb installed into a booted Debian
#   of its release with systemd; its containers share the host's network, so not beside
#   the Python suites): this release's first, the other's once its package is built.
# The fuzz targets run over their corpora in the Swift suite (FuzzCorpusTests); mutating
# them under AddressSanitizer needs a build of its own and is scripts/fuzz.sh's work.
# Every pytest run fails on a skip (Tests/no_skips.py); -rs still prints why. Each part's
# start, end, duration and CPU time are printed as it ends, and all of them and the whole
# at the end (Tests/test-times.md has the figures).
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
# A run is CPU-bound on 2 cores (Tests/test-times.md: the builds were 86 of about 185
# CPU-minutes), so nothing is built twice: this release's package build also builds the
# Swift test bundle, and every suite uses that build. The other release's package is built
# in a root of it (scripts/debian-root.sh), beside everything else at a low CPU weight
# (`background`): it is needed only by the package suite at the end, and the builds and
# suites on the way there should not wait for it. The footage readers' and ONVIF
# validator's suites then judge its binary in that root. The release-dependent Swift
# suites in that root (release-tests.sh --swift, Tests/release-suites.txt) are run by
# hand (Tests/README.md). Package.resolved is written once first, so the two builds only
# read it. Each background part's output is kept in a log and shown when it is done.
swift package resolve
# nice does not reach SwiftPM's compilers (it starts them at nice 0, measured), so the
# background part gets half the weight of the rest in a CPU cgroup of its own (cgroup v1's
# cpu.shares, 512 against the default 1024; systemd-nspawn --keep-unit keeps the root's
# processes in it), and nice where no such cgroup can be made. Half, not less: at 128 it
# got so little beside this release's build and the suites that it finished 20 minutes
# after them and held up the package suite (Tests/test-times.md).
background() {
    local group=/sys/fs/cgroup/cpu/allspark-test-background
    if mkdir -p "$group" 2>/dev/null && echo 512 >"$group/cpu.shares" 2>/dev/null; then
        # A group that takes no process (another cgroup layout) leaves the part niced instead.
        ( echo "$BASHPID" >"$group/cgroup.procs" 2>/dev/null || exec nice -n 10 "$@"; exec "$@" )
    else
        nice -n 10 "$@"
    fi
}
other_package_built=$logs/other-package-built
other_release_part() {
    timed "Debian $other package (release build in a Debian $other root)" background bash scripts/package.sh --debian "$other"
    touch "$other_package_built"
    timed "Debian $other root: footage readers and validator" \
        background env ALLSPARK_ROOT_SETUP=--release-tests bash scripts/debian-root.sh "$other" --private-network \
        env ALLSPARK_NODE_BIN=".build-package-deb$other/release/allspark-node" bash scripts/release-tests.sh
}
other_release_part >"$logs/other" 2>&1 &
other_pid=$!
this_build=.build-package-deb$release
timed "Debian $release package and the Swift test bundle (one release build)" bash scripts/package.sh --debian "$release" --with-tests
# Every Python suite drives the package's own binary.
export ALLSPARK_NODE_BIN=$PWD/$this_build/release/allspark-node
# The VM suites wait for the Python suites (their CPU: two guests beside the Python suites
# cost the floods' node frames), then run beside the package suite, the two at once, each
# in a pytest process and --basetemp of its own: a software-emulated guest keeps about one
# core busy on average (measured: the camera guest 14 CPU-minutes in 18, the power-cut
# guests 18 in 17), so one after the other they left a core idle for half an hour at the
# end (Tests/test-times.md).
vm_suite() {   # FOLDER NAME
    timed "$2 suite (a VM)" "$python" -m pytest "${no_skips[@]}" -q -rs --durations=5 --basetemp="$logs/$1-suite" "Tests/$1"
}
python_suites_done=$logs/python-suites-done
vm_part() {
    # $$ is this script: gone (a suite before failed to start), the VM suites have nothing to wait for.
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
swift_status=0
timed "Swift suites (release build)" swift test -c release --scratch-path "$this_build" --skip-build || swift_status=$?
python_status=0
timed "Python suites in $workers workers: ${parallel_suites[*]}" \
    "$python" -m pytest "${no_skips[@]}" -q -rs --durations=10 -n "$workers" --dist loadgroup \
    --basetemp="$logs/parallel-suites" "${parallel_suites[@]}" || python_status=$?
touch "$python_suites_done"
# The package suite, one release at a time (their booted containers share the host's
# network and ports, so neither beside the suites above nor beside each other; beside the
# VM suites, whose guests have networks of their own, and the other release's root,
# --private-network, they may run): this release's at once, the other's once its package
# is built (in the background, the run's last build).
package_suite() {   # RELEASE
    timed "package suite (Debian $1)" \
        "$python" -m pytest "${no_skips[@]}" -q -rs --durations=5 --basetemp="$logs/package-suite-$1" -k "debian$1" Tests/package
}
package_status=0
package_suite "$release" || package_status=$?
while [ ! -e "$other_package_built" ] && kill -0 "$other_pid" 2>/dev/null; do sleep 5; done
if [ -e "$other_package_built" ]; then
    package_suite "$other" || package_status=$?
else
    echo "== the Debian $other package was not built: its package suite did not run"
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
other_status=0; show other "$other_pid" "the Debian $other package and root" 200 || other_status=$?
mark "all done"
echo "== the parts, in seconds since the start (some overlap, as the script says; cpu: the part's processes' user and system seconds):"
printf '%7s %7s %7s %7s %6s  %s\n' start end took cpu status part
sort -n -k1,1 "$times"
echo "== the whole test command: $(clock "SECONDS - started")"
rm -rf "$logs"
for status in "$swift_status" "$python_status" "$package_status" "$vm_status" "$other_status"; do
    [ "$status" -eq 0 ] || { echo "== a part failed (exit $status), see above"; exit "$status"; }
done
