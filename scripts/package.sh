#!/usr/bin/env bash
# Builds dist/allspark-node_<version>+deb<N>_amd64.deb for Debian N (12 or 13; by default
# the release this machine runs): the node, with the Swift runtime libraries it links in
# its own lib folder (the target needs no Swift toolchain), its dashboard, the face models (YuNet from
# config/models, CenterFace from PyPI), the configuration (a conffile) and the systemd
# units. ONNX Runtime, the face net's engine, is Debian's own package on 13; on 12, which
# has none, the package carries its official build from PyPI. debhelper installs and
# strips; dpkg-shlibdeps computes Depends from the libraries the binary links, so each
# release's package depends on that release's libraries.
#
# A package for the other release is built in a Debian root of that release
# (scripts/debian-root.sh: made with mmdebstrap once, then cached), the toolchain and this
# checkout bind-mounted.
#
# The version is NodeVersion.current (Sources/AllSparkNode/Node/NodeVersion.swift) plus
# the commit count and hash, e.g. 0.9.0+312.gabc1234, so every commit's build sorts after
# the one before; --version V sets it outright. The package's own version adds +deb<N>.
#
# --with-tests also builds the Swift test bundle in the same release build, testable
# (-enable-testing), so that one build serves the package and the tests (scripts/test.sh
# runs `swift test -c release` against it and drives this binary from the Python suites):
# the binary the suites pass is the one the package ships.
set -euo pipefail
cd "$(dirname "$0")/.."

host_release=$(. /etc/os-release && echo "${VERSION_ID:-}")
release=$host_release
version=""
with_tests=""
while [ $# -gt 0 ]; do
    case $1 in
        --version) version=${2:?--version needs a value}; shift 2 ;;
        --debian) release=${2:?--debian needs 12 or 13}; shift 2 ;;
        --with-tests) with_tests=--with-tests; shift ;;
        *) echo "package.sh: unknown option $1 (--debian 12|13, --version V, --with-tests)" >&2; exit 2 ;;
    esac
done
case $release in
    12) suite=bookworm ;;
    13) suite=trixie ;;
    *) echo "package.sh: Debian 12 or 13, not '$release'" >&2; exit 2 ;;
esac

node_version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/AllSparkNode/Node/NodeVersion.swift)
[ -n "$node_version" ] || { echo "package.sh: no version in NodeVersion.swift" >&2; exit 1; }
if [ -z "$version" ]; then
    version=$node_version
    if git rev-parse --git-dir >/dev/null 2>&1; then
        version="$node_version+$(git rev-list --count HEAD).g$(git rev-parse --short HEAD)"
    fi
fi

if [ "$release" != "$host_release" ]; then
    exec bash scripts/debian-root.sh "$release" bash scripts/package.sh --debian "$release" --version "$version" $with_tests
fi
bash scripts/setup.sh --package
deb_version=$version+deb$release

