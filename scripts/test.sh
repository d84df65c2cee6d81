#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then the protocol/API tests and the dashboard's
# browser tests, which drive the built node binary from Python; beside those, the camera
# suite (a real V4L2 driver in a VM) and the power-cut suite (3 seeded power cuts of a
# recording VM); last the package suite (the .deb that scripts/package.sh builds,
# installed into a booted Debian 12 with systemd). -rs prints why anything was skipped.
#
# Most of the Python suites wait on the clock (footage is recorded in real time), while
# the VMs and the package's release build are bound by the CPU: so those run in the
# background beside them. Each background part writes a log of its own, printed when it
# is done; the command fails when any part failed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
mark() { echo "== $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s since the start)"; }

bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
mark "set up"
swift build --build-tests
mark "debug build done"

logs=$(mktemp -d)
status=0
# The package's static release build, niced: nothing waits for it until the package suite.
nice -n 10 bash scripts/package.sh > "$logs/package-build.log" 2>&1 &
package_build=$!

swift test --skip-build || status=1
mark "Swift suites done"

python3 -m pytest -q -rs --durations=10 Tests/camera Tests/powercut > "$logs/vm-suites.log" 2>&1 &
vm_suites=$!
python3 -m pytest -q -rs --durations=10 Tests/protocol Tests/web || status=1
mark "protocol and web suites done"

wait "$vm_suites" || status=1
cat "$logs/vm-suites.log"
mark "camera and power-cut suites done"

if wait "$package_build"; then
    tail -n 5 "$logs/package-build.log"
    python3 -m pytest -q -rs --durations=5 Tests/package || status=1
else
    cat "$logs/package-build.log"
    echo "scripts/package.sh failed: the package suite did not run" >&2
    status=1
fi
mark "package suite done"
rm -rf "$logs"
exit "$status"
