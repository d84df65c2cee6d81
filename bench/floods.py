#!/usr/bin/env python3
"""Floods against a recording node (issue 49, part 5): each flood of
Tests/protocol/flood_peers.py against a fresh node recording the test pattern with a token,
while the token holder asks GET /api/status every 0.2 s on a new connection. Prints, per
flood, what the node answered, frames lost, RSS before and at peak (VmHWM reset before the
flood), the owner's slowest answer, and health after; writes bench/out/floods/result.json.

    python3 bench/floods.py [--node BIN] [FLOOD ...]   (idle, websocket, bodies, deep, holds)
"""
import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
import node_harness  # noqa: E402
import flood_peers as floods  # noqa: E402

TOKEN = "floods-bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def flood_named(name, node):
    port = node.port
    if name == "idle":
        return lambda: floods.idle_connections(port, count=1000, hold_s=30)
    if name == "websocket":
        return lambda: floods.websocket_flood(node, TOKEN, peers=200, seconds=15)
    if name == "bodies":
        async def bodies():
            answers = []
            for path, method in [("/api/holds", "POST"), ("/api/config", "PUT"), ("/api/fleet/exports", "POST"), ("/api/status", "GET")]:
                answers.append(await floods.big_body(port, path, method, token=TOKEN))
            answers.append(await floods.big_body(port, "/api/holds", token=TOKEN, chunked=True))
            answers.append(await floods.big_body(port, "/api/holds"))
            return answers
        return bodies
    if name == "deep":
        return lambda: floods.deep_json_requests(node, TOKEN)
    if name == "holds":
        def holds():
            chunk = node.wait_for_chunks(1, headers=AUTH)[0]
            return floods.many_holds(node, TOKEN, chunk["startMs"] / 1000, chunk["endMs"] / 1000)
        return holds
    raise SystemExit(f"unknown flood {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", default=str(node_harness.NODE_BIN))
    parser.add_argument("--out", default=str(REPO / "bench/out/floods"))
    parser.add_argument("floods", nargs="*", default=["idle", "websocket", "bodies", "deep", "holds"])
    arguments = parser.parse_args()
    node_harness.NODE_BIN = Path(arguments.node)
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in arguments.floods:
            node = node_harness.Node(Path(scratch) / name, "--token", TOKEN, log_dir=scratch)
            try:
                node.wait_healthy(headers=AUTH)
                node.wait_for_chunks(1, headers=AUTH)
                time.sleep(2)
                run = flood_named(name, node)
                results[name] = asyncio.run(floods.measure(node, AUTH, run))
            finally:
                node.stop()
            print(f"== {name}\n{json.dumps(results[name], indent=1)[:6000]}", flush=True)
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
