#!/usr/bin/env python3
"""Time-range retrieval: the node uploads ~1 GB of chunks to an edge-server-compatible peer
over loopback; compared, in the same run, with a plain Python sender pushing the same files
to the same peer. Reports MB/s of both, their ratio, and the node's RSS growth while uploading.

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
        # A source that never delivers keeps the store still while it is uploaded.
        node = subprocess.Popen([arguments.node, "run", "--config", "/dev/null", "--source", str(work / "no-camera"),
                                 "--store", str(store), "--port", "0", "--uplink", f"ws://127.0.0.1:{port}/"],
                                env=dict(os.environ, ALLSPARK_SERVER_ANNOUNCE="false"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await peer.wait_for(lambda: peer.client_names, timeout=30, what="the node")
        baseline = rss_kib(node.pid)
        peak = baseline
        started = time.monotonic()
        await peer.command({"command": "uploadTimeRange", "message": "", "startTime": 0.0, "endTime": 4_000_000_000.0})
        while sum(len(data) for data in peer.uploads.values()) < expected:
            peak = max(peak, rss_kib(node.pid))
            await asyncio.sleep(0.02)
        node_seconds = time.monotonic() - started
        node.send_signal(signal.SIGTERM)
        node.wait()
        assert all(peer.uploads[path.name] == path.read_bytes() for path in files[:3]), "byte-identical"
        peer.uploads.clear()

        started = time.monotonic()
        await plain_sender(port, files)
        plain_seconds = time.monotonic() - started
        await peer.stop()

        node_rate = expected / node_seconds / 1e6
        plain_rate = expected / plain_seconds / 1e6
        print(f"| {expected / 1e9:.2f} GB in {len(files)} files ({chunk_bytes / 1e6:.1f} MB chunks) | "
              f"{node_rate:.0f} MB/s | {plain_rate:.0f} MB/s | {node_rate / plain_rate:.2f} | "
              f"{(peak - baseline) / 1024:.1f} MB |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    print("| data | node MB/s | plain sender MB/s | ratio node/plain | node RSS growth |")
    print("|---|---|---|---|---|")
    asyncio.run(main())
