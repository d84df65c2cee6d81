#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then the protocol/API tests and the dashboard's
# browser tests, which drive the built node binary from Python; beside those, the camera
# suite (a real V4L2 driver in a VM) and the power-cut suite (3 seeded power cuts of a
# recording VM); last the package suite (the .deb that scripts/package.sh builds,
# installed into a booted Debian 12 with systemd). -rs prints why anything was skipped.
#
# The protocol and web suites mostly wait on the clock (footage is recorded in real
# time), while the VMs (QEMU in software emulation) are bound by the CPU: so the VM suites
# run beside them, held to the second core (taskset), as a busy loop on one core would
# be. Their log is printed when they are done; the command fails when any part failed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
mark() { echo "== $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s since the start)"; }

bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
mark "set up"
swift build --build-tests
mark "debug build done"
status=0
swift test --skip-build || status=1
mark "Swift suites done"

vm_log=$(mktemp)
cores=$(nproc)
taskset -c "$(( cores - 1 ))" python3 -m pytest -q -rs --durations=5 Tests/camera Tests/powercut > "$vm_log" 2>&1 &
vm_suites=$!
python3 -m pytest -q -rs --durations=10 Tests/protocol Tests/web || status=1
mark "protocol and web suites done"
wait "$vm_suites" || status=1
cat "$vm_log"
rm -f "$vm_log"
mark "camera and power-cut suites done"

bash scripts/package.sh
python3 -m pytest -q -rs --durations=5 Tests/package || status=1
mark "package built and its suite done"
exit "$status"
