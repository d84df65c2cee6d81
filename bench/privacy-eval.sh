#!/usr/bin/env bash
# Privacy evaluation: recall and precision of `allspark-node anonymize` on the labeled dev
# stills, false-positive mask area on a face-free clip, and recorder throughput with privacy
# on and off at 1280x720 and 1920x1080. Prints JSON per measurement and a markdown table.
#
# Usage: bench/privacy-eval.sh [NODE_BINARY]   (default: .build-privacy/release/allspark-node)
# Env:   FACES=/work/shared/faces  DEFACE=path/to/deface (optional peer)  KEEP=1 (keep the work dir)
#        THROUGHPUT_ONLY=1 (only the privacy off/on throughput runs, as JSON lines)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
node=$(realpath "${1:-$here/../.build-privacy/release/allspark-node}")
faces=${FACES:-/work/shared/faces}
metrics="python3 $here/privacy_eval_metrics.py"
work=$(mktemp -d /tmp/privacy-eval.XXXXXX)
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
# No config file from the current directory: defaults plus the flags below only.
cd "$work"

seconds_of() { grep 'Elapsed (wall clock)' "$1" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }
peak_mb_of() { grep 'Maximum resident set size' "$1" | awk '{printf "%.0f", $NF/1024}'; }

if [[ -z "${THROUGHPUT_ONLY:-}" ]]; then
    echo "== dev stills: anonymize $faces/dev/images" >&2
    /usr/bin/time -v "$node" anonymize "$faces/dev/images" "$work/dev-out" --boxes "$work/dev-boxes.jsonl" 2>"$work/dev.time" || true
    dev_seconds=$(seconds_of "$work/dev.time")
    $metrics recall "$faces/dev/labels.csv" "$work/dev-boxes.jsonl" >"$work/recall.json"
    cat "$work/recall.json"

    echo "== face-free clip: anonymize vtest.avi" >&2
    "$node" anonymize "$faces/video/vtest.avi" "$work/vtest-out.mp4" --boxes "$work/vtest-boxes.jsonl" 2>/dev/null
    $metrics maskarea "$work/vtest-boxes.jsonl" 768 576 >"$work/maskarea.json"
    cat "$work/maskarea.json"
fi

# The same 8 s input at each size: Carphone (a talking face) played twice, stretched.
declare -A fps_result rss_result
for size in 1280x720 1920x1080; do
    input="$work/carphone-$size.mp4"
    ffmpeg -v error -stream_loop 1 -i "$faces/video/carphone_qcif.mp4" -vf "scale=${size/x/:}" \
        -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$input"
    for privacy in none face; do
        store="$work/store-$size-$privacy"
        echo "== run $size privacy $privacy" >&2
        /usr/bin/time -v "$node" run --source "$input" --size "$size" --no-pace --no-loop --privacy "$privacy" \
            --store "$store" --port 0 --uplink off 2>"$work/run-$size-$privacy.log"
        frames=$("$node" chunks --json --store "$store" | python3 -c 'import json,sys; print(sum(c["frames"] for c in json.load(sys.stdin)))')
        wall=$(seconds_of "$work/run-$size-$privacy.log")
        fps_result[$size-$privacy]=$(python3 -c "print(f'{$frames / $wall:.1f}')")
        rss_result[$size-$privacy]=$(peak_mb_of "$work/run-$size-$privacy.log")
        echo "{\"size\": \"$size\", \"privacy\": \"$privacy\", \"frames\": $frames, \"wall_s\": $wall, \"fps\": ${fps_result[$size-$privacy]}, \"peak_rss_mb\": ${rss_result[$size-$privacy]}}"
    done
done

[[ -z "${THROUGHPUT_ONLY:-}" ]] || exit 0

deface_row=""
if [[ -n "${DEFACE:-}" ]]; then
    echo "== peer: deface on the dev stills and the 720p clip" >&2
    # deface writes NAME_anonymized.jpg beside each input: run it on a scratch copy of the
    # stills, then move its outputs under the input names for the pixel diff.
    mkdir -p "$work/deface-in" "$work/deface-dev"
    cp "$faces"/dev/images/*.jpg "$work/deface-in/"
    start=$(date +%s.%N)
    "$DEFACE" --replacewith solid --boxes "$work/deface-in" >/dev/null 2>&1 || true
    deface_dev_seconds=$(python3 -c "print($(date +%s.%N) - $start)")
    for file in "$work"/deface-in/*_anonymized.jpg; do
        mv "$file" "$work/deface-dev/$(basename "$file" | sed 's/_anonymized//')"
    done
    $metrics recall-diff "$faces/dev/labels.csv" "$faces/dev/images" "$work/deface-dev" >"$work/deface-recall.json"
    cat "$work/deface-recall.json"
    start=$(date +%s.%N)
    "$DEFACE" -o "$work/deface-720.mp4" "$work/carphone-1280x720.mp4" >/dev/null 2>&1
    deface_720_fps=$(python3 -c "print(f'{240 / ($(date +%s.%N) - $start):.1f}')")
    deface_row=$(python3 - "$work/deface-recall.json" "$deface_dev_seconds" "$deface_720_fps" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); b = r["buckets"]
print(f"| deface (CenterFace, solid boxes) | {r['recall']:.3f} | {b['<24']['recall']:.2f} | {b['24-48']['recall']:.2f} | "
      f"{b['48-96']['recall']:.2f} | {b['>=96']['recall']:.2f} | {r['recall_ge48']:.3f} | n/a | n/a | "
      f"{r['images'] / float(sys.argv[2]):.1f} | {sys.argv[3]} | n/a | n/a |")
PY
)
fi

python3 - "$work/recall.json" "$work/maskarea.json" "$dev_seconds" \
    "${fps_result[1280x720-none]}" "${fps_result[1280x720-face]}" "${fps_result[1920x1080-none]}" "${fps_result[1920x1080-face]}" \
    "${rss_result[1280x720-face]}" "${rss_result[1920x1080-face]}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2])); b = r["buckets"]
print("| tool | recall | <24 | 24–48 | 48–96 | ≥96 | recall ≥48 px | masked boxes/image | boxes on no label | stills/s |"
      " 720p fps (off → on) | 1080p fps (off → on) | vtest mean masked area |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print(f"| allspark-node anonymize (3 Haar cascades) | {r['recall']:.3f} | {b['<24']['recall']:.2f} | {b['24-48']['recall']:.2f} | "
      f"{b['48-96']['recall']:.2f} | {b['>=96']['recall']:.2f} | {r['recall_ge48']:.3f} | {r['boxes_per_image']:.2f} | "
      f"{r['boxes_on_no_label']} of {r['boxes']} ({1 - r['precision']:.1%}) | {r['images'] / float(sys.argv[3]):.1f} | "
      f"{sys.argv[4]} → {sys.argv[5]} | {sys.argv[6]} → {sys.argv[7]} | {m['mean_masked_share']:.2%} "
      f"({m['frames_with_mask']} of {m['frames']} frames) |")
print(f"\nfaces per bucket: " + ", ".join(f"{k}: {v['faces']}" for k, v in b.items())
      + f"; peak RSS with privacy on: 720p {sys.argv[8]} MB, 1080p {sys.argv[9]} MB")
PY
[[ -z "$deface_row" ]] || echo "$deface_row"
