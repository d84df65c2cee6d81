#!/usr/bin/env python3
"""Time-range retrieval: the node uploads ~1 GB of chunks to an edge-server-compatible peer
over loopback; compared, in the same run, with a plain Python sender pushing the same files
to the same peer. Reports MB/s of both, their ratio, and the node's RSS growth while uploading; then the
same range asked of the node in its server role (a peer on the node's own port), for the
RSS growth of both roles on the same data.

Usage: bench/upload-bench.py [--node BIN] [--gigabytes 1.0]
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port  # noqa: E402
from edge_peer import EdgePeer  # noqa: E402


def make_store(store, seed_node, gigabytes):
    """Records one large chunk, then copies it (with shifted timestamps) until the store holds `gigabytes`."""
    seed = store.parent / "seed"
    environment = dict(os.environ, ALLSPARK_ENCODER_CRF="4", ALLSPARK_ENCODER_PRESET="ultrafast")
    subprocess.run(["timeout", "-s", "INT", "20", seed_node, "run", "--config", "/dev/null", "--source", "testsrc", "--size", "1920x1080", "--fps", "30",
                    "--no-pace", "--chunk-ms", "10000", "--privacy", "none", "--store", str(seed), "--port", "0"],
                   env=environment, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    chunks = json.loads(subprocess.run([seed_node, "chunks", "--store", str(seed), "--json", "--config", "/dev/null"],
                                       capture_output=True, check=True).stdout)
    template = max(chunks, key=lambda chunk: chunk["bytes"])
    data = (seed / template["file"]).read_bytes()
    offsets = [int(line) - template["startMs"] for line in (seed / template["timestampsFile"]).read_text().split()]
    store.mkdir(parents=True, exist_ok=True)
    start = 1_700_000_000_000
    total = 0
    while total < gigabytes * 1e9:
        stamp = f"{start // 1000}.{start % 1000:03d}"
        (store / f"chunk_{stamp}.mp4").write_bytes(data)
        (store / f"timestamps_{stamp}.txt").write_text("".join(f"{start + offset}\n" for offset in offsets))
        total += len(data)
        start += offsets[-1] + 34
    shutil.rmtree(seed)
    return total, len(data)


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class PeakRSS:
    """Samples a process's VmRSS every 20 ms until stopped; keeps the first sample and the peak."""

    def __init__(self, pid):
        self.pid = pid
        self.baseline = rss_kib(pid)
        self.peak = self.baseline
        self.task = asyncio.create_task(self.sample())

    async def sample(self):
        while True:
            self.peak = max(self.peak, rss_kib(self.pid))
            await asyncio.sleep(0.02)

    def stop(self):
        self.task.cancel()
        return (self.peak - self.baseline) / 1024


def start_node(node_binary, work, store, *extra):
    # A source that never delivers keeps the store still while it is uploaded.
    return subprocess.Popen([node_binary, "run", "--config", "/dev/null", "--source", str(work / "no-camera"),
                             "--store", str(store), *extra],
                            env=dict(os.environ, ALLSPARK_SERVER_ANNOUNCE="false", ALLSPARK_SERVER_HOST="127.0.0.1"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def server_role(node_binary, work, store, expected):
    """Asks the node on its own port for the whole range; returns (seconds, RSS growth in MB)."""
    port = free_port()
    node = start_node(node_binary, work, store, "--port", str(port))
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(300):
                try:
                    socket = await session.ws_connect(f"ws://127.0.0.1:{port}/", max_msg_size=0)
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            else:
                raise RuntimeError("the node's WebSocket did not open")
            async with socket:
                await socket.receive()
                rss = PeakRSS(node.pid)
                started = time.monotonic()
                await socket.send_json({"command": "uploadTimeRange", "startTime": 0.0, "endTime": 4_000_000_000.0})
                received = 0
                while received < expected:
                    message = await socket.receive()
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += len(message.data)
                    elif message.type != aiohttp.WSMsgType.TEXT:
                        raise RuntimeError(f"connection ended after {received} of {expected} bytes")
                seconds = time.monotonic() - started
                return seconds, rss.stop()
    finally:
        node.send_signal(signal.SIGTERM)
        node.wait()


async def plain_sender(port, files):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"ws://127.0.0.1:{port}/", max_msg_size=0) as socket:
            await socket.receive()
            for path in files:
                data = path.read_bytes()
                await socket.send_json({"type": "upload", "filename": path.name, "filesize": len(data), "mimetype": "video/mp4"})
                await socket.send_bytes(data)
                while (await socket.receive_json()).get("message") != "Video uploaded successfully":
                    pass


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--gigabytes", type=float, default=1.0)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="allspark-upload-bench-"))
    try:
        store = work / "store"
        total, chunk_bytes = make_store(store, arguments.node, arguments.gigabytes)
        files = sorted(store.glob("chunk_*.mp4")) + sorted(store.glob("timestamps_*.txt"))
        expected = sum(path.stat().st_size for path in files)

        port = free_port()
        peer = EdgePeer(port)
        await peer.start()
        node = start_node(arguments.node, work, store, "--port", "0", "--uplink", f"ws://127.0.0.1:{port}/")
        await peer.wait_for(lambda: peer.client_names, timeout=30, what="the node")
        rss = PeakRSS(node.pid)
        started = time.monotonic()
        await peer.command({"command": "uploadTimeRange", "message": "", "startTime": 0.0, "endTime": 4_000_000_000.0})
        while sum(len(data) for data in peer.uploads.values()) < expected:
            await asyncio.sleep(0.02)
        node_seconds = time.monotonic() - started
        uplink_growth = rss.stop()
        node.send_signal(signal.SIGTERM)
        node.wait()
        assert all(peer.uploads[path.name] == path.read_bytes() for path in files[:3]), "byte-identical"
        peer.uploads.clear()

        started = time.monotonic()
        await plain_sender(port, files)
        plain_seconds = time.monotonic() - started
        await peer.stop()
        server_seconds, server_growth = await server_role(arguments.node, work, store, expected)

        node_rate = expected / node_seconds / 1e6
        plain_rate = expected / plain_seconds / 1e6
        print(f"| {expected / 1e9:.2f} GB in {len(files)} files ({chunk_bytes / 1e6:.1f} MB chunks) | "
              f"{node_rate:.0f} MB/s | {plain_rate:.0f} MB/s | {node_rate / plain_rate:.2f} | "
              f"{uplink_growth:.1f} MB | {expected / server_seconds / 1e6:.0f} MB/s | {server_growth:.1f} MB |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    print("| data | uplink MB/s | plain sender MB/s | ratio uplink/plain | uplink RSS growth | server role MB/s | server role RSS growth |")
    print("|---|---|---|---|---|---|---|")
    asyncio.run(main())
