#!/usr/bin/env bash
# Sets up a fresh Debian 12 or 13 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), a .deb for each release (scripts/package.sh; the
# other release's built in a root of it, scripts/debian-root.sh), the footage readers'
# and ONVIF validator's suites run again on the other release (scripts/release-tests.sh in
# its root, with the package's binary), then
# the protocol/API tests, the dashboard's browser tests and the camera suite (a real V4L2
# driver in a VM), which drive the built node binary from Python, the power-cut suite (3
# seeded power cuts of a recording VM), the package suite (each .deb installed into a
# booted Debian of its release with systemd), and the documentation (links, page sizes,
# commands); beside them, each fuzz target for a few seconds under AddressSanitizer.
# -rs prints why anything was skipped; each part's time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
mark() { echo "== $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s since the start)"; }
release=$(. /etc/os-release && echo "${VERSION_ID:-}")
other=$(( release == 12 ? 13 : 12 ))

bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
# setup.sh puts the tests' Python packages in a venv where python3 is Debian's own.
python=python3
[ -x /opt/allspark-tests/bin/python3 ] && python=/opt/allspark-tests/bin/python3
mark "set up"
swift build --build-tests
mark "debug build done"
swift test --skip-build
mark "Swift suites done"
# The packages (the other release's in a root of it) and the other release's suites build
# and run while the Python suites that need none of them run here: the builds use the CPU
# those suites leave idle while they wait on real-time recording. Their output is kept in
# a log and shown when they are done.
other_log=$(mktemp)
(
    bash scripts/package.sh --debian "$release"
    mark "Debian $release package built"
    bash scripts/package.sh --debian "$other"
    mark "Debian $other package built (in a Debian $other root)"
    ALLSPARK_ROOT_SETUP=--release-tests bash scripts/debian-root.sh "$other" --private-network bash scripts/release-tests.sh
    mark "Debian $other: footage readers and validator done"
) >"$other_log" 2>&1 &
other_pid=$!
# The fuzz targets' smoke run (scripts/fuzz.sh: an AddressSanitizer build of its own, then
# each target 5 s) beside them too, niced so the recording tests keep their CPU; an input
# may take 60 s here (the 1-s hang limit is the campaign's, on a quiet machine).
fuzz_log=$(mktemp)
(
    FUZZ_TIMEOUT=60 nice -n 10 bash scripts/fuzz.sh 5
    mark "fuzz targets' smoke run done"
) >"$fuzz_log" 2>&1 &
fuzz_pid=$!
python_status=0
"$python" -m pytest -q -rs --durations=10 Tests/protocol Tests/web Tests/camera Tests/powercut Tests/docs || python_status=$?
mark "Python suites but the package suite done"
other_status=0
wait "$other_pid" || other_status=$?
echo "== The packages' and the Debian $other part's output:"
sed -e 's/.*\x1b\[2K//' "$other_log" | tail -n 300   # the text after swift build's progress updates
rm -f "$other_log"
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
echo "== The fuzz targets' smoke run:"
tail -n 60 "$fuzz_log"
rm -f "$fuzz_log"
[ "$other_status" -eq 0 ] || { echo "== the packages or the Debian $other part failed ($other_status)"; exit "$other_status"; }
[ "$fuzz_status" -eq 0 ] || { echo "== a fuzz target failed ($fuzz_status)"; exit "$fuzz_status"; }
[ "$python_status" -eq 0 ] || exit "$python_status"
"$python" -m pytest -q -rs --durations=10 Tests/package
mark "package suite done (Debian 12 and 13)"
