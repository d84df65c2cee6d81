#!/usr/bin/env python3
"""What signing every GOP costs (issue 32): footage bytes per second and the node process's
CPU (utime + stime, all threads, per second of wall time) with this build (signed) and with a
build that does not sign (--unsigned-binary), alternately in one run, plus frames dropped
and `allspark-node verify` over the signed store.

The node records the test pattern (privacy off) at --size and --fps into a store under
bench/out for --seconds, --rounds times per build. Only complete chunks are counted.

    python3 bench/signing-bench.py --unsigned-binary PATH [--seconds S] [--rounds N] [--size WxH] [--fps N] [--chunk-ms N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))

import node_harness  # noqa: E402
from node_harness import Node  # noqa: E402


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def record(binary, arguments, out):
    node_harness.NODE_BIN = Path(binary)
    with tempfile.TemporaryDirectory(dir=out) as directory:
        store = Path(directory) / "store"
        node = Node(store, size=arguments.size, fps=arguments.fps, chunk_ms=arguments.chunk_ms)
        try:
            node.wait_healthy()
            node.wait_for_chunks(1)
            cpu_before, wall_before = cpu_seconds(node.process.pid), time.monotonic()
            time.sleep(arguments.seconds)
            cpu = cpu_seconds(node.process.pid) - cpu_before
            wall = time.monotonic() - wall_before
            recorder = node.json("/api/status")[1]["recorder"]
        finally:
            node.stop()
        chunks = node_harness_chunks(store)
        footage = sum(path.stat().st_size for path in chunks)
        frames = sum(len((store / (path.name.replace("chunk_", "timestamps_").rsplit(".", 1)[0] + ".txt")).read_text().split())
                     for path in chunks)
        verify = subprocess.run([str(REPO / ".build/debug/allspark-node"), "verify", str(store), "--json"], capture_output=True, text=True,
                                stdin=subprocess.DEVNULL)
        reports = json.loads(verify.stdout or "[]")
    return {"cpu": cpu / wall, "bytesPerFrame": footage / max(frames, 1), "frames": frames,
            "dropped": recorder["framesDropped"], "statuses": sorted({report["status"] for report in reports}),
            "gops": sum(report["signedGOPs"] for report in reports), "validGOPs": sum(report["validGOPs"] for report in reports)}


def node_harness_chunks(store):
    return sorted(path for path in store.iterdir() if path.name.startswith("chunk_"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signed-binary", default=str(node_harness.NODE_BIN))
    parser.add_argument("--unsigned-binary", required=True)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--chunk-ms", type=int, default=6000)
    arguments = parser.parse_args()
    out = REPO / "bench/out"
    out.mkdir(parents=True, exist_ok=True)
    results = {"signed": [], "unsigned": []}
    for _ in range(arguments.rounds):
        for name, binary in (("unsigned", arguments.unsigned_binary), ("signed", arguments.signed_binary)):
            results[name].append(record(binary, arguments, out))
            print(name, results[name][-1], flush=True)
    print(f"{arguments.size} at {arguments.fps} fps, {arguments.chunk_ms} ms chunks, {arguments.rounds} x {arguments.seconds:.0f} s per build")
    for name, runs in results.items():
        cpu = sum(run["cpu"] for run in runs) / len(runs)
        frames = sum(run["frames"] for run in runs)
        bytes_per_frame = sum(run["bytesPerFrame"] * run["frames"] for run in runs) / max(frames, 1)
        print(f"{name}: CPU {cpu * 100:.1f}% of a core, {bytes_per_frame:.0f} bytes per frame ({frames} frames), "
              f"dropped {sum(run['dropped'] for run in runs)}, verify {sorted({s for run in runs for s in run['statuses']})}, "
              f"GOPs {sum(run['validGOPs'] for run in runs)} valid of {sum(run['gops'] for run in runs)}")


if __name__ == "__main__":
    main()
