#!/usr/bin/env bash
# The suites that run on every release the node is built for, run on this machine's
# release: the footage readers (ffprobe, GStreamer's discoverer, mediainfo) and ONVIF's
# validator against the node's chunks, clips and live stream; with --swift first the whole
# Swift suite too (libav, OpenCV, ONNX Runtime, GStreamer and Avahi of this release under
# the node's own code; its own debug build, in .build-deb<N>).
# scripts/test.sh runs it without --swift in a Debian 13 root (scripts/debian-root.sh
# 13 --private-network, packages of `setup.sh --release-tests`) on a Debian 12 machine,
# against the package's binary (.build-package-deb13/release/allspark-node); Tests/README.md
# says why these suites.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
release=$(. /etc/os-release && echo "${VERSION_ID:-}")
mark() { echo "== Debian $release: $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s)"; }

node=${ALLSPARK_NODE_BIN:-.build-package-deb$release/release/allspark-node}
if [ "${1:-}" = "--swift" ]; then
    scratch=.build-deb$release
    bash scripts/start-avahi.sh >/dev/null
    swift build --build-tests --scratch-path "$scratch"
    mark "debug build done"
    # On disk, not a tmpfs (a root's /tmp): the page-write tests count the bytes dirtied
    # for the disk, which a tmpfs never counts.
    mkdir -p /var/tmp/allspark-tests
    TMPDIR=/var/tmp/allspark-tests swift test --skip-build --scratch-path "$scratch"
    mark "Swift suites done"
    node=${ALLSPARK_NODE_BIN:-$scratch/debug/allspark-node}
fi
[ -x "$node" ] || { echo "release-tests.sh: no node binary at $node (bash scripts/package.sh --debian $release builds it)" >&2; exit 1; }
ALLSPARK_NODE_BIN=$node python3 -m pytest -q -rs -p no:cacheprovider \
    Tests/protocol/test_onvif_validator.py \
    "Tests/protocol/test_http_api.py::test_clip_starts_at_a_keyframe_and_covers_the_range"
mark "footage readers and validator done ($node)"
