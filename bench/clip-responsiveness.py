#!/usr/bin/env python3
"""Does making clips hold up the rest of the server? Records MINUTES of 720p footage into a
fresh store (a file read with --no-pace, so it takes about a minute a 10 minutes), starts
the node on that store, then asks for CLIPS clips of the whole range at once while a poller
reads /api/health every 50 ms. Reports the clips' sizes and times and the slowest health
answer during them, next to the slowest one before them (the same poller on the idle node).

Usage: bench/clip-responsiveness.py [--node BIN] [--minutes 10] [--clips 2]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port, wait_for_answer  # noqa: E402


def get(url, timeout=120):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def slowest_health(base, stop):
    worst = 0.0
    while not stop.is_set():
        started = time.monotonic()
        get(f"{base}/api/health")
        worst = max(worst, time.monotonic() - started)
        time.sleep(0.05)
    return worst


def download_clip(base, start, end, results, index):
    started = time.monotonic()
    size = 0
    with urllib.request.urlopen(f"{base}/api/clip?start={start}&end={end}", timeout=600) as response:
        first_byte = None
        while piece := response.read(1 << 20):
            first_byte = first_byte or time.monotonic() - started
            size += len(piece)
    results[index] = (size, first_byte, time.monotonic() - started)


def measure(base, seconds=None, clip_range=None, clips=0):
    stop = threading.Event()
    worst = []
    poller = threading.Thread(target=lambda: worst.append(slowest_health(base, stop)))
    poller.start()
    results = [None] * clips
    if clips:
        threads = [threading.Thread(target=download_clip, args=(base, *clip_range, results, i)) for i in range(clips)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        time.sleep(seconds)
    stop.set()
    poller.join()
    return worst[0], results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--clips", type=int, default=2)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="allspark-clip-bench-") as work:
        work = Path(work)
        footage, store = work / "input.mp4", work / "store"
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                        "-t", str(int(arguments.minutes * 60)), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18",
                        "-pix_fmt", "yuv420p", str(footage)], check=True)
        environment = dict(os.environ, ALLSPARK_SERVER_HOST="127.0.0.1", ALLSPARK_SERVER_ANNOUNCE="false",
                           ALLSPARK_ENCODER_PRESET="ultrafast", TMPDIR=str(work))
        common = ["--config", "/dev/null", "--privacy", "none", "--store", str(store), "--port", str(free_port())]
        subprocess.run([arguments.node, "run", *common, "--source", str(footage), "--no-pace", "--no-loop"],
                       env=environment, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = free_port()
        common[-1] = str(port)
        # The running node records a small test pattern in one long chunk, so the clips hold only the footage above.
        node = subprocess.Popen([arguments.node, "run", *common, "--source", "testsrc", "--size", "320x240", "--chunk-ms", "3600000"],
                                env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_answer(f"{base}/api/health")
            chunks = json.loads(get(f"{base}/api/chunks"))["chunks"]
            clip_range = (chunks[0]["startTime"], chunks[-1]["endTime"])
            idle, _ = measure(base, seconds=5)
            busy, results = measure(base, clip_range=clip_range, clips=arguments.clips)
        finally:
            node.send_signal(signal.SIGTERM)
            node.wait(timeout=30)
    for index, (size, first_byte, total) in enumerate(results):
        print(f"clip {index}: {size / 1e6:.0f} MB, first byte after {first_byte:.1f} s, whole after {total:.1f} s")
    print(f"slowest /api/health answer: {idle * 1000:.0f} ms idle, {busy * 1000:.0f} ms during {arguments.clips} clips")


if __name__ == "__main__":
    main()
