#!/usr/bin/env bash
# Builds dist/allspark-node_<version>_amd64.deb for Debian 12: the node linked with the
# Swift runtime statically (the target needs no Swift toolchain), its dashboard, the
# face models (YuNet from config/models, CenterFace from PyPI), ONNX Runtime's library
# (from its PyPI build), the configuration (a conffile) and the systemd units. debhelper
# installs and strips; dpkg-shlibdeps computes Depends from the libraries the binary links.
#
# The version is NodeVersion.current (Sources/AllSparkNode/Node/NodeVersion.swift) plus
# the commit count and hash, e.g. 0.9.0+312.gabc1234, so every commit's build sorts after
# the one before; --version V sets it outright.
set -euo pipefail
cd "$(dirname "$0")/.."

version=""
while [ $# -gt 0 ]; do
    case $1 in
        --version) version=${2:?--version needs a value}; shift 2 ;;
        *) echo "package.sh: unknown option $1 (only --version V)" >&2; exit 2 ;;
    esac
done

bash scripts/setup.sh --package

node_version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/AllSparkNode/Node/NodeVersion.swift)
[ -n "$node_version" ] || { echo "package.sh: no version in NodeVersion.swift" >&2; exit 1; }
if [ -z "$version" ]; then
    version=$node_version
    if git rev-parse --git-dir >/dev/null 2>&1; then
        version="$node_version+$(git rev-list --count HEAD).g$(git rev-parse --short HEAD)"
    fi
fi

# Its own scratch folder, so scripts/run.sh's release build (shared runtime) is not rebuilt.
scratch=.build-package
swift build -c release --static-swift-stdlib --scratch-path "$scratch" \
    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now

work=dist/build/allspark-node-$version
rm -rf dist/build
mkdir -p "$work/staged"
cp -r scripts/package/debian "$work/debian"
staged=$work/staged

install -m 0755 "$scratch/release/allspark-node" "$staged/allspark-node"
cp -r web "$staged/web"
rm "$staged/web/README.md"
bash scripts/centerface-model.sh "$staged/model"
mv "$staged/model/centerface.onnx" "$staged/centerface.onnx"
install -m 0644 config/models/yunet/face_detection_yunet_2023mar.onnx "$staged/"
# ONNX Runtime, the face net's engine: Debian 12 packages none, so the package carries the
# official build in its own lib folder (the node opens it from there) with its notices.
bash scripts/onnxruntime.sh library "$staged/onnxruntime-unpacked"
install -D -m 0644 "$staged/onnxruntime-unpacked/libonnxruntime.so.1.21.1" "$staged/lib/libonnxruntime.so.1.21.1"
install -D -m 0644 -t "$staged/doc/onnxruntime" "$staged/onnxruntime-unpacked/LICENSE" "$staged/onnxruntime-unpacked/ThirdPartyNotices.txt"
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
allspark-node ($version) bookworm; urgency=medium

  * Built from commit $commit.

 -- AllSpark Node developers <developers@allspark-node.invalid>  $date
EOF

{
    echo
    echo "License: MIT"
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$staged/model/centerface.LICENSE"
    echo
    echo "Files: usr/lib/allspark-node/libonnxruntime.so.1.21.1"
    echo "Copyright: Microsoft Corporation (ONNX Runtime 1.21.1, the official build from PyPI's onnxruntime wheel);"
    echo " its third-party notices are in /usr/share/doc/allspark-node/onnxruntime/ThirdPartyNotices.txt"
    echo "License: MIT"
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$staged/onnxruntime-unpacked/LICENSE"
} >>"$work/debian/copyright"

(cd "$work" && dpkg-buildpackage --build=binary --no-sign --no-check-builddeps)
mkdir -p dist
deb=dist/allspark-node_${version}_amd64.deb
mv "dist/build/allspark-node_${version}_amd64.deb" "$deb"

# Errors fail the build; the warnings kept are listed, with why, in docs/design/appliance.md.
lintian --fail-on error --info "$deb"
echo "$deb ($(du -h "$deb" | cut -f1))"
