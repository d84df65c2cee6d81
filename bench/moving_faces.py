#!/usr/bin/python3
"""Make a test clip of faces moving over a street scene, with the true face box of every frame.

Background: vtest.avi (768x576, 10 fps, a fixed outdoor camera) from ../shared/faces/video,
centre-cropped to the target aspect ratio (768x432 for 16:9: the top and bottom 72 rows go),
scaled to the target size and shown at the target rate by repeating each source frame
(three times at 30 fps); it loops after 79.5 s.

Faces: crops of the FDDB dev photos in ../shared/faces/dev. A face is eligible when its label
box is at least 40 px wide in the photo, at least 10% of its width away from the photo's
edges, and no other labeled face of the same photo reaches into its crop (the label box plus
25% of its width and height on each side, clipped to the photo). Each face's crop is pasted
with an elliptical alpha: opaque over the label box's inscribed ellipse grown by 10%, fading
smoothly to nothing at 1.5 times its radii and near the crop's border, so no rectangle shows.

Each face gets a target width drawn log-uniformly from 48-220 px (so about 46% fall in
48-96, 34% in 96-160, 20% above 160), then a photo drawn uniformly among the eligible faces
at least a third of that width (the crop is never enlarged more than 3x), without
repetition until the pool runs out. Its path: it enters from an edge (left or right 35%
each, top or bottom 15% each), moves in a straight line to a point inside the frame at
20-300 px/s, stops there for 1-4 s (70% of faces; the rest walk on at once), then leaves
through an edge (the opposite one 60% of the time) at 20-300 px/s. Three faces are already
under way at the start; then one arrives every 2.5 s on average, with at most 6 in view.
Later faces are drawn over earlier ones. Everything comes from --seed, and the schedule
does not depend on --seconds: a shorter clip is the first part of a longer one.

Edge faces (--edge-faces, issue 19): a second stream, drawn from its own generator (seeded
with --seed and 1), so the faces above are the same as without the option. One arrives every
4 s on average at the left or right edge (even odds; while a side's face is there the next
one for that side waits), width and photo drawn as above. It comes in horizontally from
beyond the edge (no part of its sprite in view) at 20-150 px/s to where 20-60% of its label
box's width is beyond the edge, stays there 1-4 s, and goes back out the same way at
20-150 px/s. Every third (the 2nd, 5th, ...) walks along the edge during its stay, at
15-80 px/s towards the side with more room, no further than the top or bottom of the
frame; the rest stand. They are drawn over the other faces, their ids start at 1000, and the
meta's face list marks them with "edge": "left" or "right" (the meta: "edge_faces": true).

Output: an H.264 MP4 (libx264, CRF 16 by default, yuv420p) and beside it
NAME.truth.jsonl: a first line {"meta": {...}}, then one line per frame:
{"frame": i, "faces": [{"id", "x", "y", "w", "h", "width", "visible", "covered", "full"}]}
where x, y, w, h is the face's label box mapped into the frame and clipped to it, "full" the
same box unclipped ([x, y, w, h], fractional), "width" its width, "visible" the share of the
unclipped box that is inside the frame and not covered by a face drawn over it, and
"covered" the share of the unclipped box under another face or a shelf (--appearing) (where that face's alpha is at
least 0.5). Only faces with some part in the frame are listed.

Conditions real cameras meet (issue 60), each its own clip: --widths LO-HI draws the face
widths from LO-HI px instead (small faces: 24-48), --speeds LO-HI the crossing speeds
(motion blur: 300-600 px/s); --motion-blur draws each face as the camera sees it with the
shutter open for the whole frame interval (the mean of 8 positions along its path in that
interval, its alpha likewise); --low-light SHARE scales the finished picture's brightness
to SHARE (0.3: a dark room) and --noise SIGMA adds Gaussian sensor noise of SIGMA grey
levels to it after (from its own generator, seeded with --seed and 4). The truth is the
same boxes: a blurred or darkened face is still a face to mask.

Usage: bench/moving_faces.py --size 1280x720 --fps 30 --seconds 60 --seed 1 --out DIR/clip.mp4
       (--faces-off writes the background alone, with an empty truth, for false-mask runs;
       --edge-faces adds the edge faces; --appearing the faces that come into view inside the frame)
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FACES = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "faces"))

MIN_LABEL_WIDTH = 40
MARGIN = 0.25           # crop margin on each side, as a share of the label's width/height
WIDTH_RANGE = (48.0, 220.0)
MAX_UPSCALE = 3.0
SPEED_RANGE = (20.0, 300.0)
STOP_PROBABILITY = 0.7
STOP_RANGE = (1.0, 4.0)
INITIAL_FACES = 3
MEAN_GAP = 2.5
MAX_IN_VIEW = 6
EDGE_MEAN_GAP = 4.0
EDGE_OUT_RANGE = (0.2, 0.6)     # share of the label box's width beyond the side edge
EDGE_SPEED_RANGE = (20.0, 150.0)
EDGE_WALK_SPEED = (15.0, 80.0)
EDGE_ID_BASE = 1000
APPEAR_MEAN_GAP = 3.0
APPEAR_STAY = (1.5, 3.0)
TURN_S = 0.4                    # a head turning from profile to the camera, and back
TURN_NARROWEST = 0.3            # the profile's width, as a share of the face's
OCCLUDER_GROWTH = 1.3           # the shelf is this much larger than the face's sprite
OCCLUDER_SPEED = (40.0, 150.0)
APPEAR_ID_BASE = 2000
APPEAR_KINDS = ("pop", "turn", "occluder")


def parse_size(text):
    w, h = text.lower().split("x")
    return int(w), int(h)


def load_labels(faces_dir):
    by_image = {}
    with open(os.path.join(faces_dir, "dev", "labels.csv")) as f:
        for row in csv.DictReader(f):
            box = tuple(int(float(row[k])) for k in ("x", "y", "w", "h"))
            by_image.setdefault(row["image"], []).append(box)
    return by_image


def crop_rect(box, shape):
    x, y, w, h = box
    mx, my = w * MARGIN, h * MARGIN
    x0 = max(0, int(math.floor(x - mx)))
    y0 = max(0, int(math.floor(y - my)))
    x1 = min(shape[1], int(math.ceil(x + w + mx)))
    y1 = min(shape[0], int(math.ceil(y + h + my)))
    return x0, y0, x1, y1


def eligible_faces(faces_dir, labels):
    """(image, box) of every face usable as a pasted face, in a fixed order."""
    out = []
    for image in sorted(labels):
        boxes = labels[image]
        candidates = [b for b in boxes if b[2] >= MIN_LABEL_WIDTH]
        if not candidates:
            continue
        shape = cv2.imread(os.path.join(faces_dir, "dev", "images", image)).shape
        for box in candidates:
            x, y, w, h = box
            edge = 0.10 * w
            if x < edge or y < edge or x + w > shape[1] - edge or y + h > shape[0] - edge:
                continue
            x0, y0, x1, y1 = crop_rect(box, shape)
            clash = False
            for other in boxes:
                if other is box:
                    continue
                ox, oy, ow, oh = other
                if ox < x1 and ox + ow > x0 and oy < y1 and oy + oh > y0:
                    clash = True
                    break
            if not clash:
                out.append((image, box))
    return out


def face_sprite(faces_dir, image, box, target_width):
    """The crop scaled so the label box is target_width wide: BGR float32, alpha float32, and
    the label box's offset and size inside the sprite."""
    photo = cv2.imread(os.path.join(faces_dir, "dev", "images", image))
    x0, y0, x1, y1 = crop_rect(box, photo.shape)
    crop = photo[y0:y1, x0:x1]
    x, y, w, h = box
    scale = target_width / w
    sw, sh = max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    sprite = cv2.resize(crop, (sw, sh), interpolation=interp).astype(np.float32)
    # Label box inside the sprite.
    bx, by, bw, bh = (x - x0) * scale, (y - y0) * scale, w * scale, h * scale
    cx, cy = bx + bw / 2, by + bh / 2
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    rho = np.sqrt(((xx + 0.5 - cx) / (bw / 2)) ** 2 + ((yy + 0.5 - cy) / (bh / 2)) ** 2)
    t = np.clip((1.5 - rho) / (1.5 - 1.1), 0, 1)
    alpha = t * t * (3 - 2 * t)
    # Fade near the crop's own border too (where the photo's edge clipped the margin).
    feather = max(2.0, 0.08 * bw)
    dist = np.minimum(np.minimum(xx + 0.5, sw - xx - 0.5), np.minimum(yy + 0.5, sh - yy - 0.5))
    e = np.clip(dist / feather, 0, 1)
    alpha *= e * e * (3 - 2 * e)
    return sprite, alpha, (bx, by, bw, bh)


