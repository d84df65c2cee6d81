#!/usr/bin/env python3
"""What RTSP viewers cost the node, counted on the threads that serve them: the node
records the test pattern (privacy off, so that its own work is steady) on core 0, N ffmpeg
clients pull rtsp://…/live over TCP on core 1, and the CPU time of the node's GStreamer
threads (the RTSP server's loop, each client's appsrc streaming thread, RTP sessions and
the server's thread pool) is read from /proc/PID/task over the same window as the whole
node's. The whole node's figure includes the encoder and moves by a point or two between
runs; the threads' figure isolates the RTSP side.

Usage: bench/rtsp-thread-cpu.py NODE_BINARY [--clients 3] [--seconds 45]
"""
import argparse
import os
import socket
import subprocess
import tempfile
import time

TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(stat_path):
    text = open(stat_path).read()
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rtsp_threads(pid):
    """{tid: cpu seconds} of the threads GStreamer's RTSP server runs on."""
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except FileNotFoundError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        if "src" in name or "rtp" in name or "rtsp" in name or name.startswith("pool"):
            found[tid] = cpu_seconds(f"/proc/{pid}/task/{tid}/stat")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("node")
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=45)
    options = parser.parse_args()
    rtsp_port = free_port()
    environment = dict(os.environ, ALLSPARK_SERVER_RTSP_PORT=str(rtsp_port), ALLSPARK_SERVER_AUTH="none")
    node = subprocess.Popen(
        ["taskset", "-c", "0", options.node, "run", "--config", "/dev/null", "--source", "testsrc",
         "--size", "1280x720", "--fps", "30", "--privacy", "none", "--store", tempfile.mkdtemp(prefix="rtsp-cpu-"),
         "--port", str(free_port()), "--uplink", "off", "--chunk-ms", "60000"],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    clients = []
    try:
        time.sleep(8)
        clients = [subprocess.Popen(["taskset", "-c", "1", "ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i",
                                     f"rtsp://127.0.0.1:{rtsp_port}/live", "-c", "copy", "-f", "null", "-"])
                   for _ in range(options.clients)]
        time.sleep(8)
        threads_before, node_before, start = rtsp_threads(node.pid), cpu_seconds(f"/proc/{node.pid}/stat"), time.monotonic()
        time.sleep(options.seconds)
        threads_after, node_after = rtsp_threads(node.pid), cpu_seconds(f"/proc/{node.pid}/stat")
        elapsed = time.monotonic() - start
        running = [client for client in clients if client.poll() is None]
    finally:
        for client in clients:
            client.terminate()
            client.wait()
        node.terminate()
        node.wait()
    # Threads that came or went inside the window are left out: each client's are made
    # when it connects, before the window.
    rtsp = sum(after - threads_before[tid] for tid, after in threads_after.items() if tid in threads_before)
    print(f"{options.node}: {len(running)} of {options.clients} RTSP clients playing; node "
          f"{100 * (node_after - node_before) / elapsed:.1f}% of a core, RTSP threads {100 * rtsp / elapsed:.2f}%")


if __name__ == "__main__":
    main()
