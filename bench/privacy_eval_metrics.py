#!/usr/bin/env python3
"""Scores for bench/privacy-eval.sh (standard library and numpy only).

recall LABELS BOXES         -- masked-face recall by label width, from an anonymize --boxes file
recall-diff LABELS IN OUT   -- the same, with the mask taken as the pixels that changed
                               between IN and OUT images (for a peer tool without a boxes file)
maskarea BOXES WIDTH HEIGHT -- mean share of the frame masked, per frame of a --boxes file

A labeled face counts as masked when the masked area covers at least half of its box.
"""
import csv
import json
import subprocess
import sys

import numpy as np

BUCKETS = [("<24", 0, 24), ("24-48", 24, 48), ("48-96", 48, 96), (">=96", 96, 10**9)]


def read_labels(path):
    labels = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            labels.setdefault(row["image"], []).append(tuple(int(row[k]) for k in ("x", "y", "w", "h")))
    return labels


def read_boxes(path):
    lines = {}
    with open(path) as handle:
        for line in handle:
            record = json.loads(line)
            lines[str(record["source"])] = [tuple(box) for box in record["boxes"]]
    return lines


def covered_share(label, mask):
    x, y, w, h = label
    region = mask[y:y + h, x:x + w]
    return float(region.mean()) if region.size else 0.0


def mask_of(boxes, width, height):
    mask = np.zeros((height, width), dtype=bool)
    for x, y, w, h in boxes:
        mask[max(0, y):max(0, y + h), max(0, x):max(0, x + w)] = True
    return mask


def overlaps(box, other):
    ax, ay, aw, ah = box
    bx, by, bw, bh = other
    return min(ax + aw, bx + bw) > max(ax, bx) and min(ay + ah, by + bh) > max(ay, by)


def score(labels, mask_for_image, boxes_for_image=None):
    found = {name: 0 for name, _, _ in BUCKETS}
    total = {name: 0 for name, _, _ in BUCKETS}
    unmatched = 0
    boxes_total = 0
    images = 0
    for image, faces in labels.items():
        mask = mask_for_image(image, faces)
        if mask is None:
            continue
        images += 1
        for face in faces:
            bucket = next(name for name, low, high in BUCKETS if low <= face[2] < high)
            total[bucket] += 1
            found[bucket] += covered_share(face, mask) >= 0.5
        if boxes_for_image is not None:
            boxes = boxes_for_image(image)
            boxes_total += len(boxes)
            unmatched += sum(1 for box in boxes if not any(overlaps(box, face) for face in faces))
    result = {
        "images": images,
        "faces": sum(total.values()),
        "recall": sum(found.values()) / max(1, sum(total.values())),
        "recall_ge48": (found["48-96"] + found[">=96"]) / max(1, total["48-96"] + total[">=96"]),
        "buckets": {name: {"faces": total[name], "recall": found[name] / max(1, total[name])} for name, _, _ in BUCKETS},
    }
    if boxes_for_image is not None:
        result.update({
            "boxes": boxes_total,
            "boxes_per_image": boxes_total / max(1, images),
            "boxes_on_no_label": unmatched,
            "precision": (boxes_total - unmatched) / max(1, boxes_total),
        })
    return result


def image_size(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path],
        check=True, capture_output=True, text=True).stdout.strip().split(",")
    return int(out[0]), int(out[1])


def grey_pixels(path, width, height):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.uint8).reshape(height, width).astype(np.int16)


def recall_from_boxes(labels_path, boxes_path):
    labels = read_labels(labels_path)
    boxes = read_boxes(boxes_path)

    def mask_for(image, faces):
        if image not in boxes:
            return None
        right = max([x + w for x, y, w, h in faces + boxes[image]] + [1])
        bottom = max([y + h for x, y, w, h in faces + boxes[image]] + [1])
        return mask_of(boxes[image], right, bottom)

    return score(labels, mask_for, lambda image: boxes.get(image, []))


def recall_from_diff(labels_path, input_dir, output_dir, threshold=12):
    labels = read_labels(labels_path)

    def mask_for(image, faces):
        try:
            width, height = image_size(f"{input_dir}/{image}")
            before = grey_pixels(f"{input_dir}/{image}", width, height)
            after = grey_pixels(f"{output_dir}/{image}", width, height)
        except (subprocess.CalledProcessError, ValueError, IndexError):
            return None
        return np.abs(before - after) > threshold

    return score(labels, mask_for)


def mask_area(boxes_path, width, height):
    shares = []
    with open(boxes_path) as handle:
        for line in handle:
            boxes = [tuple(box) for box in json.loads(line)["boxes"]]
            shares.append(float(mask_of(boxes, width, height).mean()) if boxes else 0.0)
    return {
        "frames": len(shares),
        "mean_masked_share": sum(shares) / max(1, len(shares)),
        "frames_with_mask": sum(1 for share in shares if share > 0),
    }


def main():
    command = sys.argv[1]
    if command == "recall":
        result = recall_from_boxes(sys.argv[2], sys.argv[3])
    elif command == "recall-diff":
        result = recall_from_diff(sys.argv[2], sys.argv[3], sys.argv[4])
    elif command == "maskarea":
        result = mask_area(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
