#!/usr/bin/env python3
"""How many cameras one box carries (issue 40): N nodes side by side, each recording its own
clip live at 30 fps with the defaults (privacy on), beside the ffmpeg floor measured in the
same run. Prints a markdown table and writes bench/out/capacity-<time>.json.

Clips (bench/moving_faces.py, cached in bench/out/): faces moving over a street scene with
people walking (seed 1, 2, 3 for cameras 1, 2, 3: different faces on each); "still" is one
frame of that scene without faces, repeated with fresh sensor-like noise every frame (an
empty lab); "appearing" adds faces that come into view inside the frame (popping in,
turning from profile, stepping out from behind a shelf; `moving_faces.py --appearing`).

Runs (RUNS, comma-separated; default 720p,1080p,still,appearing,2x720p,3x720p):
  720p, 1080p, still, appearing   one camera (1280x720 but 1080p);
  2x720p, 3x720p                   two or three 720p cameras at once;
  lowlight, blur, small, pop1080,  conditions real cameras meet (issue 60), one camera each:
  pop1440                          a dark room (30% brightness, sensor noise of 6 levels),
                                   motion blur (faces crossing at 300-600 px/s, the shutter
                                   open the whole frame), small faces (24-48 px wide), all at
                                   720p, and faces popping up mid-picture at 1080p and at
                                   1440p (`--appearing`); see moving_faces.py. The node and
                                   the floor read the low-light clip as raw frames (a
                                   camera's), not as its 40 Mbit/s H.264 (RAW_FEED). With --node-args
                                   "--privacy none" every face reads as shown: the exposure
                                   measure checked on an unmasked copy of each kind.

floor     `ffmpeg -re -i CLIP -c:v libx264 -preset veryfast OUT.mp4` of camera 1's clip,
          alone: decode and encode, no privacy, no live video. CPU from wait4's rusage.
node      `allspark-node run --source CLIP --no-loop` per camera, all started together; each
          exits at the end of its clip. CPU is the process's rusage (start-up included, as
          the floor's is), given per 60 s of clip. Frames lost: the node's own count of
          frames its capture dropped, and the scorer's count of clip frames missing from the
          chunks. Faces: bench/exposure_score.py over the chunks: whole faces (>= 80% inside,
          >= 48 px) and partial ones (40-80% inside) exposed, the longest run of frames one
          face was shown, and the faces shown in the first frame they could be scored in.
          Peak RSS is VmHWM.

Usage: bench/capacity.py [--node BIN] [--seconds 60] [--node-args "--privacy none"] [--cpu-quota CORES] [--first-seed N]
       (RUNS; quiet machine: the load average at the start is in the output). --node-args
       adds options to every node's `run`: with `--privacy none` the table shows what the
       node costs beside the floor without privacy. --cpu-quota makes a slow box on purpose:
       every node of a run shares one CPU cgroup limited to CORES (e.g. 0.8) of CPU time;
       the floor runs outside it (root; cgroup v1's cpu controller or cgroup v2).
       --against OLD runs a second binary's cameras beside the node's, on the same clips and
       started together, so that both share whatever else the box is doing: one run's
       ratio to the floor moves by several per cent with the box's load, the two binaries'
       CPU in the same minute does not (bench/history 21). Each run then adds the old
       binary's rows and the ratio of the two CPU figures. --first-seed makes the clips from
       other seeds (N, N+1, ... for cameras 1, 2, ...): faces and paths never measured before.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HERE = REPO / "bench"
CACHE = HERE / "out"
PY = "/usr/bin/python3"   # Debian's python3, with python3-opencv (scripts/setup.sh --test)
SIZES = {"720p": "1280x720", "1080p": "1920x1080"}
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port, peak_rss_mib  # noqa: E402
FPS = 30


# Conditions real cameras meet (issue 60), each a run of its own: the clip's size and the
# moving_faces.py flags that make it.
CONDITIONS = {
    "appearing": ("1280x720", ["--appearing"]),
    "lowlight": ("1280x720", ["--low-light", "0.3", "--noise", "6"]),
    "blur": ("1280x720", ["--speeds", "300-600", "--motion-blur"]),
    "small": ("1280x720", ["--widths", "24-48"]),
    "pop1080": ("1920x1080", ["--appearing"]),
    "pop1440": ("2560x1440", ["--appearing"]),
}
# Kinds the node and the floor read as raw frames, as a camera hands them over: sensor noise
# kept in the H.264 clip is 40 Mbit/s at 720p, and decoding that alone took 0.47 cores
# (2026-12-07), more than the node's encode of the same frames; no camera makes the node do it.
RAW_FEED = {"lowlight"}


def feed(clip, kind):
    """What the node and the floor read: the clip itself, or for RAW_FEED kinds its frames
    as raw video in NUT (the same pixels, so the clip's truth file still scores them)."""
    if kind not in RAW_FEED:
        return clip
    raw = clip.with_suffix(".raw.nut")
    if not raw.exists():
        partial = raw.with_suffix(".part")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(clip), "-c:v", "rawvideo", "-f", "nut", str(partial)],
                       check=True)
        partial.rename(raw)
    return raw


