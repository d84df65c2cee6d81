#!/usr/bin/python3
"""Score a masked video against the clip it was made from: which true faces are still
recognisable, which frames were dropped, and how much of the frame away from faces was
changed (false masks).

Usage:
  bench/exposure_score.py --clip CLIP.mp4 [--truth CLIP.truth.jsonl] --output OUT.mp4
  bench/exposure_score.py --clip CLIP.mp4 --chunks STORE_DIR      (the node's chunk_*.mp4, in order)
Prints one JSON object.

Alignment. Every output frame is matched to one input frame, in order (a later output frame
always matches a later input frame). Each frame is reduced to a grey signature at 1/8 size;
the cost of matching output frame k to input frame j is the mean absolute difference of
their signatures outside input frame j's true face boxes grown by half their size on every
side (so masks over the faces do not count, but a face where the input has none does). The
matching minimises the sum of those costs plus --skip-cost (0.3 grey levels) for every input
frame left out before or between matches (dynamic programming over the offset j - k, which
never decreases; frames after the last match are free, as in a run stopped early). So a
frame is counted as dropped only where leaving it out fits the pictures better, and an
output with as many frames as the clip is matched one to one. The chunks' frame times are
not used: a paced capture's times jitter. Where a drop happened the background often cannot
tell which frame went (a face moving a few pixels, or standing still over a background frame
the clip repeats); a second pass looks within 3 frames of the first path and takes
--exposed-bonus (1.0) off a candidate's cost for each face that would score as exposed in
it, so a face left unmasked is not missed through misalignment. A match costing over
--poor-cost is counted as poor (an all-black output is matched one to one by the skip cost
alone). Input frames that no output frame matched are dropped (split into before the first
match, between matches and after the last). Checked by `bench/privacy-live.py`'s sanity
part: with every 7th frame removed, every removed frame is found and every face-frame
scores as exposed.

Exposure. For each face in a matched frame whose visible share (in frame, not covered by
another face) is at least --min-visible (0.5), the true box is cut from input and output (grey),
both scaled to 64 px wide, optionally smoothed (--smooth), and the Laplacian (3x3) of each taken; the face is exposed when
the Pearson correlation r of the two Laplacians is at least --threshold (0.5). An unchanged
or re-encoded face keeps its edges (r near 1); pixelation, blur or a fill replaces them
(r near 0; a constant patch has r = 0). Faces with a visible share from --partial-visible
(0.25) up to --min-visible (entering, leaving, or behind another face) are scored the same way
on their visible box and reported apart ("partial_*"), not in the main figures. Of the
exposed face-frames, those with over a quarter of the box under another face are counted in
"exposed_while_covered" (what shows there may be a mouth and chin, no eyes; --dump-exposed
writes input|output crops of every exposed face-frame to look at).

Issue 19's classes, scored the same way (r of the Laplacians on the box clipped to the
frame), by the share of the true box inside the frame rather than the visible share: whole
faces (at least 80% inside and at least 48 px wide) and partial faces (40-80% inside), each
left out when over a quarter of its box is under another face. For each: face-frames,
exposed face-frames (count and %), faces, faces ever exposed ("whole_*", "partly_inside_*";
the "*_in_truth" counts are the truth's, to check the split against; "partial_*" above are
the older visible-share figures). Per face, the longest run
of exposed frames over its whole and partial frames ("face_longest_run_frames"): a frame in
which it is scored and masked ends a run, a frame in which it is not scored (dropped,
covered, mostly outside) does not; "faces_with_run_over_2" counts faces whose longest run
is over 2 frames, "long_runs" lists them (id, length, first input frame). With a clip made
with --edge-faces, "edge_faces_*" count the face-frames of those faces.

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
BAND = 12        # alignment: offsets searched at full size on each side of the coarse path
BANDS = [(24, 32, "24-32"), (32, 48, "32-48"), (48, 96, "48-96"), (96, 160, "96-160"), (160, 1e9, ">=160")]


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


SMOOTH = 0.0     # Gaussian sigma (px at NORM_WIDTH) before the Laplacian; 0: none


def laplacian_r(a, b):
    if SMOOTH > 0:
        a = cv2.GaussianBlur(a, (0, 0), SMOOTH)
        b = cv2.GaussianBlur(b, (0, 0), SMOOTH)
    la = cv2.Laplacian(a, cv2.CV_32F, ksize=3).ravel()
    lb = cv2.Laplacian(b, cv2.CV_32F, ksize=3).ravel()
    la -= la.mean()
    lb -= lb.mean()
    den = math.sqrt(float(la @ la) * float(lb @ lb))
    return float(la @ lb) / den if den > 1e-6 else 0.0


def dump_pair(directory, j, face, r, g_in, g_out):
    """Input and output around an exposed face, side by side, for a person to look at."""
    os.makedirs(directory, exist_ok=True)
    fh, fw = g_in.shape
    x0, y0, x1, y1 = grown(face, 0.25, fw, fh)
    pair = np.hstack([g_in[y0:y1, x0:x1], np.full((y1 - y0, 4), 255, np.uint8), g_out[y0:y1, x0:x1]])
    cv2.imwrite(os.path.join(directory, f"frame{j:06d}-face{face['id']}-r{r:.2f}.png"), pair)


def cost_table(sig_in, keep_in, sig_out, nd, band=None):
    """cost[k, d]: mean absolute difference of output frame k's signature and input frame
    k + d's, outside that input frame's grown face boxes; only for band[k] - BAND <= d <=
    band[k] + BAND when a band is given (inf elsewhere)."""
    n_out = len(sig_out)
    stack = np.stack(sig_in).astype(np.int16)
    keep = np.stack([np.ones(sig_in[0].shape, bool) if m is None or not m.any() else m for m in keep_in])
    kept = keep.sum(axis=(1, 2)).astype(np.float64)
    table = np.full((n_out, nd), np.inf)
    for k in range(n_out):
        lo, hi = (0, nd - 1) if band is None else (max(0, band[k] - BAND), min(nd - 1, band[k] + BAND))
        js = k + np.arange(lo, hi + 1)
        diff = np.abs(stack[js] - sig_out[k].astype(np.int16))
        table[k, lo:hi + 1] = (diff * keep[js]).sum(axis=(1, 2)) / kept[js]
    return table


def coarse(sigs, keeps=None):
    """Signatures at a quarter of their size (and the masks: kept where all was kept)."""
    h, w = sigs[0].shape
    small = [cv2.resize(x, (w // 4, h // 4), interpolation=cv2.INTER_AREA) for x in sigs]
    if keeps is None:
        return small
    masks = [None if m is None else cv2.resize(m.astype(np.float32), (w // 4, h // 4),
                                               interpolation=cv2.INTER_AREA) > 0.99 for m in keeps]
    return small, masks


def align(sig_in, keep_in, sig_out, skip_cost, max_dropped):
    """The least-cost offsets (see best_path). With many frames left out, first on signatures
    a quarter the size over every offset, then at full size within BAND of that path."""
    n_in, n_out = len(sig_in), len(sig_out)
    nd = min(n_in - n_out, max_dropped) + 1
    if n_in - n_out > max_dropped:
        print(f"warning: {n_in - n_out} more input frames than output frames; the alignment "
              f"considers at most {max_dropped} left out (--max-dropped)", file=sys.stderr)
    band = None
    if nd > 2 * BAND + 1:
        small_in, small_keep = coarse(sig_in, keep_in)
        band = best_path(cost_table(small_in, small_keep, coarse(sig_out), nd), skip_cost)
    table = cost_table(sig_in, keep_in, sig_out, nd, band)
    return table, best_path(table, skip_cost)


def best_path(table, skip_cost):
    """The offsets d[k] (never decreasing, so input frames k + d[k] strictly increase) that
    minimise the sum of table[k, d[k]] plus skip_cost for every input frame left out before
    or between matches; frames after the last match are free (a run stopped early)."""
    n_out, nd = table.shape
    offsets = np.arange(nd)
    back = np.zeros((n_out, nd), np.int32)
    total = table[0] + skip_cost * offsets
    for k in range(1, n_out):
        shifted = total - skip_cost * offsets
        run_min = np.minimum.accumulate(shifted)
        # where each running minimum came from
        is_new = np.concatenate(([True], shifted[1:] < run_min[:-1]))
        back[k] = np.maximum.accumulate(np.where(is_new, offsets, 0))
        total = table[k] + run_min + skip_cost * offsets
    d = int(np.argmin(total))
    path = [0] * n_out
    for k in range(n_out - 1, -1, -1):
        path[k] = d
        d = int(back[k, d])
    return path


def band_of(width):
    for lo, hi, name in BANDS:
        if lo <= width < hi:
            return name
    return "<24"


WHOLE_INSIDE = 0.8   # whole: at least this share of the box inside the frame ...
WHOLE_WIDTH = 48     # ... and at least this wide (px; --whole-width: 24 for the small-face clips)
whole_width = WHOLE_WIDTH
PARTIAL_INSIDE = 0.4  # partial: from this share inside up to WHOLE_INSIDE
MAX_COVERED = 0.25   # either: at most this share of the box under another face
RUN_LIMIT = 2        # a face shown for more than this many frames in a row is counted


def inside_share(face):
    """The share of the face's unclipped box that lies inside the frame."""
    fw_, fh_ = face["full"][2], face["full"][3]
    return min(1.0, face["w"] * face["h"] / max(1.0, fw_ * fh_))


