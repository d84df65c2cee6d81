#!/usr/bin/python3
"""Privacy that lets no face through (issue 10): the node and deface on the same moving-faces
clip, scored frame by frame against the true face boxes.

Usage: bench/privacy-live.py NODE_BINARY [SECONDS] [SIZE]     (defaults: 20 1280x720)

Steps (PARTS, comma-separated, default sanity,live,offline,deface,facefree):
  sanity    the scorer on outputs whose answer is known: the clip re-encoded by x264 at
            CRF 23 (every face exposed, nothing masked), the same with every 7th frame
            removed (every face exposed, the removed frames found as dropped), an all-black
            output (nothing exposed), and the node live with --privacy none (every face
            exposed). Each is checked; the script exits non-zero when one fails.
  live      the node records the clip as a camera: `run --source CLIP --no-loop` paced at
            real time, --privacy face, 10 s chunks; the node exits at the end of the file
            (else SIGTERM once its recorder reports it stopped, or after SECONDS+30 s), then
            its chunks are scored. Peak RSS is VmHWM, sampled every second.
  offline   `NODE anonymize CLIP OUT.mp4`, timed, scored.
  deface    deface (default threshold, then --scale 640x360) on the first DEFACE_SECONDS
            (default 5) of the same clip, timed, scored. The OpenCV it imports is reported:
            `pip install deface` brings the newest opencv-python (5.0 in November 2026),
            about 35% faster here than the Debian OpenCV 4.6 the node links. For deface on
            the node's own OpenCV: `/usr/bin/python3 -m venv --system-site-packages V;
            V/bin/pip install --no-deps deface==1.5.0; V/bin/pip install -c PIN imageio
            imageio-ffmpeg tqdm scikit-image` with PIN holding `numpy==1.24.2`.
  facefree  the background alone (vtest.avi, no faces) through the node live and offline
            (and deface, when FACEFREE_DEFACE=1): share of the frame masked.

Issue 19 (faces at the frame's edges, a busy machine): EDGE=1 uses clips made with
`moving_faces.py --edge-faces` (the same crossing faces plus faces standing or walking
20-60% beyond the left or right edge), for every part but facefree; BUSY=1 runs a Python
busy loop (`while True: pass`) beside the node for the live part's run, pinned to core
BUSY_CPU when that is set, killed after (its CPU share is reported). A second table gives
issue 19's figures: whole faces (>= 80% inside, >= 48 px) and partial faces (40-80% inside)
exposed, the longest run of exposed frames of one face, the faces exposed for more than 2
frames in a row, frames lost (the scorer's, and the node's own count) and peak RSS. The
live runs also record every privacy counter of /api/status and each problem /api/health
reported while recording.

Issue 60 (conditions real cameras meet): KIND=low-light (30% brightness, sensor noise of 6
grey levels), motion-blur (faces crossing at 300-600 px/s, the shutter open the whole frame),
small-faces (24-48 px wide) or popping (the faces that come into view inside the picture,
`--appearing`) makes the clip of that kind (see moving_faces.py); the sanity part then checks
the exposure measure on that kind's unmasked copy.

Environment: NODE_FLAGS extra flags for `run` (e.g. "--privacy-detector dnn"); ANON_FLAGS
for `anonymize` (default: NODE_FLAGS); DEFACE the deface executable (default: deface on
PATH, else /tmp/deface-venv/bin/deface); DEFACE_FLAGS (default "--backend opencv");
SEED (1); FPS (30); OUT (bench/out/privacy-live). Clips are cached in bench/out/.
Prints a JSON summary (also written to OUT/summary-<time>.json) and a markdown table.
"""
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "protocol"))
from node_harness import peak_rss_mib  # noqa: E402
PY = "/usr/bin/python3"   # Debian's python3 with cv2 and numpy


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    log("$ " + " ".join(shlex.quote(str(c)) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


# Conditions real cameras meet (issue 60): KIND=NAME makes the clip with these flags of
# moving_faces.py (and names it after the kind), the same in every part.
KINDS = {
    "low-light": ["--low-light", "0.3", "--noise", "6"],
    "motion-blur": ["--speeds", "300-600", "--motion-blur"],
    "small-faces": ["--widths", "24-48"],
    "popping": ["--appearing"],
}


def make_clip(out_dir, size, fps, seconds, seed, faces_off=False, edge=False, kind_flags=None):
    kind = "vtest-only" if faces_off else "moving-faces-edge" if edge else "moving-faces"
    if kind_flags and not faces_off:
        kind = "moving-faces-" + os.environ["KIND"]
    name = f"{kind}-{size}-{fps:g}fps-{seconds:g}s-seed{seed}.mp4"
    path = os.path.join(out_dir, name)
    truth = path[:-4] + ".truth.jsonl"
    if not (os.path.exists(path) and os.path.exists(truth)):
        cmd = [PY, os.path.join(HERE, "moving_faces.py"), "--size", size, "--fps", f"{fps:g}",
               "--seconds", f"{seconds:g}", "--seed", str(seed), "--out", path]
        if faces_off:
            cmd.append("--faces-off")
        elif edge:
            cmd.append("--edge-faces")
        if kind_flags and not faces_off:
            cmd += kind_flags
        run(cmd, stdout=subprocess.DEVNULL)
    return path


def score(clip, label, output=None, chunks=None, extra=()):
    cmd = [PY, os.path.join(HERE, "exposure_score.py"), "--clip", clip, "--label", label, *extra]
    cmd += ["--output", output] if output else ["--chunks", chunks]
    res = run(cmd, stdout=subprocess.PIPE, text=True)
    return json.loads(res.stdout)


def frame_count(path):
    res = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0",
                          "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path],
                         check=True, stdout=subprocess.PIPE, text=True)
    return int(res.stdout.strip())


def timed(cmd, log_path, env=None):
    """Runs cmd under GNU time; returns (wall s, peak RSS MB, exit status)."""
    tfile = log_path + ".time"
    log("$ " + " ".join(shlex.quote(str(c)) for c in cmd))
    start = time.monotonic()
    with open(log_path, "w") as out:
        rc = subprocess.run(["/usr/bin/time", "-v", "-o", tfile, *map(str, cmd)], stdout=out,
                            stderr=subprocess.STDOUT, env=env).returncode
    wall = time.monotonic() - start
    rss = None
    for line in open(tfile):
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1]) / 1024
    return wall, rss, rc


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def status(port, path="/api/status"):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if path != "/api/health":
            return None
        try:   # /api/health answers 503 with its report when red
            return json.load(e)
        except ValueError:
            return None
    except Exception:
        return None


