#!/usr/bin/env python3
"""Soak: a node left running against its storage cap, with peers asking for footage and a
dashboard polling it, watched for what would end a months-long run: growing memory, open
files or threads, dropped frames, a store over its cap.

The node records the test pattern with privacy on, in 1 s chunks under a 3 MiB cap (a
chunk is evicted about every second). Every 5 s a WebSocket peer connects, asks for the
last 4 s and reads the upload pairs; every second a poller reads /api/status and
/api/snapshot.jpg as the dashboard does; every 30 s a clip of 3 s is cut. Every 10 s: VmRSS, open file descriptors,
threads, store bytes on disk. Prints a table of samples and a summary with the growth
from the end of the first minute to the end.

Usage: bench/soak.py [--node BIN] [--minutes 15] [--size 640x360] [--fps 30]
"""
import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port, wait_for_answer  # noqa: E402
from wsclient import Peer  # noqa: E402

CAP_MIB = 3


def process_facts(pid):
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    values = {line.split(":")[0]: line.split()[1] for line in status if line.startswith(("VmRSS", "Threads"))}
    return int(values["VmRSS"]) / 1024, len(os.listdir(f"/proc/{pid}/fd")), int(values["Threads"])


def store_bytes(store):
    return sum(entry.stat().st_size for entry in os.scandir(store) if entry.is_file())


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


async def every(seconds, name, counts, action):
    """Runs `action` every `seconds`; a failure is counted under "<name> errors", not fatal."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await action()
        except Exception as error:  # noqa: BLE001 - a soak counts failures instead of stopping
            counts[f"{name} errors"] += 1
            print(f"{name} failed: {error!r}", file=sys.stderr)


async def ask_for_footage(port, counts):
    """A peer: the last 4 s of footage, read to the final status."""
    peer = await Peer.connect(f"ws://127.0.0.1:{port}/")
    await peer.receive()
    now = time.time()
    await peer.send({"command": "uploadTimeRange", "startTime": now - 4, "endTime": now})
    files, status = await peer.receive_uploads(timeout=30)
    await peer.close()
    counts["uploads"] += 1
    counts["files"] += len(files)
    counts["skipped"] += len(status.get("skipped", []))


async def poll_like_the_dashboard(port, counts):
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, get, f"http://127.0.0.1:{port}/api/status")
    await loop.run_in_executor(None, get, f"http://127.0.0.1:{port}/api/snapshot.jpg")
    counts["polls"] += 1


async def cut_clip(port, counts):
    """A clip of 3 s, as the dashboard's range picker asks for one."""
    now = time.time()
    clip = await asyncio.get_running_loop().run_in_executor(
        None, get, f"http://127.0.0.1:{port}/api/clip?start={now - 4}&end={now - 1}")
    counts["clips"] += 1 if clip else 0


async def soak(arguments, node, port, store):
    counts = dict.fromkeys(["uploads", "files", "skipped", "upload errors", "polls", "poll errors", "clips", "clip errors"], 0)
    workers = [asyncio.create_task(every(5, "upload", counts, lambda: ask_for_footage(port, counts))),
               asyncio.create_task(every(1, "poll", counts, lambda: poll_like_the_dashboard(port, counts))),
               asyncio.create_task(every(30, "clip", counts, lambda: cut_clip(port, counts)))]
    samples = []
    started = time.monotonic()
    print("| minute | RSS (MB) | open fds | threads | store on disk (KiB) | chunks evicted | frames dropped | uploads |")
    print("|---|---|---|---|---|---|---|---|")
    while time.monotonic() - started < arguments.minutes * 60:
        await asyncio.sleep(10)
        rss, fds, threads = process_facts(node.pid)
        status = json.loads(get(f"http://127.0.0.1:{port}/api/status"))
        sample = {"minute": (time.monotonic() - started) / 60, "rss": rss, "fds": fds, "threads": threads,
                  "disk": store_bytes(store), "evicted": status["store"]["chunksEvicted"],
                  "dropped": status["recorder"]["framesDropped"], "uploads": counts["uploads"]}
        samples.append(sample)
        print(f"| {sample['minute']:.1f} | {rss:.1f} | {fds} | {threads} | {sample['disk'] / 1024:.0f} | "
              f"{sample['evicted']} | {sample['dropped']} | {sample['uploads']} |", flush=True)
    for worker in workers:
        worker.cancel()
    return samples, counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--minutes", type=float, default=15)
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--fps", default="30")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="allspark-soak-") as work:
        store = Path(work) / "store"
        port = free_port()
        node = subprocess.Popen(
            [arguments.node, "run", "--config", "/dev/null", "--source", "testsrc", "--size", arguments.size,
             "--fps", arguments.fps, "--chunk-ms", "1000", "--cap-mb", str(CAP_MIB), "--privacy", "face",
             "--store", str(store), "--port", str(port)],
            env=dict(os.environ, ALLSPARK_SERVER_HOST="127.0.0.1", ALLSPARK_SERVER_ANNOUNCE="false"),
            stdout=subprocess.DEVNULL, stderr=open(Path(work) / "node.log", "w"), cwd=REPO)
        try:
            wait_for_answer(f"http://127.0.0.1:{port}/api/health")
            samples, counts = asyncio.run(soak(arguments, node, port, store))
        finally:
            node.send_signal(signal.SIGTERM)
            node.wait(timeout=30)
    warm = next(sample for sample in samples if sample["minute"] >= 1)
    last = samples[-1]
    print()
    print(f"After {last['minute']:.1f} min: RSS {warm['rss']:.1f} -> {last['rss']:.1f} MB (max {max(s['rss'] for s in samples):.1f}), "
          f"open fds {warm['fds']} -> {last['fds']}, threads {warm['threads']} -> {last['threads']}; "
          f"store on disk at most {max(s['disk'] for s in samples) / 1024:.0f} KiB of the {CAP_MIB * 1024} KiB cap; "
          f"{last['evicted']} chunks evicted, {last['dropped']} frames dropped; "
          f"{counts['uploads']} uploads ({counts['files']} files, {counts['skipped']} skipped, {counts['upload errors']} failed), "
          f"{counts['polls']} polls ({counts['poll errors']} failed), "
          f"{counts['clips']} clips ({counts['clip errors']} failed)")


if __name__ == "__main__":
    main()