def moving_clip(size, seconds, seed, kind="moving-faces"):
    flags = CONDITIONS[kind][1] if kind in CONDITIONS else []
    path = CACHE / f"capacity-{kind}-{size}-{seconds:g}s-seed{seed}.mp4"
    if not path.exists():
        command = [PY, str(HERE / "moving_faces.py"), "--size", size, "--fps", str(FPS), "--seconds", f"{seconds:g}",
                   "--seed", str(seed), "--out", str(path)]
        subprocess.run(command + flags, check=True, stdout=subprocess.DEVNULL)
    return path


def still_clip(size, seconds):
    """One faceless frame of the scene, with temporal noise (a sensor's) on every frame."""
    path = CACHE / f"capacity-still-{size}-{seconds:g}s.mp4"
    if not path.exists():
        background = CACHE / f"capacity-background-{size}.mp4"
        subprocess.run([PY, str(HERE / "moving_faces.py"), "--size", size, "--fps", str(FPS), "--seconds", "1",
                        "--faces-off", "--out", str(background)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(background), "-vf",
                        f"trim=end_frame=1,loop=loop=-1:size=1,noise=alls=5:allf=t,fps={FPS}", "-t", f"{seconds:g}",
                        "-c:v", "libx264", "-preset", "fast", "-crf", "16", "-pix_fmt", "yuv420p", str(path)], check=True)
        # No faces: the scorer then counts the frames lost, and any mask as a false one.
        frames = int(round(seconds * FPS))
        with open(path.with_suffix(".truth.jsonl"), "w") as truth:
            truth.write(json.dumps({"meta": {"size": [int(v) for v in size.split("x")], "fps": FPS, "frames": frames,
                                             "faces": []}}) + "\n")
            for index in range(frames):
                truth.write(json.dumps({"frame": index, "faces": []}) + "\n")
    return path


def reap(pid, wait):
    """The CPU seconds (user + system) of child `pid` once it has exited, else None. Only
    wait4 gives a child's own rusage, so nothing else may reap it (no Popen.poll or wait)."""
    reaped, _, usage = os.wait4(pid, 0 if wait else os.WNOHANG)
    return usage.ru_utime + usage.ru_stime if reaped == pid else None


def floor(clip, work):
    process = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-re", "-i", str(clip), "-c:v", "libx264", "-preset",
                                "veryfast", str(work / "floor.mp4")])
    return reap(process.pid, wait=True)


def api(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
            return json.load(answer)
    except (OSError, ValueError):
        return None


class CpuQuota:
    """A CPU cgroup holding the nodes of one run to `cores` of CPU time (a slower box)."""

    def __init__(self, cores, name):
        self.path = None
        if cores is None:
            return
        period = 100_000
        quota = max(1000, int(cores * period))
        if Path("/sys/fs/cgroup/cpu.max").exists() or Path("/sys/fs/cgroup/cgroup.controllers").exists():
            self.path = Path("/sys/fs/cgroup") / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota} {period}")
        else:
            self.path = Path("/sys/fs/cgroup/cpu") / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(period))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))

    def hold(self, pid):
        if self.path is not None:
            (self.path / "cgroup.procs").write_text(str(pid))

    def remove(self):
        if self.path is not None:
            self.path.rmdir()