def frame_class(face):
    """"whole", "partial" or None: the classes of issue 19's figures, by the share of the
    true box inside the frame (faces mostly behind another face are in neither)."""
    if "full" not in face or face.get("covered", 0) > MAX_COVERED:
        return None
    inside = inside_share(face)
    if inside >= WHOLE_INSIDE:
        return "whole" if face["width"] >= whole_width else None
    return "partial" if inside >= PARTIAL_INSIDE else None


def class_figures(classed, truth, ids_edge):
    """Exposed face-frames of each class, and each face's longest run of exposed frames:
    consecutive frames in which the face was scored (whole or partial) and exposed. A frame in
    which the face is not scored (dropped, under another face, mostly outside) does not end
    a run; only a frame in which it is scored and masked does."""
    out = {}
    for kind, key in (("whole", "whole"), ("partial", "partly_inside")):
        sel = [c for c in classed if c[2] == kind]
        ex = [c for c in sel if c[3]]
        out[f"{key}_face_frames_in_truth"] = sum(1 for fs in truth for f in fs if frame_class(f) == kind)
        out[f"{key}_face_frames"] = len(sel)
        out[f"{key}_exposed"] = len(ex)
        out[f"{key}_exposed_pct"] = round(100.0 * len(ex) / len(sel), 2) if sel else None
        out[f"{key}_faces"] = len({c[1] for c in sel})
        out[f"{key}_faces_exposed"] = len({c[1] for c in ex})
    runs = {}   # id -> (longest, first frame of it, frames scored)
    by_id = {}
    for j, fid, _, exposed in sorted(classed):
        by_id.setdefault(fid, []).append((j, exposed))
    for fid, seq in by_id.items():
        best, best_start, run, start = 0, None, 0, None
        for j, exposed in seq:
            if exposed:
                start = j if run == 0 else start
                run += 1
                if run > best:
                    best, best_start = run, start
            else:
                run = 0
        runs[fid] = (best, best_start, len(seq))
    long_runs = sorted(((b, fid, s, n) for fid, (b, s, n) in runs.items() if b > RUN_LIMIT), reverse=True)
    out["face_longest_run_frames"] = max((b for b, _, _ in runs.values()), default=0)
    out[f"faces_with_run_over_{RUN_LIMIT}"] = len(long_runs)
    out["long_runs"] = [{"id": fid, "frames": b, "from_frame": s, "frames_scored": n, "edge_face": fid in ids_edge}
                        for b, fid, s, n in long_runs[:20]]
    # Issue 40: a face is found in the first frame it can be scored in (whole or partial,
    # not mostly covered), or that frame waits for the search that finds it.
    first_frames = {fid: seq[0] for fid, seq in by_id.items()}
    shown_first = sorted(fid for fid, (_, exposed) in first_frames.items() if exposed)
    out["faces_shown_in_first_frame"] = len(shown_first)
    out["faces_shown_in_first_frame_ids"] = shown_first[:40]
    if ids_edge:
        sel = [c for c in classed if c[1] in ids_edge]
        out["edge_faces_face_frames"] = len(sel)
        out["edge_faces_exposed"] = sum(1 for c in sel if c[3])
    return out


