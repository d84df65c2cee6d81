#!/usr/bin/env bash
# Sets up a fresh Debian 12 or 13 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then, at once:
# - the protocol/API tests, the dashboard's browser tests and the documentation, which
#   drive the built node binary from Python;
# - a .deb for each release (scripts/package.sh; the other release's built in a root of
#   it, scripts/debian-root.sh), then in that root the whole Swift suite again and the
#   footage readers' and ONVIF validator's suites (scripts/release-tests.sh --swift);
# - once the packages are built, the camera suite (a real V4L2 driver in a VM) and the
#   power-cut suite (3 seeded power cuts of a recording VM), in a pytest process of their
#   own: they need the CPU the Python suites above leave idle;
# and, once the protocol suites are done and both packages built, the package suite (each
# .deb installed into a booted Debian of its release with systemd; its containers share
# the host's network, so not beside the protocol suites).
# The fuzz targets run over their corpora in the Swift suite (FuzzCorpusTests); mutating
# them under AddressSanitizer needs a build of its own and is scripts/fuzz.sh's work.
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
# The packages, then the other release's suites in a root of it, built and run while the
# Python suites that need none of them run here: the builds use the CPU those suites leave
# idle while they wait on real-time recording. The whole Swift suite there has a debug
# build of its own; the readers' and validator's tests there judge the package's binary.
# Each part's output is kept in a log and shown when it is done.
logs=$(mktemp -d)
packages_built=$logs/packages-built
(
    bash scripts/package.sh --debian "$release"
    mark "Debian $release package built"
    bash scripts/package.sh --debian "$other"
    mark "Debian $other package built (in a Debian $other root)"
    touch "$packages_built"
    ALLSPARK_ROOT_SETUP=--release-tests nice -n 5 bash scripts/debian-root.sh "$other" --private-network \
        env ALLSPARK_NODE_BIN=".build-package-deb$other/release/allspark-node" bash scripts/release-tests.sh --swift
    mark "Debian $other: Swift suites, footage readers and validator done"
) >"$logs/other" 2>&1 &
other_pid=$!
# The VM suites wait for the packages' CPU, then run beside the rest (software-emulated
# VMs take a core each). Their own --basetemp keeps the two pytest processes' folders apart.
(
    while [ ! -e "$packages_built" ] && kill -0 "$other_pid" 2>/dev/null; do sleep 5; done
    mark "VM suites started"
    status=0
    "$python" -m pytest -q -rs --durations=5 --basetemp="$logs/vm-suites" Tests/camera Tests/powercut || status=$?
    mark "VM suites done"
    exit "$status"
) >"$logs/vm" 2>&1 &
vm_pid=$!
python_status=0
"$python" -m pytest -q -rs --durations=10 Tests/protocol Tests/web Tests/docs Tests/onvif || python_status=$?
mark "protocol, web and docs suites done"
# The package suite once both packages are built: its booted containers share the host's
# network and mDNS, so not beside the suites above; beside the VM suites (their guests
# have networks of their own) and the Debian 13 root (--private-network) it may run.
while [ ! -e "$packages_built" ] && kill -0 "$other_pid" 2>/dev/null; do sleep 5; done
package_status=0
if [ -e "$packages_built" ]; then
    "$python" -m pytest -q -rs --durations=10 Tests/package || package_status=$?
    mark "package suite done (Debian 12 and 13)"
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
vm_status=0; show vm "$vm_pid" "the camera and power-cut suites" 80 || vm_status=$?
other_status=0; show other "$other_pid" "the packages and the Debian $other part" 200 || other_status=$?
mark "all done"
rm -rf "$logs"
for status in "$python_status" "$package_status" "$vm_status" "$other_status"; do
    [ "$status" -eq 0 ] || { echo "== a part failed (exit $status), see above"; exit "$status"; }
done