class Camera:
    def __init__(self, node, clip, source, size, work, extra_args, quota):
        self.clip, self.store, self.port = clip, work / "store", free_port()
        environment = {**os.environ, "ALLSPARK_SERVER_AUTH": "none", "ALLSPARK_SERVER_HOST": "127.0.0.1",
                       "ALLSPARK_SERVER_ANNOUNCE": "false", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                       "ALLSPARK_SERVER_RTSP_PORT": str(free_port())}
        self.log = open(work / "node.log", "w")
        self.process = subprocess.Popen(
            [node, "run", "--config", "/dev/null", "--source", str(source), "--no-loop", "--size", size, "--fps", str(FPS),
             "--store", str(self.store), "--port", str(self.port), "--uplink", "off", "--chunk-ms", "10000",
             "--format", "mp4", *extra_args], stdout=self.log, stderr=subprocess.STDOUT, env=environment, cwd=REPO)
        quota.hold(self.process.pid)
        self.peak, self.status, self.cpu = None, None, None

    def sample(self):
        if self.cpu is None:
            self.peak = peak_rss_mib(self.process.pid) or self.peak
            self.status = api(self.port, "/api/status") or self.status
            self.cpu = reap(self.process.pid, wait=False)

    def finished(self):
        recorder = (self.status or {}).get("recorder", {})
        return self.cpu is not None or (recorder.get("framesCaptured", 0) > 0 and not recorder.get("recording"))

    def stop(self):
        if self.cpu is None:
            self.process.terminate()
            self.cpu = reap(self.process.pid, wait=True)
        self.process.returncode = 0   # reaped above
        self.log.close()
        return self.cpu


# Kinds whose faces are narrower than the scorer's whole faces (48 px): counted from 24 px.
SMALL_FACES = {"small"}


