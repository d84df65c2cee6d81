#!/usr/bin/env bash
# ONNX Runtime 1.21 for Debian 12, which packages none (Debian 13 has libonnxruntime-dev).
#   onnxruntime.sh library DIR   unpacks libonnxruntime.so.1.21.1 from the official
#                                onnxruntime==1.21.1 wheel on PyPI (never pip-installed),
#                                with its LICENSE and ThirdPartyNotices.txt, into DIR
#   onnxruntime.sh header DIR    puts the C API header of the same release, from Debian
#                                13's libonnxruntime-dev .deb (fetched with apt-get download
#                                and a Debian 13 source list of its own, never installed,
#                                never added to the host's sources), into DIR
# Every download is checked against the sha256 pinned here; nothing is done when DIR
# already holds the checked files. Used by setup.sh and package.sh.
set -euo pipefail
what=${1:?usage: onnxruntime.sh library|header DIR}
dest=${2:?usage: onnxruntime.sh library|header DIR}

wheel=onnxruntime-1.21.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
wheel_sha256=982dcc04a6688e1af9e3da1d4ef2bdeb11417cf3f8dde81f8f721043c1919a4f
library=libonnxruntime.so.1.21.1
library_sha256=3c8416b0e39ea0bac523265f681f6db6ec101d9441e12a1472dbc7c4a18bc1ac
dev_deb=libonnxruntime-dev_1.21.0+dfsg-1_amd64.deb
dev_deb_sha256=14f7d959d5deacbcf1504830d4189f91fc67382b399ed9ae9d3aa9c4050ced08
header_sha256=7783e9664bdb0b1b36145b5c8587dd1bc9a399aa000edf2e3dd03003cafc6882

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case "$what" in
library)
    if echo "$library_sha256  $dest/$library" | sha256sum --check --status 2>/dev/null \
        && [ -s "$dest/LICENSE" ] && [ -s "$dest/ThirdPartyNotices.txt" ]; then
        exit 0
    fi
    # The wheel is named exactly (interpreter, ABI, platform), so any host Python fetches
    # the same file; only the library inside it is used.
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 \
        onnxruntime==1.21.1 -d "$work"
    echo "$wheel_sha256  $work/$wheel" | sha256sum --check --quiet
    python3 - "$work/$wheel" "$work" "$library" <<'PY'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
for member, name in (("onnxruntime/capi/" + sys.argv[3], sys.argv[3]),
                     ("onnxruntime/LICENSE", "LICENSE"),
                     ("onnxruntime/ThirdPartyNotices.txt", "ThirdPartyNotices.txt")):
    with open(f"{sys.argv[2]}/{name}", "wb") as out:
        out.write(wheel.read(member))
PY
    echo "$library_sha256  $work/$library" | sha256sum --check --quiet
    install -D -m 0644 "$work/$library" "$dest/$library"
    install -D -m 0644 "$work/LICENSE" "$dest/LICENSE"
    install -D -m 0644 "$work/ThirdPartyNotices.txt" "$dest/ThirdPartyNotices.txt"
    ;;
header)
    if echo "$header_sha256  $dest/onnxruntime_c_api.h" | sha256sum --check --status 2>/dev/null; then
        exit 0
    fi
    mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
    cat >"$work/parts/trixie.sources" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-trixie-stable.gpg /usr/share/keyrings/debian-archive-trixie-automatic.gpg
SOURCES
    # apt's own state, lists and cache all live in $work: the host's sources are untouched.
    apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
        -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::Status=/dev/null
        -o APT::Sandbox::User=root)
    apt-get "${apt_options[@]}" update >/dev/null
    (cd "$work" && apt-get "${apt_options[@]}" download libonnxruntime-dev=1.21.0+dfsg-1 >/dev/null)
    echo "$dev_deb_sha256  $work/$dev_deb" | sha256sum --check --quiet
    dpkg-deb -x "$work/$dev_deb" "$work/root"
    echo "$header_sha256  $work/root/usr/include/onnxruntime/onnxruntime_c_api.h" | sha256sum --check --quiet
    install -D -m 0644 "$work/root/usr/include/onnxruntime/onnxruntime_c_api.h" "$dest/onnxruntime_c_api.h"
    ;;
*)
    echo "usage: onnxruntime.sh library|header DIR" >&2
    exit 2
    ;;
esac