def main():
    global SMOOTH
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clip", required=True, help="the input clip")
    ap.add_argument("--truth", help="its truth file (default: CLIP without .mp4 + .truth.jsonl)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--output", help="a masked video")
    src.add_argument("--chunks", help="a node store directory: its chunk_*.mp4 concatenated in order")
    ap.add_argument("--threshold", type=float, default=0.5, help="Laplacian r at or above which a face is exposed")
    ap.add_argument("--whole-width", type=int, default=WHOLE_WIDTH,
                    help="the narrowest face counted as whole, px (24 for clips of small faces: issue 60's 24-48 px)")
    ap.add_argument("--smooth", type=float, default=0.0,
                    help="Gaussian sigma in px of the 64 px wide crops before the Laplacian (0, the default and what bench/README.md's figures used: none; 1 discounts x264's fine-grain noise on small faces)")
    ap.add_argument("--min-visible", type=float, default=0.5,
                    help="faces with at least this share visible are scored")
    ap.add_argument("--partial-visible", type=float, default=0.25,
                    help="faces with a visible share from this up to --min-visible are reported apart")
    ap.add_argument("--block-diff", type=float, default=12.0)
    ap.add_argument("--poor-cost", type=float, default=6.0, help="alignment cost (grey levels) over which a match is poor")
    ap.add_argument("--skip-cost", type=float, default=0.3,
                    help="alignment cost of each input frame left out (grey levels, as the signature cost)")
    ap.add_argument("--exposed-bonus", type=float, default=1.0,
                    help="alignment: cost taken off a candidate frame for each face that would be exposed in it")
    ap.add_argument("--max-dropped", type=int, default=900,
                    help="most input frames the alignment may leave out (before, between and after matches)")
    ap.add_argument("--per-frame", help="write one CSV line per scored face-frame here")
    ap.add_argument("--dump-exposed", metavar="DIR", help="write input|output crops of each exposed face-frame here (PNG)")
    ap.add_argument("--matches", help="write the alignment here: one CSV line per output frame (k, input frame, cost)")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    global whole_width
    whole_width = args.whole_width
    SMOOTH = args.smooth
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

    class InputFrames:
        """Grey input frames read forward, kept from the lowest still needed on."""

        def __init__(self):
            self.reader, self.buffered, self.pos = frames_of(args.clip), {}, -1

        def get(self, j):
            while self.pos < j:
                self.pos += 1
                self.buffered[self.pos] = grey(next(self.reader))
            return self.buffered[j]

        def release_below(self, j):
            for old in [i for i in self.buffered if i < j]:
                del self.buffered[old]

    def exposed_count(g_in, g_out, j):
        """How many faces would be exposed if the output frame were input frame j."""
        count = 0
        for face in (truth[j] if j < len(truth) else []):
            if face["visible"] >= args.min_visible:
                x, y, w, h = face["x"], face["y"], face["w"], face["h"]
                if laplacian_r(norm_crop(g_in, x, y, w, h), norm_crop(g_out, x, y, w, h)) >= args.threshold:
                    count += 1
        return count

    face_frames = []     # (frame j, id, width, band, r)
    classed = []         # (frame j, id, "whole" or "partial", exposed): the issue-19 classes
    partial_frames = []  # the same for faces partly out of frame or covered
    exposed_covered = 0  # exposed face-frames with over a quarter of the box under another face
    outside, away = [], []
    bh_, bw_ = fh // BLOCK, fw // BLOCK

    # Pass 2: the output's signatures, then the whole alignment at once.
    sig_out = []
    resized = False
    for img, _ in output_frames(args):
        if img.shape[:2] != (fh, fw):
            img = cv2.resize(img, (fw, fh), interpolation=cv2.INTER_AREA)
            resized = True
        sig_out.append(signature(grey(img)))
    out_frames = len(sig_out)
    if out_frames > n_in:
        print(f"warning: output has {out_frames} frames, the clip {n_in}: the last "
              f"{out_frames - n_in} are not scored", file=sys.stderr)
        sig_out = sig_out[:n_in]
    table, path = align(sig_in, keep_in, sig_out, args.skip_cost, args.max_dropped)
    if table.shape[1] > 1:
        # Frames the background cannot tell apart (a face moving a few pixels, or standing
        # still over a background frame the clip repeats) leave where a drop happened open by
        # a frame or two. Within 3 frames of that path, a frame in which a face would score as
        # exposed earns a bonus, so a face left unmasked is not missed through misalignment.
        refined = np.full(table.shape, np.inf)
        inputs = InputFrames()
        for k, (img, _) in enumerate(output_frames(args)):
            if k >= len(path):
                break
            if img.shape[:2] != (fh, fw):
                img = cv2.resize(img, (fw, fh), interpolation=cv2.INTER_AREA)
            g_out = grey(img)
            lo, hi = max(0, path[k] - 3), min(table.shape[1] - 1, path[k] + 3)
            inputs.release_below(k + lo)
            for d in range(lo, hi + 1):
                bonus = args.exposed_bonus * exposed_count(inputs.get(k + d), g_out, k + d) \
                    if table[k, d] <= args.poor_cost else 0.0
                refined[k, d] = table[k, d] - bonus
        path = best_path(refined, args.skip_cost)
    matched = [k + d for k, d in enumerate(path)]
    costs = [float(table[k, d]) for k, d in enumerate(path)]

    if args.matches:
        with open(args.matches, "w") as f:
            f.write("output_frame,input_frame,cost\n")
            for k, (j, c) in enumerate(zip(matched, costs)):
                f.write(f"{k},{j},{c:.3f}\n")

    # Pass 3: score, reading input and output again in step.
    inputs = InputFrames()
    for k, (img, _) in enumerate(output_frames(args)):
        if k >= len(matched):
            break
        if img.shape[:2] != (fh, fw):
            img = cv2.resize(img, (fw, fh), interpolation=cv2.INTER_AREA)
        g_out = grey(img)
        j = matched[k]
        inputs.release_below(j)
        in_grey = inputs.get(j)

        faces = truth[j] if j < len(truth) else []
        for face in faces:
            kind = frame_class(face)
            if (face["visible"] < args.partial_visible and kind is None) or min(face["w"], face["h"]) < 8:
                continue
            x, y, w, h = face["x"], face["y"], face["w"], face["h"]
            r = laplacian_r(norm_crop(in_grey, x, y, w, h), norm_crop(g_out, x, y, w, h))
            if kind is not None:
                classed.append((j, face["id"], kind, r >= args.threshold))
            if face["visible"] < args.partial_visible:
                continue
            if face["visible"] >= args.min_visible:
                face_frames.append((j, face["id"], face["width"], band_of(face["width"]), r))
                if r >= args.threshold and face.get("covered", 0) > 0.25:
                    exposed_covered += 1
                if args.dump_exposed and r >= args.threshold:
                    dump_pair(args.dump_exposed, j, face, r, in_grey, g_out)
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
        "aligned_one_to_one": matched == list(range(len(matched))),
        "face_frames_in_truth": eligible_total,
        "face_frames_scored": len(face_frames),
        "exposed": len(exposed),
        "exposed_pct": round(100.0 * len(exposed) / len(face_frames), 2) if face_frames else None,
        "bands": bands,
        "partial_face_frames": len(partial_frames),
        "partial_exposed": sum(1 for ff in partial_frames if ff[4] >= args.threshold),
        "exposed_while_covered": exposed_covered if any("covered" in f for fs in truth for f in fs) else None,
        "faces_scored": len(ids_all),
        "faces_ever_exposed": len(ids_exposed),
        "longest_exposed_run_frames": longest,
        "r_median": round(float(np.median([ff[4] for ff in face_frames])), 3) if face_frames else None,
        "masked_share_outside_boxes_pct": round(100.0 * float(np.mean(outside)), 3) if outside else None,
        "masked_share_away_from_faces_pct": round(100.0 * float(np.mean(away)), 3) if away else None,
        "frames_with_mask_away_from_faces": sum(1 for a in away if a > 0),
        "settings": {"threshold": args.threshold, "min_visible": args.min_visible,
                     "block_diff": args.block_diff, "block": BLOCK, "norm_width": NORM_WIDTH, "smooth": SMOOTH},
    }
    ids_edge = {f["id"] for f in (meta or {}).get("faces", []) if f.get("edge")}
    summary.update(class_figures(classed, truth, ids_edge))
    summary["settings"].update({"whole_inside": WHOLE_INSIDE, "whole_width": whole_width,
                                "partial_inside": PARTIAL_INSIDE, "max_covered": MAX_COVERED})
    if args.per_frame:
        with open(args.per_frame, "w") as f:
            f.write("frame,id,width,band,r\n")
            for j, fid, width, band, r in face_frames:
                f.write(f"{j},{fid},{width},{band},{r:.4f}\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