def score(camera, kind):
    extra = ["--whole-width", "24"] if kind in SMALL_FACES else []
    result = subprocess.run([PY, str(HERE / "exposure_score.py"), "--clip", str(camera.clip), "--chunks", str(camera.store), *extra],
                            check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(result.stdout)


def run_cameras(nodes_and_clips, kind, size, seconds, work, extra_args, quota):
    """One camera per (binary, clip), all started together."""
    cameras = []
    for index, (node, clip) in enumerate(nodes_and_clips):
        folder = work / f"camera-{index + 1}"
        folder.mkdir()
        cameras.append(Camera(node, clip, feed(clip, kind), size, folder, extra_args, quota))
    deadline = time.monotonic() + seconds + 60
    while time.monotonic() < deadline and not all(camera.finished() for camera in cameras):
        time.sleep(1)
        for camera in cameras:
            camera.sample()
    rows = []
    for camera in cameras:
        camera.sample()
        cpu = camera.stop()
        scored = score(camera, kind)
        recorder = (camera.status or {}).get("recorder", {})
        rows.append({"cpuPer60s": round(cpu * 60 / seconds, 1), "framesLostByNode": recorder.get("framesDropped"),
                     "framesMissingInChunks": scored.get("frames_dropped"), "peakRSSMiB": round(camera.peak or 0, 1),
                     "wholeExposedPct": scored.get("whole_exposed_pct"), "partialExposedPct": scored.get("partly_inside_exposed_pct"),
                     "longestRunFrames": scored.get("face_longest_run_frames"),
                     "facesOverTwoFrames": scored.get("faces_with_run_over_2"),
                     "facesShownInFirstFrame": scored.get("faces_shown_in_first_frame"), "facesScored": scored.get("faces_scored"),
                     "searches": (camera.status or {}).get("privacy", {}).get("framesSearched"),
                     "waitsForDetection": (camera.status or {}).get("privacy", {}).get("waitsForDetection"),
                     "engine": (camera.status or {}).get("privacy", {}).get("engine"),
                     "exposedByWidth": {band: figures for band, figures in scored.get("bands", {}).items() if figures["face_frames"]}})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--node-args", default="", help="options added to every node's run (e.g. \"--privacy none\")")
    parser.add_argument("--cpu-quota", type=float, help="CPU time the nodes of a run may use, in cores (a slow box)")
    parser.add_argument("--against", help="a second (older) binary run beside the node, on the same clips")
    parser.add_argument("--first-seed", type=int, default=1, help="camera 1's clip seed (the next cameras' follow)")
    options = parser.parse_args()
    node = str(Path(options.node).resolve())
    against = str(Path(options.against).resolve()) if options.against else None
    CACHE.mkdir(parents=True, exist_ok=True)
    summary = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "node": node,
               "against": against, "seconds": options.seconds, "nodeArgs": options.node_args,
               "cpuQuotaCores": options.cpu_quota, "firstSeed": options.first_seed,
               "loadAtStart": os.getloadavg()[0], "runs": []}
    table = ["| run | node CPU (s per 60 s) | ffmpeg floor | node / floor | frames lost (node, chunks) | waits for a search "
             "| whole exposed % | partial exposed % | longest run | faces > 2 in a row | shown in first frame | peak RSS (MiB) "
             "| engine |",
             "|" + "---|" * 13]
    for name in os.environ.get("RUNS", "720p,1080p,still,appearing,2x720p,3x720p").split(","):
        count = int(name.split("x")[0]) if "x" in name else 1
        kind = name.split("x")[-1]
        size = CONDITIONS[kind][0] if kind in CONDITIONS else SIZES.get(kind, SIZES["720p"])
        if kind == "still":
            clips = [still_clip(size, options.seconds)] * count
        else:
            clips = [moving_clip(size, options.seconds, seed, kind)
                     for seed in range(options.first_seed, options.first_seed + count)]
        with tempfile.TemporaryDirectory(prefix=f"capacity-{name}-") as folder:
            work = Path(folder)
            floor_cpu = round(floor(feed(clips[0], kind), work) * 60 / options.seconds, 1)
            quota = CpuQuota(options.cpu_quota, f"allspark-capacity-{os.getpid()}-{name}")
            try:
                pairs = [(node, clip) for clip in clips] + ([(against, clip) for clip in clips] if against else [])
                every = run_cameras(pairs, kind, size, options.seconds, work, options.node_args.split(), quota)
            finally:
                quota.remove()
        cameras, old_cameras = every[:count], every[count:]
        run = {"run": name, "size": size, "floorPer60s": floor_cpu, "cameras": cameras}
        if against:
            run["againstCameras"] = old_cameras
            run["cpuNodeOverAgainst"] = round(sum(c["cpuPer60s"] for c in cameras) /
                                              sum(c["cpuPer60s"] for c in old_cameras), 3)
        summary["runs"].append(run)
        labelled = [(name, index, camera) for index, camera in enumerate(cameras)]
        labelled += [(f"{name} (against)", index, camera) for index, camera in enumerate(old_cameras)]
        for run_name, index, camera in labelled:
            label = run_name if count == 1 else f"{run_name}, camera {index + 1}"
            table.append(f"| {label} | {camera['cpuPer60s']} | {floor_cpu} | {camera['cpuPer60s'] / floor_cpu:.2f}x | "
                         f"{camera['framesLostByNode']}, {camera['framesMissingInChunks']} | {camera['waitsForDetection']} | "
                         f"{camera['wholeExposedPct']} | {camera['partialExposedPct']} | {camera['longestRunFrames']} | "
                         f"{camera['facesOverTwoFrames']} | {camera['facesShownInFirstFrame']} of {camera['facesScored']} | "
                         f"{camera['peakRSSMiB']} | {camera['engine']} |")
            print(table[-1], file=sys.stderr, flush=True)
        if against:
            table.append(f"| {name}: node / against, CPU in the same minute | {run['cpuNodeOverAgainst']:.3f} |" + " |" * 11)
            print(table[-1], file=sys.stderr, flush=True)
    summary["loadAtEnd"] = os.getloadavg()[0]
    out = CACHE / f"capacity-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(summary, indent=2))
    print("\n".join(table))
    for run in summary["runs"]:
        for index, camera in enumerate(run["cameras"]):
            widths = ", ".join(f"{band} px {figures['exposed']} of {figures['face_frames']} ({figures['exposed_pct']}%)"
                               for band, figures in camera["exposedByWidth"].items())
            print(f"{run['run']} camera {index + 1}, face-frames shown by width: {widths}")
    print(f"load average at start {summary['loadAtStart']:.2f}, at end {summary['loadAtEnd']:.2f}; {out}")


if __name__ == "__main__":
    main()
