#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine with Swift and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build
swift test
