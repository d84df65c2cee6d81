#!/usr/bin/python3
"""Score a masked video against the clip it was made from: which true faces are still
recognisable, which frames were dropped, and how much of the frame away from faces was
changed (false masks).

Usage:
  bench/exposure_score.py --clip CLIP.mp4 [--truth CLIP.truth.jsonl] --output OUT.mp4
  bench/exposure_score.py --clip CLIP.mp4 --chunks STORE_DIR      (the node's chunk_*.mp4, in order)
Prints one JSON object.

Alignment. When the node's timestamps files list exactly as many frames as the clip has,
output frame i is input frame i. Otherwise every output frame is matched to one input frame, in order (a later output
frame never matches an earlier or the same input frame). Each frame is reduced to a grey
signature at 1/8 size; the cost of a candidate input frame is the mean absolute difference of
the signatures outside that input frame's true face boxes grown by half their size on every
side (so masks over the faces do not count, but a face where the candidate has none does).
Candidates: from the expected index (previous match + 1) up to 60 frames on; the first
output frame searches the first 90. The chunks' frame times are not used to skip ahead: a
paced capture's times jitter (a 50 ms gap between two frames that were both kept), and
where the clip repeats a background frame a skip cannot be corrected, so the alignment
drifted ahead by 144 frames in 3600 when it trusted them.
The expected frame is kept unless another fits clearly better (its cost over 1.3 times the
cheapest plus 0.3): alignment only moves forward, and masks outside the faces' margins raise
the right frame's cost a little now and then. Among candidates within 0.3 grey levels (or 10%) of the cheapest, the background cannot
tell which is right (faces moving a few pixels, or standing still over a background frame
the clip repeats): the one nearest the expected index wins (alignment only moves forward,
so a jump too far ahead could never be undone; a lag is undone at the next background
change), then the one in which most faces would score as exposed (below), so a face left
unmasked is not missed through misalignment. A match costing over --poor-cost is counted
as poor. Input frames that no output frame matched are dropped (split into before the first
match, between matches and after the last).

Exposure. For each face in a matched frame whose visible share (in frame, not covered by
another face) is at least --min-visible (0.5), the true box is cut from input and output (grey),
both scaled to 64 px wide, and the Laplacian (3x3) of each taken; the face is exposed when
the Pearson correlation r of the two Laplacians is at least --threshold (0.5). An unchanged
or re-encoded face keeps its edges (r near 1); pixelation, blur or a fill replaces them
(r near 0; a constant patch has r = 0). Faces with a visible share from --partial-visible
(0.25) up to --min-visible (entering, leaving, or behind another face) are scored the same way
on their visible box and reported apart ("partial_*"), not in the main figures.

False masks. The grey absolute difference of input and output, averaged over 16x16 blocks;
a block has changed when its mean is over --block-diff (12 grey levels; x264 at CRF 23 moves
no block of these clips that far, see the sanity runs). Reported as a share of the frame's
blocks: those changed outside the true boxes ("outside_boxes"), and those changed outside the
true boxes grown by half their size on every side ("away_from_faces": masks that are not
a face's mask grown by a margin), each averaged over matched frames.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

import cv2
import numpy as np

SIG = 8          # signature downscale factor
BLOCK = 16
NORM_WIDTH = 64
BANDS = [(48, 96, "48-96"), (96, 160, "96-160"), (160, 1e9, ">=160")]


def read_truth(path):
    meta, frames = None, []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if "meta" in rec:
                meta = rec["meta"]
            else:
                frames.append(rec["faces"])
    return meta, frames


def frames_of(path):
    cap = cv2.VideoCapture(path)
    if not cap.isOpened():
        raise RuntimeError(f"cannot open {path}")
    while True:
        ok, img = cap.read()
        if not ok:
            break
        yield img
    cap.release()


def recorded_frames(store):
    """Frames the store's timestamps files list; None when a chunk has no timestamps file."""
    total = 0
    for _, ts in chunk_files(store):
        if ts is None:
            return None
        with open(ts) as f:
            total += sum(1 for line in f if line.strip())
    return total