class Track:
    """A face's path: a list of (t, cx, cy) waypoints of the label box's centre, moving in
    straight lines between them."""

    def __init__(self, fid, start, points, image, box, width, height, edge=None, appears=None, occluder=None):
        self.id, self.start, self.points = fid, start, points
        self.image, self.box, self.width, self.height = image, box, width, height
        self.edge = edge   # the side edge an edge face stays at, else None
        self.appears = appears     # how an appearing face comes into view (--appearing), else None
        self.occluder = occluder   # the shelf it steps out from behind: (x, y, w, h), frame pixels
        self.end = points[-1][0]

    def squeeze(self, t):
        """The face's width as a share of its own: a turning face is narrow in profile."""
        if self.appears != "turn":
            return 1.0
        turned = min(1.0, (t - self.start) / TURN_S, (self.end - t) / TURN_S)
        return TURN_NARROWEST + (1 - TURN_NARROWEST) * max(0.0, turned)

    def centre(self, t):
        pts = self.points
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2]
        for (t0, x0, y0), (t1, x1, y1) in zip(pts, pts[1:]):
            if t <= t1:
                f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
                return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
        return pts[-1][1], pts[-1][2]


BLUR_SAMPLES = 8


def blurred_along_path(tr, t, fps, sprite, alpha):
    """The face as a shutter open for the whole frame interval from t sees it: the sprite and
    its alpha averaged over BLUR_SAMPLES positions along its path, on a canvas grown by the
    path's length; the padding on each side, and the label box's centre at mid-shutter."""
    points = [tr.centre(t + k / (BLUR_SAMPLES * fps)) for k in range(BLUR_SAMPLES)]
    mx, my = sum(p[0] for p in points) / BLUR_SAMPLES, sum(p[1] for p in points) / BLUR_SAMPLES
    pad_x = int(math.ceil(max(abs(p[0] - mx) for p in points))) + 1
    pad_y = int(math.ceil(max(abs(p[1] - my) for p in points))) + 1
    sh, sw = alpha.shape
    colour = np.zeros((sh + 2 * pad_y, sw + 2 * pad_x, 3), np.float32)
    weight = np.zeros((sh + 2 * pad_y, sw + 2 * pad_x), np.float32)
    for px, py in points:
        dx, dy = pad_x + int(round(px - mx)), pad_y + int(round(py - my))
        colour[dy:dy + sh, dx:dx + sw] += sprite * alpha[:, :, None]
        weight[dy:dy + sh, dx:dx + sw] += alpha
    blurred_alpha = weight / BLUR_SAMPLES
    blurred = colour / np.maximum(weight, 1e-6)[:, :, None]
    # The label box sits in the canvas offset by the padding, centred at mid-shutter.
    return blurred, blurred_alpha, (pad_x, pad_y), (mx, my)


