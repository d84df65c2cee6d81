#!/usr/bin/env bash
# Installs the Debian packages the node builds and runs with (idempotent; needs root).
set -euo pipefail
packages=(
    libavformat-dev libavcodec-dev libavdevice-dev libswscale-dev libavutil-dev
    libopencv-dev opencv-data libavahi-client-dev avahi-daemon avahi-utils dbus
    ffmpeg pkg-config time
)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
