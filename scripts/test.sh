#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs every test: the Swift suites
# (real libav, OpenCV, avahi-daemon), then the protocol/API tests and the dashboard's
# browser tests, which drive the built node binary from Python.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
[ -x scripts/start-avahi.sh ] && bash scripts/start-avahi.sh
swift build --build-tests
swift test --skip-build
python3 -m pytest -q Tests/protocol $( [ -d Tests/web ] && echo Tests/web )
