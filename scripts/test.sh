#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then the protocol/API tests, the dashboard's
# browser tests and the camera suite (a real V4L2 driver in a VM), which drive the built
# node binary from Python, the power-cut suite (3 seeded power cuts of a recording VM),
# the package suite (the .deb that scripts/package.sh builds, installed into a booted
# Debian 12 with systemd), and the documentation (links, page sizes, commands). -rs
# prints why anything was skipped; each part's time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
mark() { echo "== $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s since the start)"; }

bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
mark "set up"
swift build --build-tests
mark "debug build done"
swift test --skip-build
mark "Swift suites done"
bash scripts/package.sh
mark "package built"
python3 -m pytest -q -rs --durations=10 Tests/protocol Tests/web Tests/camera Tests/powercut Tests/package Tests/docs
mark "Python suites done"
