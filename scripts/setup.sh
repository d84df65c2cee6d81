#!/usr/bin/env bash
# Installs what the node builds, runs and is tested with on Debian 12 (idempotent; root or sudo).
set -euo pipefail
packages=(
    libavformat-dev libavcodec-dev libavdevice-dev libswscale-dev libavutil-dev   # FFmpeg: capture, encode, mux
    libopencv-dev opencv-data                                                     # face cascades
    libavahi-client-dev avahi-daemon avahi-utils dbus                             # mDNS
    ffmpeg pkg-config time openssl iproute2                                       # tools the tests and benchmarks use
)
if [ "${1:-}" = "--test" ]; then
    packages+=(chromium chromium-driver)                                          # the dashboard's browser tests
fi
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = "--test" ]; then
    python3 -m pip install --quiet --disable-pip-version-check -r Tests/requirements.txt
fi
