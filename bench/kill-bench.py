#!/usr/bin/env python3
"""Footage lost to SIGKILL (issue 31's "kill -9 figures"): the node records the test
pattern, is killed with SIGKILL at seeded random moments, and is started again on the same
store, whose start-up recovers the part file it was writing. For each kill: the time of the
kill minus the newest frame the store lists from before it (from the timestamps files),
and whether every recovered chunk decodes to as many frames as its timestamps file lists
(ffprobe, a reader nobody here wrote).

What a kill loses is what the pipeline had not yet written (the encoder's lookahead, the
muxer's open fragment: at most 250 ms) and nothing the node had written: the page cache
survives a killed process. Power cuts are `bench/power-cut-bench.py`.

    python3 bench/kill-bench.py [--binary PATH] [--kills N] [--seed S] [--size WxH]
"""
import argparse
import json
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))

import node_harness  # noqa: E402
from node_harness import Node, timestamps_name  # noqa: E402


def frames_decoded(path):
    result = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
         "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    return int(result.stdout.strip() or 0) if result.returncode == 0 else -1


def frame_times(store):
    """Every listed chunk's frame times (epoch ms), by chunk file name."""
    times = {}
    for chunk in sorted(store.glob("chunk_*")):
        sidecar = store / timestamps_name(chunk.name)
        if sidecar.exists():
            times[chunk.name] = [int(line) for line in sidecar.read_text().split()]
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(node_harness.NODE_BIN))
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=int, default=30)
    arguments = parser.parse_args()
    node_harness.NODE_BIN = Path(arguments.binary)
    draw = random.Random(arguments.seed)
    out = REPO / "bench/out"
    out.mkdir(parents=True, exist_ok=True)
    lost_ms, undecodable, checked = [], [], 0
    with tempfile.TemporaryDirectory(dir=out) as directory:
        store = Path(directory) / "store"
        for kill in range(arguments.kills):
            node = Node(store, size=arguments.size, fps=arguments.fps, chunk_ms=6000)
            node.wait_healthy()
            time.sleep(draw.uniform(3.0, 9.0))
            killed_ms = time.time() * 1000
            node.process.send_signal(signal.SIGKILL)
            node.process.wait()
            node.log.close()
            before = set(frame_times(store))
            # Start-up recovers the part file; then stop cleanly.
            node = Node(store, size=arguments.size, fps=arguments.fps, chunk_ms=6000)
            node.wait_healthy()
            node.stop()
            times = frame_times(store)
            recovered = [name for name in times if name not in before and min(times[name]) < killed_ms]
            newest = max((t for name in times for t in times[name] if t <= killed_ms), default=None)
            lost = killed_ms - newest if newest is not None else None
            lost_ms.append(lost)
            for name in recovered:
                checked += 1
                decoded = frames_decoded(store / name)
                if decoded != len(times[name]):
                    undecodable.append((name, decoded, len(times[name])))
            print(f"kill {kill + 1}: lost {lost:.0f} ms, recovered {recovered}", flush=True)
    judged = [value for value in lost_ms if value is not None]
    result = {
        "binary": arguments.binary, "seed": arguments.seed, "size": arguments.size, "kills": arguments.kills,
        "lost_ms_median": statistics.median(judged), "lost_ms_max": max(judged),
        "recovered_chunks_checked": checked, "frame_count_mismatches": undecodable,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
