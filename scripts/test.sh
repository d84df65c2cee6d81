#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then the protocol/API tests, the dashboard's
# browser tests and the camera suite (a real V4L2 driver in a VM), which drive the built
# node binary from Python, the power-cut suite (3 seeded power cuts of a recording VM),
# and the package suite (the .deb that scripts/package.sh builds, installed into a booted
# Debian 12 with systemd). -rs prints why anything was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
swift build --build-tests
swift test --skip-build
bash scripts/package.sh
python3 -m pytest -q -rs Tests/protocol Tests/web Tests/camera Tests/powercut Tests/package
