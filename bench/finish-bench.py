#!/usr/bin/env python3
"""The cost of finishing chunks in place (issue 31): ms per chunk, from the node's own log
line ("finished in X ms"), and bytes the node process wrote (/proc/PID/io write_bytes, the
bytes it dirtied for the disk) per byte of footage in the store (chunk and part files).

The node records the test pattern (--source testsrc, privacy off) into a store on the disk
under bench/out for --seconds; write_bytes is read just before it is stopped, against the
chunk and part files on disk at that moment. --binary of a build without the finish gives
the baseline (the fragmented file's own overhead: flushes after every packet re-dirty pages).

    python3 bench/finish-bench.py [--binary PATH] [--seconds S] [--size WxH] [--fps N] [--chunk-ms N]
"""
import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))

import node_harness  # noqa: E402
from node_harness import Node  # noqa: E402


def write_bytes(pid):
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/PID/io")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(node_harness.NODE_BIN))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--chunk-ms", type=int, default=6000)
    arguments = parser.parse_args()
    node_harness.NODE_BIN = Path(arguments.binary)
    out = REPO / "bench/out"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as directory:
        store = Path(directory) / "store"
        node = Node(store, size=arguments.size, fps=arguments.fps, chunk_ms=arguments.chunk_ms)
        try:
            node.wait_healthy()
            time.sleep(arguments.seconds)
            written = write_bytes(node.process.pid)
            footage = sum(path.stat().st_size for path in store.iterdir() if path.name.startswith((".chunk_", "chunk_")))
        finally:
            node.stop()
        finish_ms = [float(ms) for ms in re.findall(r"finished in ([0-9.]+) ms", node.log_path.read_text())]
    print(f"{arguments.binary}: {arguments.size} at {arguments.fps} fps, {arguments.chunk_ms} ms chunks, {arguments.seconds:.0f} s")
    print(f"write_bytes {written}, footage {footage} bytes: {written / footage:.4f} bytes written per footage byte")
    if finish_ms:
        print(f"finish in place: {len(finish_ms)} chunks, median {statistics.median(finish_ms):.2f} ms, max {max(finish_ms):.2f} ms")


if __name__ == "__main__":
    main()
