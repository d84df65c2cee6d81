#!/usr/bin/env python3
"""Issue 39's fleet goal: a `fleet fetch` of a held range, after an hour of churn, is whole.

Three nodes record the test pattern (160x120, 10 fps, 2 s chunks) and archive to one bucket
of a real radosgw (Tests/protocol/radosgw.py), each with a 3 MB ring (about 3 minutes) and
`archive.maxAgeDays` 0.003 (4.3 minutes), so both tiers turn over many times in the hour:
  cap-401   evicts by the cap;
  age-402   also has `videoBufferMaxAgeHours` 0.025 (90 s), so age takes its chunks first;
  down-403  is stopped once the range is archived, and started again 10 minutes later, so
            its own archive-age pass must honour the bucket's holds record `fleet hold` wrote.
The range is 60 s recorded by all three. Once each node has archived it, 403 stops and
`fleet hold` puts one hold on all three (held, held, heldInBucket). Then CHURN_MINUTES
(default 60) pass, sampled every minute, and `fleet fetch` of the range must give every
chunk the bucket's manifests listed for it at hold time, byte for byte (SHA-256), with a
valid signature, and cover the range with no hole. Prints and writes bench/out/hold-churn.json.

Usage: bench/hold-churn.py   (ALLSPARK_NODE_BIN picks the binary, default
       .build/debug/allspark-node; CHURN_MINUTES)
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("ALLSPARK_NODE_BIN", str(REPO / ".build/debug/allspark-node"))
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import NODE_BIN, Node  # noqa: E402
from radosgw import Radosgw  # noqa: E402

CHURN_MINUTES = float(os.environ.get("CHURN_MINUTES", "60"))
TOKEN = "hold-churn-token"
RANGE_S = 60
CAP_MB = "3"
ARCHIVE_MAX_AGE_DAYS = 0.003
RING_MAX_AGE_HOURS = "0.025"
# Ten minutes down in the hour; a third of a shorter trial run.
DOWN_FOR_S = min(600, CHURN_MINUTES * 20)
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


def log(record):
    print(json.dumps(record), flush=True)


class Fleet:
    def __init__(self, work, gateway, bucket):
        self.work, self.gateway, self.bucket = work, gateway, bucket
        self.s3 = gateway.s3()
        self.credentials = {"AWS_ACCESS_KEY_ID": gateway.access_key, "AWS_SECRET_ACCESS_KEY": gateway.secret_key}

    def start(self, name, env=None):
        return Node(self.work / name, "--token", TOKEN, "--cap-mb", CAP_MB, "--archive-endpoint", self.gateway.endpoint,
                    "--archive-bucket", self.bucket, "--archive-prefix", f"{name}/", size="160x120", fps=10,
                    chunk_ms=2000, env={**self.credentials, "ALLSPARK_UPLINK_NAME": name,
                                        "ALLSPARK_ARCHIVE_MAX_AGE_DAYS": str(ARCHIVE_MAX_AGE_DAYS), **(env or {})},
                    log_dir=self.work)

    def command(self, *arguments, timeout=300):
        return subprocess.run(
            [str(NODE_BIN), "fleet", *arguments, "--config", "/dev/null", "--archive-endpoint", self.gateway.endpoint,
             "--archive-bucket", self.bucket, "--token", TOKEN], capture_output=True, text=True,
            env={**os.environ, **self.credentials}, cwd=REPO, timeout=timeout)

    def manifests(self, name):
        found = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=f"{name}/manifests/"):
            for item in page.get("Contents", []):
                try:
                    found.append(json.loads(self.s3.get_object(Bucket=self.bucket, Key=item["Key"])["Body"].read()))
                except self.s3.exceptions.NoSuchKey:
                    pass   # deleted for age between the listing and the read
        return found

    def in_range(self, name, start_ms, end_ms):
        return {m["chunkFile"]: m for m in self.manifests(name) if m["firstFrameMs"] < end_ms and m["lastFrameMs"] >= start_ms}


def status(node):
    return node.json("/api/status", headers=HEADERS)[1]


def wait_archived_past(fleet, node, name, end_ms):
    node.wait_until(lambda: any(m["firstFrameMs"] >= end_ms for m in fleet.manifests(name)), timeout=180,
                    what=f"{name} archiving past the range")


def sample(fleet, nodes, held_files, started, stale_after_ms):
    record = {"minute": round((time.time() - started) / 60, 1)}
    for name, node in nodes.items():
        if node is None or node.process.poll() is not None:
            record[name] = "down"
            continue
        store, archive = status(node)["store"], status(node)["archive"]
        ring = {chunk["file"] for chunk in node.chunks(headers=HEADERS)}
        # Unheld bucket copies older than the archive's age limit plus its 10 s pass and a
        # minute's grace: the age limit is not being kept.
        cutoff = time.time() * 1000 - ARCHIVE_MAX_AGE_DAYS * 86_400_000 - stale_after_ms
        stale = [m["chunkFile"] for m in fleet.manifests(name) if m["lastFrameMs"] < cutoff and m["chunkFile"] not in held_files[name]]
        record[name] = {"evictedByCap": store["chunksEvictedByCap"], "evictedByAge": store["chunksEvictedByAge"],
                        "turnovers": round((store["bytesEvictedByCap"] + store["bytesEvictedByAge"]) / store["capBytes"], 1),
                        "peakOverCap": round(store["peakBytes"] / store["capBytes"], 3), "heldChunks": store["heldChunks"],
                        "heldInRing": len(held_files[name] & ring), "archiveDeletedByAge": archive["deletedByAge"]["chunksDeleted"],
                        "staleInBucket": len(stale)}
    return record


def check_fetch(fleet, out, expected, start_ms, end_ms):
    """Every chunk listed at hold time is in the fetch, byte for byte, signed validly, and
    the fetched chunks cover the range."""
    manifest = json.loads((out / "manifest.json").read_text())
    reports = {node["name"]: node for node in manifest["nodes"]}
    result = {"complete": manifest["complete"], "problems": manifest.get("problems", [])}
    for name, files in expected.items():
        report = reports.get(name)
        if report is None:
            result[name] = {"missing": sorted(files)}
            continue
        fetched = {chunk["file"]: chunk for chunk in report["chunks"]}
        missing = sorted(file for file in files if file not in fetched)
        differing = sorted(file for file, sha in files.items() if file in fetched
                           and hashlib.sha256((out / report["folder"] / file).read_bytes()).hexdigest() != sha)
        unsigned = sorted(file for file, chunk in fetched.items() if chunk["signature"]["status"] != "valid")
        holes, cursor = [], start_ms
        for first, last in sorted((chunk["startMs"], chunk["endMs"]) for chunk in report["chunks"]):
            if first - cursor > 1000:
                holes.append([cursor, first])
            cursor = max(cursor, last)
        if end_ms - cursor > 1000:
            holes.append([cursor, end_ms])
        result[name] = {"expected": len(files), "fetched": len(fetched), "missing": missing, "differing": differing,
                        "notValid": unsigned, "holes": holes, "sources": sorted({c["source"] for c in fetched.values()}),
                        "gaps": [gap["reason"] for gap in report["gaps"]]}
    return result


def main():
    work = Path(tempfile.mkdtemp(prefix="hold-churn-"))
    gateway = Radosgw()
    nodes = {}
    try:
        bucket = f"churn-{uuid.uuid4().hex[:8]}"
        gateway.s3().create_bucket(Bucket=bucket)
        fleet = Fleet(work, gateway, bucket)
        nodes = {"cap-401": fleet.start("cap-401"),
                 "age-402": fleet.start("age-402", env={"ALLSPARK_VIDEO_BUFFER_MAX_AGE_HOURS": RING_MAX_AGE_HOURS}),
                 "down-403": fleet.start("down-403")}
        for node in nodes.values():
            node.wait_healthy(headers=HEADERS)
        start_ms = int(time.time() * 1000) + 3000
        end_ms = start_ms + RANGE_S * 1000
        time.sleep((end_ms - time.time() * 1000) / 1000 + 1)
        for name, node in nodes.items():
            wait_archived_past(fleet, node, name, end_ms)
        nodes["down-403"].stop()
        expected = {name: {file: m["chunkSHA256"] for file, m in fleet.in_range(name, start_ms, end_ms).items()} for name in nodes}
        held = fleet.command("hold", str(start_ms / 1000), str(end_ms / 1000), "--reason", "hold-churn bench", "--json", "--no-mdns")
        hold = json.loads(held.stdout) if held.returncode == 0 else {"error": held.stderr}
        log({"part": "hold", "node": str(NODE_BIN), "rangeMs": [start_ms, end_ms], "exit": held.returncode,
             "outcomes": {n["name"]: [n["outcome"], n.get("bytes")] for n in hold.get("nodes", [])},
             "expected": {name: len(files) for name, files in expected.items()}})
        if held.returncode != 0:
            sys.exit(held.stderr)
        held_files = {name: set(files) for name, files in expected.items()}
        started = time.time()
        samples = []
        restarted = False
        while time.time() - started < CHURN_MINUTES * 60:
            time.sleep(60)
            if not restarted and time.time() - started >= DOWN_FOR_S:
                nodes["down-403"] = fleet.start("down-403")
                nodes["down-403"].wait_healthy(headers=HEADERS)
                restarted = True
            samples.append(sample(fleet, nodes, held_files, started, stale_after_ms=70_000))
            log(samples[-1])
        out = work / "fetch"
        fetched = fleet.command("fetch", "--from", str(start_ms / 1000), "--to", str(end_ms / 1000), "--out", str(out), "--no-mdns")
        checked = check_fetch(fleet, out, expected, start_ms, end_ms)
        last = samples[-1] if samples else {}
        summary = {"part": "result", "churnMinutes": CHURN_MINUTES, "fetchExit": fetched.returncode, **checked,
                   "heldInRingAtEnd": {name: last[name]["heldInRing"] for name in nodes if isinstance(last.get(name), dict)},
                   "maxStaleInBucket": max((s[name]["staleInBucket"] for s in samples for name in nodes
                                            if isinstance(s.get(name), dict)), default=0),
                   "maxPeakOverCap": max((s[name]["peakOverCap"] for s in samples for name in nodes
                                          if isinstance(s.get(name), dict)), default=0),
                   "ringTurnovers": {name: last[name]["turnovers"] for name in nodes if isinstance(last.get(name), dict)}, "fetchStdoutTail": fetched.stdout.splitlines()[-4:]}
        log(summary)
        (REPO / "bench/out").mkdir(parents=True, exist_ok=True)
        (REPO / "bench/out/hold-churn.json").write_text(json.dumps({"samples": samples, "result": summary}, indent=2))
    finally:
        for node in nodes.values():
            if node is not None:
                node.stop()
        gateway.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