class BusyLoop:
    """A Python busy loop beside the node (BUSY=1), on the core BUSY_CPU when given (else
    wherever the scheduler puts it), for the length of one run; reports the CPU it took."""

    def __init__(self, cpu=None):
        self.cpu = cpu
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        self.proc = subprocess.Popen([PY, "-c", "while True: pass"], preexec_fn=pin)
        self.start = time.monotonic()
        log(f"busy loop started (pid {self.proc.pid}, {'core ' + str(cpu) if cpu is not None else 'not pinned'})")

    def stop(self):
        wall = time.monotonic() - self.start
        cpu_s = None
        try:
            fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
            cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
        self.proc.kill()
        self.proc.wait()
        return {"pinned_core": self.cpu, "wall_s": round(wall, 1),
                "cpu_share": round(cpu_s / wall, 2) if cpu_s is not None and wall > 0 else None}


def node_live(node, clip, size, fps, seconds, work, privacy, flags, busy=None):
    """Records CLIP as a paced camera (with a BusyLoop beside it when busy is not None: the
    core to pin it to, or -1 for none); returns (store dir, facts)."""
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    port = free_port()
    cmd = [node, "run", "--config", "/dev/null", "--source", clip, "--no-loop", "--size", size,
           "--fps", f"{fps:g}", "--store", store, "--port", str(port), "--uplink", "off",
           "--privacy", privacy, "--chunk-ms", "10000", "--format", "mp4", *flags]
    log("$ " + " ".join(shlex.quote(str(c)) for c in cmd))
    # The API open on loopback (else /api/status wants a token), no announcing, no RTSP
    # port shared with another node on this machine, no clock warning in the health.
    environment = {**os.environ, "ALLSPARK_SERVER_AUTH": "none", "ALLSPARK_SERVER_HOST": "127.0.0.1",
                   "ALLSPARK_SERVER_ANNOUNCE": "false", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                   "ALLSPARK_SERVER_RTSP_PORT": str(free_port())}
    logf = open(os.path.join(work, "node.log"), "w")
    start = time.monotonic()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=logf, stderr=subprocess.STDOUT, env=environment)
    busy_loop = BusyLoop(None if busy == -1 else busy) if busy is not None else None
    last, peak, finished = None, None, False
    health_levels, problems = set(), []
    deadline = start + seconds + 30
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(1)
            st = status(port)
            peak = peak_rss_mib(proc.pid) or peak
            if st:
                last = st
                rec = st["recorder"]
                if rec["framesCaptured"] > 0 and not rec["recording"]:
                    finished = True
                    break
                health = status(port, "/api/health")
                if health:
                    health_levels.add(health.get("status"))
                    problems += [p for p in health.get("problems", []) if p not in problems]
    finally:
        busy_facts = busy_loop.stop() if busy_loop else None
    wall = time.monotonic() - start
    peak = peak_rss_mib(proc.pid) or peak
    exited_by_itself = proc.poll() is not None
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    logf.close()
    facts = {"recorder_finished": finished, "exited_by_itself": exited_by_itself, "wall_s": round(wall, 1), "exit_status": proc.returncode,
             "peak_rss_mb": round(peak, 1) if peak else None, "busy_loop": busy_facts,
             "health_seen": sorted(h for h in health_levels if h), "health_problems_seen": problems}
    if last:
        rec, priv = last["recorder"], last.get("privacy", {})
        facts.update({k: rec.get(k) for k in ("framesCaptured", "framesDropped", "framesEncoded", "chunksWritten")})
        facts.update({k: priv.get(k) for k in ("detector", "framesSearched", "meanDetectionMs", "framesWithFaces",
                                                "facesMasked", "framesFailedClosed") if k in priv})
        facts["privacy_status"] = priv   # every counter the node reports, new ones included
    return store, facts