def edge_point(rng, edge, fw, fh, w, h):
    """A point just outside the frame on the given edge, for a box of w x h centred there."""
    if edge in ("left", "right"):
        y = rng.uniform(h / 2, fh - h / 2) if fh > h else fh / 2
        x = -w / 2 - 2 if edge == "left" else fw + w / 2 + 2
    else:
        x = rng.uniform(w / 2, fw - w / 2) if fw > w else fw / 2
        y = -h / 2 - 2 if edge == "top" else fh + h / 2 + 2
    return x, y


OPPOSITE = {"left": "right", "right": "left", "top": "bottom", "bottom": "top"}
EDGES = ["left", "right", "top", "bottom"]
EDGE_WEIGHTS = [0.35, 0.35, 0.15, 0.15]


def draw_face(rng, pool, unused):
    """A target width and a photo's face that may be scaled to it, taken out of `unused`
    (refilled with the whole pool when no unused face fits)."""
    lo, hi = math.log(WIDTH_RANGE[0]), math.log(WIDTH_RANGE[1])
    width = math.exp(rng.uniform(lo, hi))
    fitting = [i for i in unused if pool[i][1][2] * MAX_UPSCALE >= width]
    if not fitting:
        unused[:] = range(len(pool))
        fitting = [i for i in unused if pool[i][1][2] * MAX_UPSCALE >= width]
    pick = fitting[int(rng.integers(len(fitting)))]
    unused.remove(pick)
    image, box = pool[pick]
    return width, image, box


