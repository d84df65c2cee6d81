#!/usr/bin/env python3
"""What RTSP viewers cost the node, counted on the threads that serve them: the node
records the test pattern (privacy off by default, so that its own work is steady) on core
0, N ffmpeg clients pull rtsp://…/live over TCP on core 1, and the CPU time of the node's
GStreamer threads (the RTSP server's loop, each client's appsrc streaming thread, RTP
sessions and the server's thread pool) is read from /proc/PID/task over the same window as
the whole node's. The whole node's figure includes the encoder and moves by a point or two
between runs; the threads' figure isolates the RTSP side.

Usage: bench/rtsp-thread-cpu.py [--node BIN] [--clients 3] [--seconds 45]
"""
import os
import subprocess
import tempfile
import time
from pathlib import Path

from live_node import LiveNode, bench_arguments


def rtsp_thread_seconds(pid):
    """{tid: CPU seconds} of the threads GStreamer's RTSP server runs on."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:
            continue
        name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        if "src" in name or "rtp" in name or "rtsp" in name or name.startswith("pool"):
            found[task.name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def main():
    parser = bench_arguments(__doc__, seconds=45)
    parser.set_defaults(privacy="none")
    parser.add_argument("--clients", type=int, default=3)
    options = parser.parse_args()
    # Children inherit the affinity of the thread that starts them: the node gets core 0,
    # the clients core 1.
    os.sched_setaffinity(0, {0})
    node = LiveNode(options.node, tempfile.mkdtemp(prefix="rtsp-cpu-"), options.size, options.fps, options.privacy,
                    chunk_ms=60_000)
    os.sched_setaffinity(0, {1})
    clients = []
    try:
        clients = [subprocess.Popen(["ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", node.rtsp_url(),
                                     "-c", "copy", "-f", "null", "-"]) for _ in range(options.clients)]
        time.sleep(8)
        threads_before, node_before, start = rtsp_thread_seconds(node.process.pid), node.cpu_seconds(), time.monotonic()
        time.sleep(options.seconds)
        threads_after, node_after = rtsp_thread_seconds(node.process.pid), node.cpu_seconds()
        elapsed = time.monotonic() - start
        playing = sum(client.poll() is None for client in clients)
    finally:
        for client in clients:
            client.terminate()
            client.wait()
        node.stop()
    # Threads that came or went inside the window are left out: each client's are made
    # when it connects, before the window.
    rtsp = sum(after - threads_before[tid] for tid, after in threads_after.items() if tid in threads_before)
    print(f"{options.node}: {playing} of {options.clients} RTSP clients playing; node "
          f"{100 * (node_after - node_before) / elapsed:.1f}% of a core, RTSP threads {100 * rtsp / elapsed:.2f}%")


if __name__ == "__main__":
    main()