def chunk_files(store):
    """(chunk path, timestamps path or None) in recording order."""
    found = []
    for path in glob.glob(os.path.join(store, "chunk_*.*")):
        m = re.match(r"chunk_(\d+)\.(\d+)\.(mp4|mov)$", os.path.basename(path))
        if not m:
            continue
        stamp = f"{m.group(1)}.{m.group(2)}"
        ts = os.path.join(store, f"timestamps_{stamp}.txt")
        found.append((int(m.group(1)) * 1000 + int(m.group(2)), path, ts if os.path.exists(ts) else None))
    return [(p, ts) for _, p, ts in sorted(found)]


def output_frames(args):
    """Yields (BGR frame, timestamp ms or None) of the output, chunks concatenated in order."""
    if args.output:
        for img in frames_of(args.output):
            yield img, None
        return
    for path, ts_path in chunk_files(args.chunks):
        stamps = []
        if ts_path:
            stamps = [int(x) for x in open(ts_path).read().split()]
        n = 0
        for img in frames_of(path):
            yield img, (stamps[n] if n < len(stamps) else None)
            n += 1
        if stamps and n != len(stamps):
            print(f"warning: {os.path.basename(path)} has {n} frames, its timestamps file {len(stamps)}",
                  file=sys.stderr)


def grey(img):
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def signature(g):
    h, w = g.shape
    return cv2.resize(g, (w // SIG, h // SIG), interpolation=cv2.INTER_AREA)


def grown(face, k, fw, fh):
    """The face's full box grown by k times its size on every side, clipped: x0, y0, x1, y1."""
    x, y, w, h = face.get("full") or (face["x"], face["y"], face["w"], face["h"])
    return (max(0, int(math.floor(x - k * w))), max(0, int(math.floor(y - k * h))),
            min(fw, int(math.ceil(x + w + k * w))), min(fh, int(math.ceil(y + h + k * h))))


def keep_mask(faces, shape, scale, k):
    """Boolean mask (True = outside every grown face box) at 1/scale resolution."""
    h, w = shape
    keep = np.ones((h, w), bool)
    for face in faces:
        x0, y0, x1, y1 = grown(face, k, w * scale, h * scale)
        keep[y0 // scale:-(-y1 // scale), x0 // scale:-(-x1 // scale)] = False
    return keep


def norm_crop(g, x, y, w, h):
    crop = g[y:y + h, x:x + w]
    nh = max(8, round(h * NORM_WIDTH / w))
    interp = cv2.INTER_AREA if w > NORM_WIDTH else cv2.INTER_LINEAR
    return cv2.resize(crop, (NORM_WIDTH, nh), interpolation=interp).astype(np.float32)


def laplacian_r(a, b):
    la = cv2.Laplacian(a, cv2.CV_32F, ksize=3).ravel()
    lb = cv2.Laplacian(b, cv2.CV_32F, ksize=3).ravel()
    la -= la.mean()
    lb -= lb.mean()
    den = math.sqrt(float(la @ la) * float(lb @ lb))
    return float(la @ lb) / den if den > 1e-6 else 0.0


def band_of(width):
    for lo, hi, name in BANDS:
        if lo <= width < hi:
            return name
    return "<48"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clip", required=True, help="the input clip")
    ap.add_argument("--truth", help="its truth file (default: CLIP without .mp4 + .truth.jsonl)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--output", help="a masked video")
    src.add_argument("--chunks", help="a node store directory: its chunk_*.mp4 concatenated in order")
    ap.add_argument("--threshold", type=float, default=0.5, help="Laplacian r at or above which a face is exposed")
    ap.add_argument("--min-visible", type=float, default=0.5,
                    help="faces with at least this share visible are scored")
    ap.add_argument("--partial-visible", type=float, default=0.25,
                    help="faces with a visible share from this up to --min-visible are reported apart")
    ap.add_argument("--block-diff", type=float, default=12.0)
    ap.add_argument("--poor-cost", type=float, default=6.0, help="alignment cost (grey levels) over which a match is poor")
    ap.add_argument("--window", type=int, default=60)
    ap.add_argument("--per-frame", help="write one CSV line per scored face-frame here")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    truth_path = args.truth or os.path.splitext(args.clip)[0] + ".truth.jsonl"
    meta, truth = read_truth(truth_path)
    fps = float(meta["fps"]) if meta else 30.0

    # Pass 1: signatures of the input and the mask of what they may be compared on.
    sig_in, keep_in = [], []
    size = None
    for j, img in enumerate(frames_of(args.clip)):
        g = grey(img)
        size = g.shape
        s = signature(g)
        sig_in.append(s)
        faces = truth[j] if j < len(truth) else []
        keep_in.append(keep_mask(faces, s.shape, SIG, 0.5) if faces else None)
    n_in = len(sig_in)
    if n_in != len(truth):
        print(f"warning: clip has {n_in} frames, truth {len(truth)}", file=sys.stderr)
    fh, fw = size

    def cost(sig_out, j):
        d = cv2.absdiff(sig_out, sig_in[j])
        keep = keep_in[j]
        return float(d.mean()) if keep is None else float(d[keep].mean()) if keep.any() else float(d.mean())

    # Pass 2: align and score, reading the input again in step (grey frames kept from the
    # last match on, as far ahead as the candidates reach).
    reader = frames_of(args.clip)
    buffered = {}
    read_pos = -1

    def input_grey(j):
        nonlocal read_pos
        while read_pos < j:
            read_pos += 1
            buffered[read_pos] = grey(next(reader))
        return buffered[j]

    def face_evidence(g_out, j):
        """How many faces would be exposed if the output were input frame j."""
        count = 0
        g_in = input_grey(j)
        for face in (truth[j] if j < len(truth) else []):
            if face["visible"] >= args.min_visible:
                x, y, w, h = face["x"], face["y"], face["w"], face["h"]
                if laplacian_r(norm_crop(g_in, x, y, w, h), norm_crop(g_out, x, y, w, h)) >= args.threshold:
                    count += 1
        return count

    matched = []
    costs = []
    prev_j = -1
    face_frames = []     # (frame j, id, width, band, r)
    partial_frames = []  # the same for faces partly out of frame or covered
    outside, away = [], []
    bh_, bw_ = fh // BLOCK, fw // BLOCK
    # The node's frame times list every frame it kept: as many as the clip has means none was
    # dropped, and output frame i is input frame i (no search, no chance of misalignment).
    one_to_one = bool(args.chunks) and recorded_frames(args.chunks) == n_in
    out_frames = 0
    resized = False
    for img, _ in output_frames(args):
        out_frames += 1
        if img.shape[:2] != (fh, fw):
            img = cv2.resize(img, (fw, fh), interpolation=cv2.INTER_AREA)
            resized = True
        g_out = grey(img)
        s_out = signature(g_out)
        if one_to_one:
            expected, lo, hi = out_frames - 1, out_frames - 1, out_frames
        elif prev_j < 0:
            expected, lo, hi = 0, 0, min(n_in, 90)
        else:
            expected = prev_j + 1
            lo, hi = prev_j + 1, min(n_in, prev_j + 1 + args.window)
        if lo >= n_in:
            print(f"warning: output frame {out_frames - 1} has no input frame left", file=sys.stderr)
            break
        cand = {j: cost(s_out, j) for j in range(lo, max(hi, lo + 1))}
        best = min(cand.values())
        if best > args.poor_cost:
            # Nothing matches (an output that changed everything): trust the expected index.
            j = min(max(expected, lo), max(cand))
        elif expected in cand and cand[expected] <= best * 1.3 + 0.3:
            # The next frame fits about as well as any: alignment only moves forward, so a
            # jump ahead must be earned by a clearly better fit (masks outside the faces'
            # margins make the right frame's cost a little higher now and then).
            j = expected
        else:
            near = [jj for jj, c in cand.items() if c <= best + max(0.3, 0.1 * best)]
            if len(near) == 1:
                j = near[0]
            else:
                # Frames the background cannot tell apart (faces moving a few pixels, or
                # standing still over a repeated background frame): the one nearest the
                # expected index, since alignment only moves forward and a jump too far
                # ahead could never be undone; then the one whose faces match the output
                # best, so an exposed face is not missed through misalignment.
                j = max(near, key=lambda jj: (-abs(jj - expected), face_evidence(g_out, jj), -jj))
        c = cand[j]
        matched.append(j)
        costs.append(c)
        prev_j = j
        in_grey = input_grey(j)
        for old in [k for k in buffered if k < j]:
            del buffered[old]

        faces = truth[j] if j < len(truth) else []
        for face in faces:
            if face["visible"] < args.partial_visible or min(face["w"], face["h"]) < 8:
                continue
            x, y, w, h = face["x"], face["y"], face["w"], face["h"]
            r = laplacian_r(norm_crop(in_grey, x, y, w, h), norm_crop(g_out, x, y, w, h))
            if face["visible"] >= args.min_visible:
                face_frames.append((j, face["id"], face["width"], band_of(face["width"]), r))
            else:
                partial_frames.append((j, face["id"], face["width"], "partial", r))

        diff = cv2.absdiff(in_grey, g_out)[:bh_ * BLOCK, :bw_ * BLOCK].astype(np.float32)
        block_mean = diff.reshape(bh_, BLOCK, bw_, BLOCK).mean(axis=(1, 3))
        changed = block_mean > args.block_diff
        total = bh_ * bw_
        if faces:
            strict = keep_mask(faces, (bh_, bw_), BLOCK, 0.0)
            loose = keep_mask(faces, (bh_, bw_), BLOCK, 0.5)
            outside.append(np.count_nonzero(changed & strict) / total)
            away.append(np.count_nonzero(changed & loose) / total)
        else:
            outside.append(np.count_nonzero(changed) / total)
            away.append(outside[-1])

    # Summary.
    matched_set = set(matched)
    unmatched = [j for j in range(n_in) if j not in matched_set]
    first, last = (matched[0], matched[-1]) if matched else (n_in, -1)
    eligible_total = sum(1 for faces in truth for f in faces if f["visible"] >= args.min_visible)
    exposed = [ff for ff in face_frames if ff[4] >= args.threshold]
    bands = {}
    for _, _, name in BANDS:
        sel = [ff for ff in face_frames if ff[3] == name]
        ex = sum(1 for ff in sel if ff[4] >= args.threshold)
        bands[name] = {"face_frames": len(sel), "exposed": ex,
                       "exposed_pct": round(100.0 * ex / len(sel), 2) if sel else None}
    ids_all = sorted({ff[1] for ff in face_frames})
    ids_exposed = sorted({ff[1] for ff in exposed})
    # Longest run of consecutive scored frames in which one face stayed exposed.
    longest = 0
    by_id = {}
    for j, fid, _, _, r in face_frames:
        by_id.setdefault(fid, []).append((j, r >= args.threshold))
    for seq in by_id.values():
        run, prev = 0, None
        for j, ex in seq:
            run = run + 1 if ex else 0
            longest = max(longest, run)
    summary = {
        "label": args.label,
        "input_frames": n_in,
        "output_frames": out_frames,
        "output_resized": resized,
        "matched_frames": len(matched),
        "frames_dropped": len(unmatched),
        "dropped_before_first": sum(1 for j in unmatched if j < first),
        "dropped_between": sum(1 for j in unmatched if first < j < last),
        "dropped_after_last": sum(1 for j in unmatched if j > last),
        "align_cost_mean": round(float(np.mean(costs)), 3) if costs else None,
        "align_cost_max": round(float(np.max(costs)), 3) if costs else None,
        "poor_matches": sum(1 for c in costs if c > args.poor_cost),
        "aligned_one_to_one": one_to_one,
        "face_frames_in_truth": eligible_total,
        "face_frames_scored": len(face_frames),
        "exposed": len(exposed),
        "exposed_pct": round(100.0 * len(exposed) / len(face_frames), 2) if face_frames else None,
        "bands": bands,
        "partial_face_frames": len(partial_frames),
        "partial_exposed": sum(1 for ff in partial_frames if ff[4] >= args.threshold),
        "faces_scored": len(ids_all),
        "faces_ever_exposed": len(ids_exposed),
        "longest_exposed_run_frames": longest,
        "r_median": round(float(np.median([ff[4] for ff in face_frames])), 3) if face_frames else None,
        "masked_share_outside_boxes_pct": round(100.0 * float(np.mean(outside)), 3) if outside else None,
        "masked_share_away_from_faces_pct": round(100.0 * float(np.mean(away)), 3) if away else None,
        "frames_with_mask_away_from_faces": sum(1 for a in away if a > 0),
        "settings": {"threshold": args.threshold, "min_visible": args.min_visible,
                     "block_diff": args.block_diff, "block": BLOCK, "norm_width": NORM_WIDTH},
    }
    if args.per_frame:
        with open(args.per_frame, "w") as f:
            f.write("frame,id,width,band,r\n")
            for j, fid, width, band, r in face_frames:
                f.write(f"{j},{fid},{width},{band},{r:.4f}\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
