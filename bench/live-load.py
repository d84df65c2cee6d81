#!/usr/bin/env python3
"""Viewers against the recorder: the node records the test pattern with privacy on, first
with no viewer, then with 10 viewers of mixed kinds plus one stalled viewer, for the same
time each. Reports recorded frames dropped, node CPU (user + system, % of one core) and
RSS for both phases, what the viewers received, and the node's live counters.

Viewers: 4 dashboard streams (/live/stream.mp4 read as it comes), 3 RTSP (ffmpeg over
TCP, copying to null), 3 HLS (ffmpeg's HLS demuxer, copying to null); the stalled viewer
asks for /live/stream.mp4 and never reads.

With --node-cpu N --viewer-cpu M the node runs on core N only and the viewers (and this
script) on core M, so that on a 2-core machine the viewers cannot take the node's CPU and
the node's CPU with and without them compares its own work.

Usage: bench/live-load.py [--node BIN] [--size 1280x720] [--fps 30] [--privacy face] [--seconds 600]
                          [--node-cpu N --viewer-cpu M]
"""
import os
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from live_node import LiveNode, bench_arguments


def measure(node, seconds):
    """CPU % of one core, peak RSS (MiB) and frames dropped/encoded over `seconds`."""
    start_status, start_cpu, start = node.status(), node.cpu_seconds(), time.monotonic()
    peak_rss = 0.0
    while time.monotonic() - start < seconds:
        peak_rss = max(peak_rss, node.rss_mib())
        time.sleep(1)
    end_status = node.status()
    cpu = 100 * (node.cpu_seconds() - start_cpu) / (time.monotonic() - start)
    recorder = lambda key: end_status["recorder"][key] - start_status["recorder"][key]  # noqa: E731
    return {"cpu": cpu, "rss": peak_rss, "dropped": recorder("framesDropped"), "encoded": recorder("framesEncoded"),
            "rss_end": node.rss_mib()}


class StreamReader(threading.Thread):
    """A dashboard viewer without the browser: reads /live/stream.mp4 as it arrives."""

    def __init__(self, node):
        super().__init__(daemon=True)
        self.node, self.bytes, self.running = node, 0, True

    def run(self):
        connection = socket.create_connection(("127.0.0.1", self.node.port))
        connection.sendall(b"GET /live/stream.mp4 HTTP/1.1\r\nHost: bench\r\n\r\n")
        while self.running:
            piece = connection.recv(1 << 16)
            if not piece:
                break
            self.bytes += len(piece)
        connection.close()


def main():
    parser = bench_arguments(__doc__, seconds=600)
    parser.add_argument("--node-cpu", type=int)
    parser.add_argument("--viewer-cpu", type=int)
    options = parser.parse_args()
    if options.node_cpu is not None:
        # Children and threads inherit the affinity of the thread that makes them.
        os.sched_setaffinity(0, {options.node_cpu})
    node = LiveNode(options.node, Path(tempfile.mkdtemp(prefix="live-load-")), options.size, options.fps,
                    options.privacy, chunk_ms=60_000)
    if options.viewer_cpu is not None:
        os.sched_setaffinity(0, {options.viewer_cpu})
    try:
        quiet = measure(node, options.seconds)
        readers = [StreamReader(node) for _ in range(4)]
        for reader in readers:
            reader.start()
        players = [subprocess.Popen(["ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", node.rtsp_url(),
                                     "-c", "copy", "-f", "null", "-"]) for _ in range(3)]
        players += [subprocess.Popen(["ffmpeg", "-v", "error", "-live_start_index", "-1", "-i",
                                      node.url("/live/index.m3u8"), "-c", "copy", "-f", "null", "-"]) for _ in range(3)]
        stalled = socket.create_connection(("127.0.0.1", node.port))
        stalled.sendall(b"GET /live/stream.mp4 HTTP/1.1\r\nHost: bench\r\n\r\n")
        time.sleep(5)
        watched = measure(node, options.seconds)
        live = node.status()["live"]
        for reader in readers:
            reader.running = False
        for player in players:
            player.terminate()
            player.wait()
        stalled.close()
    finally:
        node.stop()
    pinning = f", node on core {options.node_cpu}, viewers on core {options.viewer_cpu}" if options.node_cpu is not None else ""
    print(f"{options.size} at {options.fps} fps, privacy {options.privacy}, {options.seconds} s per phase{pinning}")
    print("| phase | frames encoded | recorded frames dropped | node CPU (% of a core) | node peak RSS (MiB) |")
    print("|---|---|---|---|---|")
    for name, phase in (("no viewers", quiet), ("10 viewers + 1 stalled", watched)):
        print(f"| {name} | {phase['encoded']} | {phase['dropped']} | {phase['cpu']:.1f} | {phase['rss']:.0f} |")
    print(f"CPU with viewers / without: {watched['cpu'] / quiet['cpu']:.3f}")
    print(f"dashboard readers received {[round(reader.bytes / 2**20, 1) for reader in readers]} MiB")
    print(f"live counters: {live}")


if __name__ == "__main__":
    main()