def node_offline(node, clip, work, flags, label):
    out = os.path.join(work, f"{label}.mp4")
    wall, rss, rc = timed([node, "anonymize", clip, out, *flags], os.path.join(work, f"{label}.log"))
    if rc != 0:
        raise RuntimeError(f"anonymize failed ({rc}), see {work}/{label}.log")
    frames = frame_count(out)
    return out, {"wall_s": round(wall, 1), "fps": round(frames / wall, 2), "peak_rss_mb": round(rss, 1),
                 "frames": frames}


def deface_run(deface, clip, work, flags, label):
    out = os.path.join(work, f"{label}.mp4")
    wall, rss, rc = timed([deface, clip, "-o", out, *flags], os.path.join(work, f"{label}.log"))
    if rc != 0:
        raise RuntimeError(f"deface failed ({rc}), see {work}/{label}.log")
    frames = frame_count(out)
    return out, {"wall_s": round(wall, 1), "fps": round(frames / wall, 2), "peak_rss_mb": round(rss, 1),
                 "frames": frames, "flags": " ".join(flags), "opencv": deface_opencv(deface)}


def deface_opencv(deface):
    """The OpenCV version deface's interpreter imports (pip's opencv-python is often newer,
    and faster, than the node's), and whether onnxruntime is there to be picked instead."""
    try:
        with open(shutil.which(deface) or deface) as f:
            interpreter = f.readline()[2:].strip()
        res = subprocess.run([interpreter, "-c", "import cv2, importlib.util as u; "
                              "print(cv2.__version__, 'onnxruntime' if u.find_spec('onnxruntime') else '')"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60)
        return res.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def find_deface():
    env = os.environ.get("DEFACE")
    if env:
        return env
    return shutil.which("deface") or "/tmp/deface-venv/bin/deface"


def row(name, s, speed=None, rss=None):
    def pct(v):
        return "n/a" if v is None else f"{v:.1f}"
    b = s["bands"]
    dropped = f"{s['frames_dropped']}"
    if s["frames_dropped"]:
        dropped += f" ({s['dropped_between']} inside)"
    return (f"| {name} | {s['input_frames']} | {s['matched_frames']} | {dropped} | {s['face_frames_scored']} | "
            f"**{pct(s['exposed_pct'])}** | {pct(b['48-96']['exposed_pct'])} | {pct(b['96-160']['exposed_pct'])} | "
            f"{pct(b['>=160']['exposed_pct'])} | {s['faces_ever_exposed']} of {s['faces_scored']} | "
            f"{s['longest_exposed_run_frames']} | {s['partial_exposed']} of {s['partial_face_frames']} | "
            f"{s['masked_share_away_from_faces_pct']:.2f} | {s['masked_share_outside_boxes_pct']:.2f} | "
            f"{'' if speed is None else speed} | {'' if rss is None else f'{rss:.0f}'} |")


def row19(name, s, lost=None, rss=None):
    """A row of issue 19's table."""
    def share(key):
        n, ex, pct = s.get(f"{key}_face_frames"), s.get(f"{key}_exposed"), s.get(f"{key}_exposed_pct")
        if n is None:
            return "n/a"
        return f"{ex} of {n} ({'n/a' if pct is None else f'{pct:.2f}%'}), {s[f'{key}_faces_exposed']} of {s[f'{key}_faces']} faces"
    dropped = f"{s['frames_dropped']}" + ("" if lost is None else f" (node: {lost})")
    return (f"| {name} | {share('whole')} | {share('partly_inside')} | {s.get('face_longest_run_frames', 'n/a')} | "
            f"{s.get('faces_with_run_over_2', 'n/a')} | {dropped} | {'' if rss is None else f'{rss:.0f}'} |")


HEADER19 = ("| run | whole faces (≥ 80% inside, ≥ 48 px) exposed | partial faces (40–80% inside) exposed | "
            "longest exposure of one face (frames) | faces exposed > 2 frames in a row | frames lost | peak RSS (MB) |\n|"
            + "---|" * 7)


HEADER = ("| run | input frames | frames matched | dropped | face-frames | exposed % | 48–96 | 96–160 | ≥160 | "
          "faces ever exposed | longest exposed run (frames) | partial faces exposed | masked % away from faces | "
          "masked % outside boxes | frames/s | peak RSS (MB) |\n|" + "---|" * 16)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    node = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    size = sys.argv[3] if len(sys.argv) > 3 else "1280x720"
    fps = float(os.environ.get("FPS", "30"))
    seed = int(os.environ.get("SEED", "1"))
    parts = os.environ.get("PARTS", "sanity,live,offline,deface,facefree").split(",")
    node_flags = shlex.split(os.environ.get("NODE_FLAGS", ""))
    anon_flags = shlex.split(os.environ.get("ANON_FLAGS", os.environ.get("NODE_FLAGS", "")))
    deface_flags = shlex.split(os.environ.get("DEFACE_FLAGS", "--backend opencv"))
    deface_seconds = float(os.environ.get("DEFACE_SECONDS", "5"))
    edge = os.environ.get("EDGE") == "1"
    busy = None
    if os.environ.get("BUSY") == "1":
        busy = int(os.environ["BUSY_CPU"]) if os.environ.get("BUSY_CPU") else -1
    busy_note = "" if busy is None else ", busy loop beside it" + (f" on core {busy}" if busy >= 0 else "")
    cache = os.path.join(HERE, "out")
    out_dir = os.environ.get("OUT", os.path.join(cache, "privacy-live"))
    os.makedirs(out_dir, exist_ok=True)

    kind = os.environ.get("KIND")
    if kind and kind not in KINDS:
        sys.exit(f"KIND must be one of {', '.join(KINDS)}")
    clip = make_clip(cache, size, fps, seconds, seed, edge=edge, kind_flags=KINDS.get(kind))
    summary = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "node": node, "size": size,
               "fps": fps, "seconds": seconds, "seed": seed, "clip": clip, "edge_faces": edge, "kind": kind,
               "busy_loop": None if busy is None else {"pinned_core": None if busy < 0 else busy},
               "node_flags": node_flags, "anon_flags": anon_flags, "load_average_at_start": os.getloadavg(),
               "runs": {}}
    runs = summary["runs"]
    rows, rows19 = [], []
    clip_note = f"{size}{', edge faces' if edge else ''}"

    if "sanity" in parts:
        work = os.path.join(out_dir, "sanity")
        os.makedirs(work, exist_ok=True)
        re23 = os.path.join(work, "reencoded-crf23.mp4")
        run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
             "-pix_fmt", "yuv420p", re23])
        runs["sanity_reencoded"] = score(clip, "sanity: x264 CRF 23 re-encode", output=re23)
        rows.append(row("sanity: clip re-encoded (x264 CRF 23)", runs["sanity_reencoded"]))
        drop = os.path.join(work, "every-7th-removed.mp4")
        run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", "select='not(eq(mod(n\\,7)\\,3))',setpts=N/FRAME_RATE/TB",
             "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", drop])
        runs["sanity_dropped"] = score(clip, "sanity: every 7th frame removed", output=drop)
        runs["sanity_dropped"]["frames_removed"] = sum(1 for n in range(runs["sanity_dropped"]["input_frames"]) if n % 7 == 3)
        rows.append(row(f"sanity: every 7th frame removed ({runs['sanity_dropped']['frames_removed']})",
                        runs["sanity_dropped"]))
        black = os.path.join(work, "black.mp4")
        run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", "drawbox=t=fill:c=black", "-c:v", "libx264",
             "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", black])
        runs["sanity_black"] = score(clip, "sanity: all black", output=black)
        rows.append(row("sanity: all black", runs["sanity_black"]))
        # What each sanity run must give; a failure means the scorer cannot be trusted.
        checks = {
            "reencoded: every face-frame exposed, nothing masked":
                runs["sanity_reencoded"]["exposed_pct"] == 100.0
                and runs["sanity_reencoded"]["masked_share_away_from_faces_pct"] < 0.01,
            "reencoded: every whole and partial face-frame of the truth scored and exposed":
                all(runs["sanity_reencoded"][f"{k}_exposed"] == runs["sanity_reencoded"][f"{k}_face_frames"]
                    == runs["sanity_reencoded"][f"{k}_face_frames_in_truth"] for k in ("whole", "partly_inside")),
            "every 7th removed: exactly the removed frames dropped, every face-frame exposed":
                runs["sanity_dropped"]["frames_dropped"] == runs["sanity_dropped"]["frames_removed"]
                and runs["sanity_dropped"]["exposed_pct"] == 100.0,
            "all black: no face-frame exposed": runs["sanity_black"]["exposed_pct"] == 0.0
                and runs["sanity_black"]["whole_exposed"] == runs["sanity_black"]["partly_inside_exposed"] == 0,
        }
        if not os.access(node, os.X_OK):
            log(f"no node binary at {node}: sanity run of the node with --privacy none skipped")
            parts = [p for p in parts if p not in ("live", "offline", "facefree")]
        else:
            store, facts = node_live(node, clip, size, fps, seconds, work, "none", node_flags)
            runs["sanity_node_privacy_none"] = score(clip, "sanity: node live --privacy none", chunks=store)
            runs["sanity_node_privacy_none"]["node"] = facts
            rows.append(row("sanity: node live, --privacy none", runs["sanity_node_privacy_none"],
                            rss=facts.get("peak_rss_mb")))
            rows19.append(row19(f"sanity: node live {clip_note}, --privacy none", runs["sanity_node_privacy_none"],
                                lost=facts.get("framesDropped"), rss=facts.get("peak_rss_mb")))
            checks["node --privacy none: every face-frame exposed"] = \
                runs["sanity_node_privacy_none"]["exposed_pct"] == 100.0
        summary["sanity_checks"] = checks
        for name, ok in checks.items():
            log(f"sanity {'ok' if ok else 'FAILED'}: {name}")

    if "live" in parts:
        work = os.path.join(out_dir, "live")
        os.makedirs(work, exist_ok=True)
        store, facts = node_live(node, clip, size, fps, seconds, work, "face", node_flags, busy=busy)
        runs["node_live"] = score(clip, "node live", chunks=store)
        runs["node_live"]["node"] = facts
        name = f"allspark-node live {' '.join(node_flags)}".rstrip()
        rows.append(row(name + busy_note, runs["node_live"], speed=f"{fps:g} (paced)", rss=facts.get("peak_rss_mb")))
        rows19.append(row19(f"{name} {clip_note}, {seconds:g} s{busy_note}", runs["node_live"],
                            lost=facts.get("framesDropped"), rss=facts.get("peak_rss_mb")))

    if "offline" in parts:
        work = os.path.join(out_dir, "offline")
        os.makedirs(work, exist_ok=True)
        out, facts = node_offline(node, clip, work, anon_flags, "anonymize")
        runs["node_offline"] = score(clip, "node anonymize", output=out)
        runs["node_offline"]["node"] = facts
        name = f"allspark-node anonymize {' '.join(anon_flags)}".rstrip()
        rows.append(row(name, runs["node_offline"], speed=facts["fps"], rss=facts["peak_rss_mb"]))
        rows19.append(row19(f"{name} {clip_note}, {seconds:g} s", runs["node_offline"], rss=facts["peak_rss_mb"]))

    if "deface" in parts:
        deface = find_deface()
        work = os.path.join(out_dir, "deface")
        os.makedirs(work, exist_ok=True)
        short = make_clip(cache, size, fps, deface_seconds, seed, edge=edge)
        summary["deface_clip"] = short
        for label, extra in (("deface", []), ("deface-scale-640x360", ["--scale", "640x360"])):
            out, facts = deface_run(deface, short, work, deface_flags + extra, label)
            runs[label] = score(short, label, output=out)
            runs[label]["deface"] = facts
            name = f"deface {' '.join(deface_flags + extra)}, OpenCV {facts['opencv']} (first {deface_seconds:g} s)"
            rows.append(row(name, runs[label],
                            speed=facts["fps"], rss=facts["peak_rss_mb"]))
            rows19.append(row19(f"{name} {clip_note}", runs[label], rss=facts["peak_rss_mb"]))

    if "facefree" in parts:
        work = os.path.join(out_dir, "facefree")
        os.makedirs(work, exist_ok=True)
        bg = make_clip(cache, size, fps, seconds, seed, faces_off=True)
        summary["facefree_clip"] = bg
        store, facts = node_live(node, bg, size, fps, seconds, work, "face", node_flags)
        runs["facefree_node_live"] = score(bg, "face-free: node live", chunks=store)
        runs["facefree_node_live"]["node"] = facts
        rows.append(row("face-free: allspark-node live", runs["facefree_node_live"], rss=facts.get("peak_rss_mb")))
        out, facts = node_offline(node, bg, work, anon_flags, "anonymize")
        runs["facefree_node_offline"] = score(bg, "face-free: node anonymize", output=out)
        runs["facefree_node_offline"]["node"] = facts
        rows.append(row("face-free: allspark-node anonymize", runs["facefree_node_offline"], speed=facts["fps"],
                        rss=facts["peak_rss_mb"]))
        if os.environ.get("FACEFREE_DEFACE") == "1":
            short = make_clip(cache, size, fps, deface_seconds, seed, faces_off=True)
            out, facts = deface_run(find_deface(), short, work, deface_flags, "deface")
            runs["facefree_deface"] = score(short, "face-free: deface", output=out)
            runs["facefree_deface"]["deface"] = facts
            rows.append(row(f"face-free: deface (first {deface_seconds:g} s)", runs["facefree_deface"],
                            speed=facts["fps"], rss=facts["peak_rss_mb"]))

    summary["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    path = os.path.join(out_dir, f"summary-{time.strftime('%Y%m%d-%H%M%S')}.json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary))
    print()
    print(HEADER)
    print("\n".join(rows))
    if rows19:
        print()
        print(HEADER19)
        print("\n".join(rows19))
    log(f"summary written to {path}")
    if not all(summary.get("sanity_checks", {}).values()):
        sys.exit("a sanity check failed: see above")


if __name__ == "__main__":
    main()
