#!/usr/bin/env bash
# The suites that run on every release the node is built for, run on this machine's
# release: the footage readers (ffprobe, GStreamer's discoverer, mediainfo) and ONVIF's
# validator against the node's chunks, clips and live stream; with --swift first the Swift
# suites that depend on this release's libav, OpenCV, ONNX Runtime, GStreamer and Avahi
# (Tests/release-suites.txt): from the package's release build when it was built with its
# tests (scripts/package.sh --with-tests), else from a debug build of their own in
# .build-deb<N>.
# scripts/test.sh runs it (without --swift: the tests' build does not fit CI's bound on a
# slow host; run it by hand) in a Debian 13 root (scripts/debian-root.sh 13
# --private-network, packages of `setup.sh --release-tests`) on a Debian 12 machine,
# against the package's binary (.build-package-deb13/release/allspark-node); Tests/README.md
# says why these suites.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
release=$(. /etc/os-release && echo "${VERSION_ID:-}")
mark() { echo "== Debian $release: $1 ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s)"; }

node=${ALLSPARK_NODE_BIN:-.build-package-deb$release/release/allspark-node}
if [ "${1:-}" = "--swift" ]; then
    bash scripts/start-avahi.sh >/dev/null
    package_build=.build-package-deb$release
    if [ -x "$package_build/release/allspark-nodePackageTests.xctest" ]; then
        scratch=$package_build
        test_flags=(-c release --scratch-path "$scratch" --skip-build)
        built_node=$scratch/release/allspark-node
        mark "the package's release build has the test bundle: the suites run from it"
    else
        scratch=.build-deb$release
        test_flags=(--scratch-path "$scratch" --skip-build)
        built_node=$scratch/debug/allspark-node
        swift build --build-tests --scratch-path "$scratch"
        mark "debug build done"
    fi
    # On disk, not a tmpfs (a root's /tmp): the page-write tests count the bytes dirtied
    # for the disk, which a tmpfs never counts.
    mkdir -p /var/tmp/allspark-tests
    filters=()
    while read -r pattern; do filters+=(--filter "$pattern"); done < <(grep -v -e '^#' -e '^[[:space:]]*$' Tests/release-suites.txt)
    TMPDIR=/var/tmp/allspark-tests swift test "${test_flags[@]}" "${filters[@]}" 2>&1 | tee "$scratch/release-suites.log"
    # Patterns that matched nothing would pass with nothing run: some test must have run.
    ran=$(sed -n 's/.*Test run with \([0-9]*\) tests.*/\1/p' "$scratch/release-suites.log" | tail -n 1)
    [ "${ran:-0}" -gt 0 ] || { echo "release-tests.sh: Tests/release-suites.txt ran no Swift test" >&2; exit 1; }
    echo "release-tests.sh: $ran Swift tests of Tests/release-suites.txt"
    mark "the release-dependent Swift suites done (Tests/release-suites.txt)"
    node=${ALLSPARK_NODE_BIN:-$built_node}
fi
[ -x "$node" ] || { echo "release-tests.sh: no node binary at $node (bash scripts/package.sh --debian $release builds it)" >&2; exit 1; }
# Tests/no_skips.py: a skip fails (the root's setup installs what these suites need).
ALLSPARK_NODE_BIN=$node PYTHONPATH=$PWD/Tests${PYTHONPATH:+:$PYTHONPATH} python3 -m pytest -q -rs -p no:cacheprovider -p no_skips \
    Tests/protocol/test_onvif_validator.py \
    "Tests/protocol/test_http_api.py::test_clip_starts_at_a_keyframe_and_covers_the_range"
mark "footage readers and validator done ($node)"
