#!/usr/bin/env python3
"""Clock and freshness figures for bench/README.md.

offset     The node measures an edge-server-compatible peer (Tests/protocol/edge_peer.py)
           whose clock runs SHIFT s (default 3.2) ahead, over loopback and over a link that
           delays each direction by 20 ms ± 10 ms (Tests/protocol/delay_proxy.py; these
           machines cannot load tc netem). The uplink measures every second
           (uplink.clockSyncIntervalMs 1000) for BURSTS bursts (default 30); for each burst:
           |offset - SHIFT| and the stated uncertainty. Peer in the same run, through the same
           link: a client that takes one GET /api/health per burst and trusts it (offset =
           server time - midpoint), as a single-request clock check does.
freshness  30 s chunks; at 10 moments spread over a chunk, a WebSocket peer asks for the
           last 5 s: time from the request to the final status (the last byte), and whether
           the chunk being recorded was ended early. Peer: the node before this change,
           whose answer could only come once the chunk ended by itself (its remaining
           length, from the same moments).

Usage: bench/clock-bench.py [offset] [freshness]   (ALLSPARK_NODE_BIN picks the binary)
Prints JSON lines.
"""
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests/protocol"))
from delay_proxy import DelayProxy  # noqa: E402
from edge_peer import EdgePeer  # noqa: E402
from node_harness import Node, free_port  # noqa: E402
from wsclient import Peer  # noqa: E402

SHIFT = float(os.environ.get("SHIFT", "3.2"))
BURSTS = int(os.environ.get("BURSTS", "30"))


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def one_request_offset(port):
    sent = time.time()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5) as response:
        server = json.load(response)["timestamp"]
    received = time.time()
    return (server - (sent + received) / 2) * 1000


async def offset_run(jitter, work):
    edge_port = free_port()
    peer = EdgePeer(edge_port, clock_shift=SHIFT)
    await peer.start()
    proxy = None
    port = edge_port
    if jitter:
        port = free_port()
        proxy = DelayProxy(port, edge_port, delay_ms=20, jitter_ms=10, seed=7)
        await proxy.start()
    node = Node(work / f"store-{'jitter' if jitter else 'loopback'}", "--uplink", f"ws://127.0.0.1:{port}/",
                env={"ALLSPARK_UPLINK_CLOCK_SYNC_INTERVAL_MS": "1000"})
    errors, uncertainties, naive = [], [], []
    last = None
    try:
        await asyncio.to_thread(node.wait_healthy)
        deadline = time.time() + BURSTS * 3 + 60
        while len(errors) < BURSTS and time.time() < deadline:
            clock = (await asyncio.to_thread(node.json, "/api/status"))[1]["uplink"]["edgeClock"]
            if clock and clock["bursts"] != last:
                last = clock["bursts"]
                errors.append(abs(clock["offsetMs"] - SHIFT * 1000))
                uncertainties.append(clock["uncertaintyMs"])
                naive.append(abs(await asyncio.to_thread(one_request_offset, port) - SHIFT * 1000))
            await asyncio.sleep(0.2)
    finally:
        node.stop()
        if proxy:
            await proxy.stop()
        await peer.stop()
    return {
        "part": "offset", "link": "20 ms ± 10 ms each way" if jitter else "loopback", "bursts": len(errors),
        "node_error_median_ms": round(statistics.median(errors), 3), "node_error_p95_ms": round(percentile(errors, 0.95), 3),
        "node_uncertainty_median_ms": round(statistics.median(uncertainties), 3),
        "within_uncertainty": sum(e <= u for e, u in zip(errors, uncertainties)),
        "one_request_error_median_ms": round(statistics.median(naive), 3),
        "one_request_error_p95_ms": round(percentile(naive, 0.95), 3),
        "p95_ratio_node_to_one_request": round(percentile(errors, 0.95) / max(1e-9, percentile(naive, 0.95)), 3),
    }


async def freshness_run(work):
    node = Node(work / "store-fresh", chunk_ms=30000)
    delays, cuts, remaining = [], 0, []
    try:
        await asyncio.to_thread(node.wait_healthy)
        await asyncio.sleep(6)
        for index in range(10):
            # Spread the asks over a chunk's 30 s: 6 s + 3.1 s steps.
            await asyncio.sleep(3.1 if index else 0)
            peer = await Peer.connect(node.ws_url("/"))
            await peer.receive()
            asked = time.time()
            await peer.send({"command": "uploadTimeRange", "message": "", "startTime": asked - 5, "endTime": asked})
            files, status = await peer.receive_uploads(timeout=30)
            delays.append(time.time() - asked)
            await peer.close()
            if status.get("cutEarly"):
                cuts += 1
                chunk = next(c for c in node.chunks() if c["file"] == status["cutEarly"][0])
                remaining.append(max(0.0, 30 - (chunk["endMs"] - chunk["startMs"]) / 1000))
    finally:
        node.stop()
    return {
        "part": "freshness", "asks": len(delays), "chunks_ended_early": cuts,
        "request_to_last_byte_median_s": round(statistics.median(delays), 3),
        "request_to_last_byte_max_s": round(max(delays), 3),
        "waiting_for_the_chunk_to_end_median_s": round(statistics.median(remaining), 1) if remaining else None,
    }


def main():
    parts = sys.argv[1:] or ["offset", "freshness"]
    with tempfile.TemporaryDirectory(prefix="allspark-clock-bench-") as directory:
        work = Path(directory)
        if "offset" in parts:
            for jitter in (False, True):
                print(json.dumps(asyncio.run(offset_run(jitter, work))), flush=True)
        if "freshness" in parts:
            print(json.dumps(asyncio.run(freshness_run(work))), flush=True)


if __name__ == "__main__":
    main()