# Its own scratch folder per release, so neither the debug build nor the other release's
# objects are rebuilt. No debug information: the package ships its binary stripped, and
# making it cost about 1 of the build's 15 CPU-minutes. The Swift runtime is linked as
# shared libraries, not statically: a static runtime has no Swift Testing, so the test
# bundle could not share the build (and history 25 in bench/ measured no speed between the two).
scratch=.build-package-deb$release
build_flags=(-c release --scratch-path "$scratch" -Xswiftc -gnone -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
if [ -n "$with_tests" ]; then
    build_flags+=(--build-tests -Xswiftc -enable-testing)
fi
swift build "${build_flags[@]}"
# A folder per release: both releases' packages may be built at once (scripts/test.sh).
built=dist/build/deb$release
work=$built/allspark-node-$deb_version
rm -rf "$built"
mkdir -p "$work/staged"
cp -r scripts/package/debian "$work/debian"
staged=$work/staged

install -m 0755 "$scratch/release/allspark-node" "$staged/allspark-node"
# The Swift runtime libraries the binary loads (ldd lists them from the toolchain, its
# RUNPATH), copied to the package's own lib folder, where the binary's RUNPATH now points.
# Each carries RUNPATH $ORIGIN, so they find each other there.
runtime=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeLibraryPaths"][0])')
mkdir -p "$staged/lib/swift"
ldd "$staged/allspark-node" | awk -v runtime="$runtime/" 'index($3, runtime) == 1 { print $3 }' |
    while read -r library; do install -m 0644 "$library" "$staged/lib/swift/"; done
[ -e "$staged/lib/swift/libswiftCore.so" ] || { echo "package.sh: ldd named no Swift runtime under $runtime" >&2; exit 1; }
patchelf --set-rpath /usr/lib/allspark-node/swift "$staged/allspark-node"
cp -r web "$staged/web"
rm "$staged/web/README.md"
# The HTTP API's OpenAPI document, served at /api/openapi.json (InstallLayout.openAPIDocument).
install -m 0644 docs/reference/openapi.json "$staged/"
bash scripts/centerface-model.sh "$staged/model"
mv "$staged/model/centerface.onnx" "$staged/centerface.onnx"
install -m 0644 config/models/yunet/face_detection_yunet_2023mar.onnx "$staged/"
# ONNX Runtime, the face net's engine, is opened with dlopen, so dpkg-shlibdeps cannot see
# it. Debian 13 packages it: the package depends on Debian's. Debian 12 packages none, so
# the package carries the official build in its own lib folder (the node opens it from
# there) with its notices.
if [ "$release" = 12 ]; then
    bash scripts/onnxruntime.sh library "$staged/onnxruntime-unpacked"
    install -D -m 0644 "$staged/onnxruntime-unpacked/libonnxruntime.so.1.21.1" "$staged/lib/libonnxruntime.so.1.21.1"
    install -D -m 0644 -t "$staged/doc/onnxruntime" "$staged/onnxruntime-unpacked/LICENSE" "$staged/onnxruntime-unpacked/ThirdPartyNotices.txt"
    export ALLSPARK_ONNXRUNTIME_DEPENDS=""
else
    sed -i '/onnxruntime/d' "$work/debian/install"
    export ALLSPARK_ONNXRUNTIME_DEPENDS=libonnxruntime1.21
    # Debian 13 has merged /usr: units go to /usr/lib/systemd/system (lintian: aliased-location).
    sed -i 's| lib/systemd/system$| usr/lib/systemd/system|' "$work/debian/install"
fi
cp README.md "$staged/README.md"

# The package's configuration leaves `store` to each instance (/var/lib/allspark-node/<instance>),
# so a copy made for a second camera never shares the first one's store.
sed 's|^store: \./data$|# store: /var/lib/allspark-node/<instance>  (to move it, also add ReadWritePaths= with systemctl edit)|' \
    config/allspark-node.yaml >"$staged/allspark-node.yaml"
if grep -q '^store:' "$staged/allspark-node.yaml"; then
    echo "package.sh: config/allspark-node.yaml's store line changed; update the sed above" >&2
    exit 1
fi

# The template is the one unit source; allspark-node.service is its instance "default",
# configured by /etc/allspark-node/allspark-node.yaml.
cp config/systemd/allspark-node@.service "$staged/"
{
    echo "# The AllSpark camera node: /etc/allspark-node/allspark-node.yaml, store /var/lib/allspark-node/default."
    echo "# Made by scripts/package.sh from allspark-node@.service (one instance per camera)."
    sed -n -e '/^\[Unit\]/,$p' config/systemd/allspark-node@.service |
        sed -e 's|/etc/allspark-node/%i|/etc/allspark-node/allspark-node|g' -e 's|%i|default|g' 
} >"$work/debian/allspark-node.service"

help2man --no-info --no-discard-stderr --name "AllSpark camera node" --version-string "$node_version" \
    "$staged/allspark-node" >"$staged/allspark-node.1"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo "unknown")
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
cat >"$work/debian/changelog" <<EOF
allspark-node ($deb_version) $suite; urgency=medium

  * Built from commit $commit.

 -- AllSpark Node developers <developers@allspark-node.invalid>  $date
EOF

{
    echo
    echo "License: MIT"
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$staged/model/centerface.LICENSE"
    if [ "$release" = 12 ]; then
        echo
        echo "Files: usr/lib/allspark-node/libonnxruntime.so.1.21.1"
        echo "Copyright: Microsoft Corporation (ONNX Runtime 1.21.1, the official build from PyPI's onnxruntime wheel);"
        echo " its third-party notices are in /usr/share/doc/allspark-node/onnxruntime/ThirdPartyNotices.txt"
        echo "License: MIT"
        sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$staged/onnxruntime-unpacked/LICENSE"
    fi
} >>"$work/debian/copyright"

(cd "$work" && dpkg-buildpackage --build=binary --no-sign --no-check-builddeps)
mkdir -p dist
deb=dist/allspark-node_${deb_version}_amd64.deb
mv "$built/allspark-node_${deb_version}_amd64.deb" "$deb"

# Errors fail the build; the warnings kept are listed, with why, in docs/design/appliance.md.
lintian --fail-on error --info "$deb"
echo "$deb ($(du -h "$deb" | cut -f1))"