def make_schedule(rng, pool, fw, fh, seconds):
    """Tracks of every face that is in view at some time before `seconds`. The draws do not
    depend on `seconds`, so a shorter clip is a prefix of a longer one."""
    tracks = []
    unused = list(range(len(pool)))
    t_next = 0.0
    fid = 0
    while True:
        if fid < INITIAL_FACES:
            start = -rng.uniform(1.0, 5.0)
        else:
            t_next += rng.exponential(MEAN_GAP)
            start = t_next
            # At most MAX_IN_VIEW faces at once: wait for the earliest one to leave.
            while True:
                active = sorted(tr.end for tr in tracks if tr.start <= start < tr.end)
                if len(active) < MAX_IN_VIEW:
                    break
                start = active[0]
            t_next = start
        if start >= seconds:
            break
        width, image, box = draw_face(rng, pool, unused)
        height = width * box[3] / box[2]
        entry = EDGES[rng.choice(4, p=EDGE_WEIGHTS)]
        exit_edge = OPPOSITE[entry] if rng.uniform() < 0.6 else EDGES[int(rng.integers(4))]
        x0, y0 = edge_point(rng, entry, fw, fh, width, height)
        sx = rng.uniform(width / 2, max(width / 2 + 1, fw - width / 2))
        sy = rng.uniform(height / 2, max(height / 2 + 1, fh - height / 2))
        x2, y2 = edge_point(rng, exit_edge, fw, fh, width, height)
        v1, v2 = rng.uniform(*SPEED_RANGE), rng.uniform(*SPEED_RANGE)
        stop = rng.uniform(*STOP_RANGE) if rng.uniform() < STOP_PROBABILITY else 0.0
        t1 = start + math.hypot(sx - x0, sy - y0) / v1
        t2 = t1 + stop
        t3 = t2 + math.hypot(x2 - sx, y2 - sy) / v2
        points = [(start, x0, y0), (t1, sx, sy), (t2, sx, sy), (t3, x2, y2)]
        tracks.append(Track(fid, start, points, image, box, width, height))
        fid += 1
    return tracks


def make_edge_schedule(rng, pool, fw, fh, seconds):
    """Tracks of the edge faces (--edge-faces) in view before `seconds`: a stream of its own,
    drawn from its own generator, so the crossing faces are those of the clip without it.
    As there, the draws do not depend on `seconds`."""
    tracks = []
    unused = list(range(len(pool)))
    free_from = {"left": -math.inf, "right": -math.inf}
    t_next = 0.0
    k = 0
    while True:
        t_next += rng.exponential(EDGE_MEAN_GAP)
        side = "left" if rng.uniform() < 0.5 else "right"
        start = max(t_next, free_from[side])   # one edge face per side at a time
        t_next = start
        if start >= seconds:
            break
        width, image, box = draw_face(rng, pool, unused)
        height = width * box[3] / box[2]
        out = rng.uniform(*EDGE_OUT_RANGE)
        sign = -1 if side == "left" else 1
        home = fw / 2 + sign * fw / 2          # x of the side edge
        # Centre x of the label box with `out` of its width beyond the edge, and far enough
        # out that no part of the sprite (label box plus margin and fade) shows.
        x_stay = home - sign * width * (0.5 - out)
        x_away = home + sign * (0.75 * width + 2)
        y1 = rng.uniform(height / 2, max(height / 2 + 1, fh - height / 2))
        v_in, v_out = rng.uniform(*EDGE_SPEED_RANGE), rng.uniform(*EDGE_SPEED_RANGE)
        stay = rng.uniform(*STOP_RANGE)
        y2 = y1
        if k % 3 == 1:
            # Every third walks along the edge, towards the side with more room, stopping
            # short of the frame's end (fixed, so that even a short clip has one).
            step = rng.uniform(*EDGE_WALK_SPEED) * stay
            y2 = y1 + step if y1 < fh / 2 else y1 - step
            y2 = min(max(y2, height / 2), max(height / 2, fh - height / 2))
        t1 = start + abs(x_stay - x_away) / v_in
        t2 = t1 + stay
        t3 = t2 + abs(x_stay - x_away) / v_out
        points = [(start, x_away, y1), (t1, x_stay, y1), (t2, x_stay, y2), (t3, x_away, y2)]
        tracks.append(Track(EDGE_ID_BASE + k, start, points, image, box, width, height, edge=side))
        free_from[side] = t3
        k += 1
    return tracks


