#!/usr/bin/env python3
"""Floods against a recording node (issue 49, part 5): each flood of
Tests/protocol/flood_peers.py against a fresh node recording the test pattern with a token,
while the token holder asks GET /api/status every 0.2 s on a new connection. Prints, per
flood, what the node answered, frames lost, RSS before and at peak (VmHWM reset before the
flood), the owner's slowest answer, and health after; writes bench/out/floods/result.json. The bucket flood starts radosgw
(Tests/protocol/radosgw.py) and gives its node an archive bucket.

    python3 bench/floods.py [--node BIN] [FLOOD ...]   (idle, websocket, bodies, deep, holds, bucket)
"""
import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from contextlib import closing, nullcontext
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
import node_harness  # noqa: E402
import flood_peers as floods  # noqa: E402
from radosgw import Radosgw  # noqa: E402

TOKEN = "floods-bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ARCHIVE_PREFIX = "floods/"
# Manifests of one range in the node's archive prefix, and keys beside the fleet's node
# records: the node lists no more than 5,000 of them, so 10,000 cost it what any more would.
BUCKET_KEYS = 100_000
FLEET_KEYS = 10_000


def flood_named(name, node, s3=None, bucket=None):
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
    if name == "bucket":
        return bucket_flood(node, s3, bucket)
    raise SystemExit(f"unknown flood {name}")


def bucket_flood(node, s3, bucket):
    """Fills the node's archive with BUCKET_KEYS manifests of one range, ending an hour before
    its own chunks, and the fleet's prefix with FLEET_KEYS keys, while it records; returns the
    flood: that range asked for by every route that lists the archive."""
    end_ms = (int(time.time()) - 3600) * 1000
    start_ms = end_ms - BUCKET_KEYS * 2000
    lost_before = floods.recorder_losses(node, AUTH)
    filled = {"manifests": floods.put_objects(s3, bucket, floods.flood_manifests(ARCHIVE_PREFIX, start_ms, BUCKET_KEYS)),
              "fleetKeys": floods.put_objects(s3, bucket, ((f"allspark-fleet/flood-{index:06d}.json", b"{}") for index in range(FLEET_KEYS)))}
    filled["framesLostWhileFilling"] = floods.recorder_losses(node, AUTH) - lost_before

    async def listings():
        return {"filled": filled, "answers": await floods.archive_listings(node, TOKEN, start_ms / 1000, end_ms / 1000)}
    return listings


def archive_of(service, name):
    """A new bucket and the node's options and environment for it, for the bucket flood."""
    if name != "bucket":
        return (), None, None
    bucket = f"floods-{uuid.uuid4().hex[:12]}"
    service.s3().create_bucket(Bucket=bucket)
    options = ("--archive-endpoint", service.endpoint, "--archive-bucket", bucket, "--archive-prefix", ARCHIVE_PREFIX)
    return options, {"AWS_ACCESS_KEY_ID": service.access_key, "AWS_SECRET_ACCESS_KEY": service.secret_key}, bucket


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", default=str(node_harness.NODE_BIN))
    parser.add_argument("--out", default=str(REPO / "bench/out/floods"))
    parser.add_argument("floods", nargs="*", default=["idle", "websocket", "bodies", "deep", "holds", "bucket"])
    arguments = parser.parse_args()
    node_harness.NODE_BIN = Path(arguments.node)
    results = {}
    radosgw = closing(Radosgw()) if "bucket" in arguments.floods else nullcontext()
    with tempfile.TemporaryDirectory() as scratch, radosgw as service:
        for name in arguments.floods:
            options, env, bucket = archive_of(service, name)
            node = node_harness.Node(Path(scratch) / name, "--token", TOKEN, *options, env=env, log_dir=scratch)
            try:
                node.wait_healthy(headers=AUTH)
                node.wait_for_chunks(1, headers=AUTH)
                time.sleep(2)
                run = flood_named(name, node, bucket and service.s3(connections=32), bucket)
                results[name] = asyncio.run(floods.measure(node, AUTH, run))
            finally:
                node.stop()
            print(f"== {name}\n{json.dumps(results[name], indent=1)[:6000]}", flush=True)
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
