#!/usr/bin/env bash
# Sets up a fresh Debian 12 or 13 machine with Swift, builds the node and runs it
# (the camera at /dev/video0 if there is one, the test pattern otherwise; store in ./data).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release
exec .build/release/allspark-node run "$@"