def make_appearing_schedule(rng, pool, fw, fh, seconds):
    """Faces that come into view inside the frame (--appearing, issue 40), one every 3 s on
    average, by turns: "pop" shows at once and vanishes at once (someone coming round a
    corner, a door opening); "turn" shows in profile (the face squeezed to 30% of its
    width) and turns to the camera in 0.4 s, then back; "occluder" starts hidden behind a
    shelf drawn over the scene (30% larger than its sprite) and steps out sideways at
    40-150 px/s until it is clear, then back. Each stays 1.5-3 s, somewhere at least its
    own size away from the edges. Width and photo are drawn as for the other faces; ids
    start at 2000. Its own generator, so the crossing faces are those of the clip without it."""
    tracks = []
    unused = list(range(len(pool)))
    t = 0.5
    k = 0
    while True:
        t += rng.exponential(APPEAR_MEAN_GAP)
        if t >= seconds:
            break
        kind = APPEAR_KINDS[k % len(APPEAR_KINDS)]
        width, image, box = draw_face(rng, pool, unused)
        height = width * box[3] / box[2]
        stay = rng.uniform(*APPEAR_STAY)
        x = rng.uniform(width * 1.5, max(width * 1.5 + 1, fw - width * 1.5))
        y = rng.uniform(height * 1.5, max(height * 1.5 + 1, fh - height * 1.5))
        occluder = None
        if kind == "occluder":
            # The sprite (label box and its margin) is about 1.5 times the label box.
            ow, oh = 1.5 * width * OCCLUDER_GROWTH, 1.5 * height * OCCLUDER_GROWTH
            occluder = (x - ow / 2, y - oh / 2, ow, oh)
            side = -1 if x > fw / 2 else 1       # step out towards the side with more room
            clear = x + side * (ow / 2 + 0.75 * width + 2)
            travel = abs(clear - x) / rng.uniform(*OCCLUDER_SPEED)
            points = [(t, x, y), (t + travel, clear, y), (t + travel + stay, clear, y), (t + 2 * travel + stay, x, y)]
        else:
            points = [(t, x, y), (t + stay, x, y)]
        tracks.append(Track(APPEAR_ID_BASE + k, t, points, image, box, width, height, appears=kind, occluder=occluder))
        k += 1
    return tracks


class Occluder:
    """A shelf drawn over the scene: a flat brown panel with a fixed grain, so that it is
    still between frames and no detector takes it for a face."""

    def __init__(self, rng, rect, fw, fh):
        x, y, w, h = rect
        self.x0, self.y0 = max(0, int(round(x))), max(0, int(round(y)))
        self.x1, self.y1 = min(fw, int(round(x + w))), min(fh, int(round(y + h)))
        grain = rng.normal(0, 6, (self.y1 - self.y0, self.x1 - self.x0, 1))
        self.pixels = np.clip(np.array([60, 90, 120], np.float32) + grain, 0, 255).astype(np.uint8)

    def draw(self, frame, owner):
        frame[self.y0:self.y1, self.x0:self.x1] = self.pixels
        owner[self.y0:self.y1, self.x0:self.x1] = -2


class Background:
    """vtest.avi, centre-cropped to the target aspect, scaled, and repeated to the target rate."""

    def __init__(self, path, fw, fh, fps):
        self.path, self.fw, self.fh, self.fps = path, fw, fh, fps
        self.cap = cv2.VideoCapture(path)
        self.src_fps = self.cap.get(cv2.CAP_PROP_FPS) or 10.0
        self.count = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self.pos = -1
        self.frame = None

    def _crop(self, img):
        h, w = img.shape[:2]
        target = self.fw / self.fh
        if w / h > target:
            cw = round(h * target)
            x0 = (w - cw) // 2
            img = img[:, x0:x0 + cw]
        else:
            ch = round(w / target)
            y0 = (h - ch) // 2
            img = img[y0:y0 + ch]
        return cv2.resize(img, (self.fw, self.fh), interpolation=cv2.INTER_LINEAR)

    def at(self, index):
        src = int(math.floor(index * self.src_fps / self.fps + 1e-9)) % self.count
        if src != self.pos:
            if src != self.pos + 1:
                self.cap.release()
                self.cap = cv2.VideoCapture(self.path)
                self.pos = -1
            while self.pos < src:
                ok, img = self.cap.read()
                if not ok:
                    raise RuntimeError(f"could not read frame {self.pos + 1} of {self.path}")
                self.pos += 1
            self.frame = self._crop(img)
        return self.frame


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="output .mp4; the truth goes to NAME.truth.jsonl beside it")
    ap.add_argument("--faces-dir", default=DEFAULT_FACES)
    ap.add_argument("--faces-off", action="store_true", help="background only (no faces), empty truth")
    ap.add_argument("--edge-faces", action="store_true",
                    help="add a stream of faces that stand or walk 20-60%% beyond the left or right edge")
    ap.add_argument("--appearing", action="store_true",
                    help="add faces that come into view inside the frame: popping in, turning from profile, "
                         "stepping out from behind a shelf")
    ap.add_argument("--widths", help="face widths LO-HI px (default 48-220)")
    ap.add_argument("--speeds", help="crossing speeds LO-HI px/s (default 20-300)")
    ap.add_argument("--motion-blur", action="store_true", help="faces blurred along their motion over a whole frame interval")
    ap.add_argument("--low-light", type=float, default=1.0, help="brightness share of the finished picture (0.3: a dark room)")
    ap.add_argument("--noise", type=float, default=0.0, help="Gaussian sensor noise, grey levels, added after --low-light")
    ap.add_argument("--crf", type=int, default=16)
    ap.add_argument("--preset", default="fast")
    args = ap.parse_args()

    global WIDTH_RANGE, SPEED_RANGE
    if args.widths:
        WIDTH_RANGE = tuple(float(v) for v in args.widths.split("-"))
    if args.speeds:
        SPEED_RANGE = tuple(float(v) for v in args.speeds.split("-"))
    fw, fh = parse_size(args.size)
    frames = int(round(args.seconds * args.fps))
    noise_rng = np.random.default_rng([args.seed, 4])
    rng = np.random.default_rng(args.seed)
    tracks = []
    if not args.faces_off:
        labels = load_labels(args.faces_dir)
        pool = eligible_faces(args.faces_dir, labels)
        tracks = make_schedule(rng, pool, fw, fh, args.seconds)
        if args.edge_faces:
            edge_rng = np.random.default_rng([args.seed, 1])
            tracks += make_edge_schedule(edge_rng, pool, fw, fh, args.seconds)
        if args.appearing:
            appearing_rng = np.random.default_rng([args.seed, 2])
            tracks += make_appearing_schedule(appearing_rng, pool, fw, fh, args.seconds)
    occluder_rng = np.random.default_rng([args.seed, 3])
    # A shelf stands from a second before its face steps out to a second after it is back.
    occluders = [(tr.start - 1.0, tr.end + 1.0, Occluder(occluder_rng, tr.occluder, fw, fh)) for tr in tracks if tr.occluder]
    sprites = {}
    for tr in tracks:
        sprites[tr.id] = face_sprite(args.faces_dir, tr.image, tr.box, tr.width)

    out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    truth_path = os.path.splitext(out)[0] + ".truth.jsonl"
    tmp_video, tmp_truth = out + ".part.mp4", truth_path + ".part"
    enc = subprocess.Popen(
        ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{fw}x{fh}",
         "-r", f"{args.fps:g}", "-i", "-", "-c:v", "libx264", "-preset", args.preset, "-crf", str(args.crf),
         "-pix_fmt", "yuv420p", "-movflags", "+faststart", tmp_video],
        stdin=subprocess.PIPE)
    bg = Background(os.path.join(args.faces_dir, "video", "vtest.avi"), fw, fh, args.fps)
    meta = {
        "size": [fw, fh], "fps": args.fps, "frames": frames, "seed": args.seed, "seconds": args.seconds,
        "faces_off": args.faces_off, "widths": list(WIDTH_RANGE), "speeds": list(SPEED_RANGE),
        "motion_blur": args.motion_blur, "low_light": args.low_light, "noise": args.noise, "background": "vtest.avi centre-cropped to aspect, scaled, frames repeated",
        "faces": [{"id": tr.id, "image": tr.image, "label": list(tr.box), "width": round(tr.width, 1),
                   "start": round(tr.start, 3), "end": round(tr.end, 3),
                   "path": [[round(v, 2) for v in p] for p in tr.points],
                   **({"edge": tr.edge} if tr.edge else {}), **({"appears": tr.appears} if tr.appears else {}),
                   **({"occluder": [round(v, 1) for v in tr.occluder]} if tr.occluder else {})} for tr in tracks],
    }
    if args.edge_faces:
        meta["edge_faces"] = True
    if args.appearing:
        meta["appearing_faces"] = True
    with open(tmp_truth, "w") as truth:
        truth.write(json.dumps({"meta": meta}) + "\n")
        for i in range(frames):
            t = i / args.fps
            frame = bg.at(i).copy()
            owner = np.full((fh, fw), -1, np.int32)   # topmost opaque face per pixel
            placed = []
            for tr in tracks:
                if not (tr.start <= t <= tr.end):
                    continue
                sprite, alpha, (bx, by, bw, bh) = sprites[tr.id]
                squeeze = tr.squeeze(t)
                if squeeze < 1.0:
                    narrow = max(1, int(round(alpha.shape[1] * squeeze)))
                    sprite = cv2.resize(sprite, (narrow, alpha.shape[0]), interpolation=cv2.INTER_AREA)
                    alpha = cv2.resize(alpha, (narrow, alpha.shape[0]), interpolation=cv2.INTER_AREA)
                    bx, bw = bx * narrow / sprites[tr.id][1].shape[1], bw * narrow / sprites[tr.id][1].shape[1]
                cx, cy = tr.centre(t)
                if args.motion_blur:
                    sprite, alpha, (pad_x, pad_y), (cx, cy) = blurred_along_path(tr, t, args.fps, sprite, alpha)
                    bx, by = bx + pad_x, by + pad_y
                ox = int(round(cx - (bx + bw / 2)))
                oy = int(round(cy - (by + bh / 2)))
                sh, sw = alpha.shape
                x0, y0 = max(0, ox), max(0, oy)
                x1, y1 = min(fw, ox + sw), min(fh, oy + sh)
                if x1 <= x0 or y1 <= y0:
                    continue
                a = alpha[y0 - oy:y1 - oy, x0 - ox:x1 - ox, None]
                region = frame[y0:y1, x0:x1].astype(np.float32)
                region = region * (1 - a) + a * sprite[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
                frame[y0:y1, x0:x1] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
                owner[y0:y1, x0:x1][a[:, :, 0] >= 0.5] = tr.id
                # Label box in the frame (unclipped, then clipped).
                lx, ly = ox + bx, oy + by
                placed.append((tr, lx, ly, bw, bh))
            for shown_from, shown_to, occluder in occluders:
                if shown_from <= t <= shown_to:
                    occluder.draw(frame, owner)
            faces = []
            for tr, lx, ly, bw, bh in placed:
                x0, y0 = max(0, int(round(lx))), max(0, int(round(ly)))
                x1, y1 = min(fw, int(round(lx + bw))), min(fh, int(round(ly + bh)))
                if x1 <= x0 or y1 <= y0:
                    continue
                box_owner = owner[y0:y1, x0:x1]
                covered = np.count_nonzero((box_owner != -1) & (box_owner != tr.id))
                visible = ((x1 - x0) * (y1 - y0) - covered) / max(1.0, bw * bh)
                faces.append({"id": tr.id, "x": x0, "y": y0, "w": x1 - x0, "h": y1 - y0,
                              "width": round(bw, 1), "visible": round(min(1.0, visible), 3),
                              "covered": round(covered / max(1.0, bw * bh), 3),
                              "full": [round(lx, 1), round(ly, 1), round(bw, 1), round(bh, 1)]})
            truth.write(json.dumps({"frame": i, "faces": faces}) + "\n")
            if args.low_light != 1.0 or args.noise > 0:
                dark = frame.astype(np.float32) * args.low_light
                if args.noise > 0:
                    dark += noise_rng.standard_normal(dark.shape, dtype=np.float32) * np.float32(args.noise)
                frame = np.clip(dark + 0.5, 0, 255).astype(np.uint8)
            enc.stdin.write(frame.tobytes())
    enc.stdin.close()
    if enc.wait() != 0:
        sys.exit("ffmpeg failed")
    os.replace(tmp_video, out)
    os.replace(tmp_truth, truth_path)
    print(json.dumps({"clip": out, "truth": truth_path, "frames": frames, "faces": len(tracks)}))


if __name__ == "__main__":
    main()
