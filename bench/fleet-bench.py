#!/usr/bin/env python3
"""Fleet fetch figures for bench/README.md: one 2-minute range from 12 nodes on this
machine, 3 of them stopped, against a sequential shell loop of curl over the same nodes and
against reading the same bytes from one node; the fetcher's memory as the node count grows.

Twelve nodes record the test pattern at 160x90, 5 fps, 5 s chunks, all archiving to one
bucket of a real radosgw (Tests/protocol/radosgw.py) under their own prefixes, with one
API token; the first four are announced on mDNS (a loopback-only avahi-daemon,
scripts/start-avahi.sh), the others are found through their bucket records only. Once
every node has recorded the range (2 minutes) and 5 s more, three are stopped (SIGTERM:
they archive what waits, then write their last record) and the fetches run:

fleet     `allspark-node fleet fetch --from --to --out DIR --token T` (8 nodes at a time),
          into a fresh folder; wall time of the whole command (mDNS listens 3 s of it),
          and again with --no-mdns. Checked: every chunk the bucket's manifests or a live
          node's /api/chunks list in the range is in the output, byte-identical (SHA-256 of
          the manifest, or the node's own file), no part file left, and every stretch of
          the range is a fetched chunk or a named gap.
curl      a bash loop, one node after another: curl the node's /api/chunks listing, jq the
          names, curl each file. Only the 9 live nodes: plain curl cannot read the bucket
          (SigV4), so the loop fetches fewer bytes than the fleet command.
one node  the same bash loop over one live node's listing, repeated until it has read as
          many bytes as the fleet command wrote.
memory    fleet fetch of 3, 6 and 12 nodes (the first N by name), VmRSS sampled every 20 ms.
ROUNDS (default 3) rounds of fleet / curl / one node; medians.

Usage: bench/fleet-bench.py   (ALLSPARK_NODE_BIN picks the binary, default
       .build-release/release/allspark-node; ROUNDS)
"""
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("ALLSPARK_NODE_BIN", str(REPO / ".build-release/release/allspark-node"))
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import NODE_BIN, Node  # noqa: E402
from radosgw import Radosgw  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
TOKEN = "fleet-bench-token"
RANGE_S = 120
NODES = 12
STOPPED = 3
ANNOUNCED = 4

CURL_LOOP = r"""
set -euo pipefail
out=$1; start=$2; end=$3; shift 3
for url in "$@"; do
  dir="$out/$(echo "$url" | tr -c 'a-z0-9\n' _)"; mkdir -p "$dir"
  curl -sf -H "Authorization: Bearer $TOKEN" "$url/api/chunks?start=$start&end=$end" \
    | jq -r '.chunks[] | select(.source != "archive") | .file, .timestampsFile' \
    | while read -r file; do curl -sf -H "Authorization: Bearer $TOKEN" -o "$dir/$file" "$url/api/chunks/$file"; done
done
"""


def log(record):
    print(json.dumps(record), flush=True)


def run_timed(arguments, env=None, sample_rss=False):
    """Wall seconds, exit code, output, peak RSS (MiB, when sampled) and CPU seconds (user +
    system of the command and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0.0
    if sample_rss:
        while process.poll() is None:
            try:
                for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
            except OSError:
                pass
            time.sleep(0.02)
    stdout, stderr = process.communicate()
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, process.returncode, stdout, stderr, peak, cpu


def bytes_under(folder):
    return sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file() and path.name != "manifest.json")


def check_fetch(out, s3, bucket, nodes, live, start_ms, end_ms):
    """Every chunk that exists in the range was fetched byte for byte; no silent gap."""
    manifest = json.loads((out / "manifest.json").read_text())
    reports = {node["name"]: node for node in manifest["nodes"]}
    missing, differing, silent = [], [], []
    for name, node in nodes.items():
        report = reports[name]
        folder = out / report["folder"]
        expected = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{name}/manifests/"):
            for item in page.get("Contents", []):
                chunk = json.loads(s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read())
                if chunk["firstFrameMs"] < end_ms and chunk["lastFrameMs"] >= start_ms:
                    expected[chunk["chunkFile"]] = chunk["chunkSHA256"]
        if node in live:
            with urllib.request.urlopen(urllib.request.Request(
                    node.url(f"/api/chunks?start={start_ms / 1000}&end={end_ms / 1000}"),
                    headers={"Authorization": f"Bearer {TOKEN}"}), timeout=30) as answer:
                for chunk in json.load(answer)["chunks"]:
                    local = node.store / chunk["file"]
                    if local.exists():
                        expected.setdefault(chunk["file"], hashlib.sha256(local.read_bytes()).hexdigest())
        for file, sha in expected.items():
            path = folder / file
            if not path.exists():
                missing.append(f"{name}/{file}")
            elif hashlib.sha256(path.read_bytes()).hexdigest() != sha:
                differing.append(f"{name}/{file}")
        spans = sorted([(c["startMs"], c["endMs"]) for c in report["chunks"]] + [(g["startMs"], g["endMs"]) for g in report["gaps"]])
        cursor = start_ms
        for first, last in spans:
            if first - cursor > 1000:
                silent.append(f"{name}: {cursor}..{first}")
            cursor = max(cursor, last)
        if end_ms - cursor > 1000:
            silent.append(f"{name}: {cursor}..{end_ms}")
    parts = [str(path) for path in out.rglob("*.part")]
    gaps = [(name, gap["reason"], gap["endMs"] - gap["startMs"]) for name, report in reports.items() for gap in report["gaps"]]
    chunks = sum(len(report["chunks"]) for report in reports.values())
    sources = {}
    for report in reports.values():
        for chunk in report["chunks"]:
            sources[chunk["source"]] = sources.get(chunk["source"], 0) + 1
    return {"complete": manifest["complete"], "chunks": chunks, "sources": sources, "missing": missing,
            "differing": differing, "silentGaps": silent, "partFiles": parts, "gaps": gaps}


def main():
    work = Path(tempfile.mkdtemp(prefix="fleet-bench-"))
    subprocess.run(["bash", str(REPO / "scripts/start-avahi.sh")], check=True, capture_output=True)
    gateway = Radosgw()
    nodes = {}
    try:
        s3 = gateway.s3()
        bucket = f"fleet-{uuid.uuid4().hex[:8]}"
        s3.create_bucket(Bucket=bucket)
        credentials = {"AWS_ACCESS_KEY_ID": gateway.access_key, "AWS_SECRET_ACCESS_KEY": gateway.secret_key}
        log({"part": "start", "node": str(NODE_BIN), "rounds": ROUNDS, "load": os.getloadavg()[0]})
        for index in range(NODES):
            name = f"cam-{index + 101}"
            nodes[name] = Node(
                work / name, "--token", TOKEN, "--archive-endpoint", gateway.endpoint, "--archive-bucket", bucket,
                "--archive-prefix", f"{name}/", size="160x90", fps=5, chunk_ms=5000,
                env={**credentials, "ALLSPARK_UPLINK_NAME": name,
                     "ALLSPARK_SERVER_ANNOUNCE": "true" if index < ANNOUNCED else "false"})
        headers = {"headers": {"Authorization": f"Bearer {TOKEN}"}}
        for node in nodes.values():
            node.wait_healthy(**headers)
        start_ms = int(time.time() * 1000) + 5000
        end_ms = start_ms + RANGE_S * 1000
        time.sleep((end_ms - time.time() * 1000) / 1000 + 5)
        stopped = list(nodes.values())[-STOPPED:]
        for node in stopped:
            node.stop()
        live = [node for node in nodes.values() if node not in stopped]
        fleet_base = [str(NODE_BIN), "fleet", "fetch", "--config", "/dev/null", "--archive-endpoint", gateway.endpoint,
                      "--archive-bucket", bucket, "--from", str(start_ms / 1000), "--to", str(end_ms / 1000), "--token", TOKEN]
        env = {**os.environ, **credentials, "TOKEN": TOKEN}
        urls = [f"http://127.0.0.1:{node.port}" for node in live]
        results = {"fleet": [], "fleetNoMDNS": [], "curl": [], "oneNode": []}
        fleet_bytes = 0
        for round_number in range(ROUNDS):
            out = work / f"fleet-{round_number}"
            seconds, code, stdout, stderr, _, cpu = run_timed([*fleet_base, "--out", str(out)], env=env)
            fleet_bytes = bytes_under(out)
            check = check_fetch(out, s3, bucket, nodes, live, start_ms, end_ms)
            log({"part": "fleet", "round": round_number, "seconds": round(seconds, 3), "cpuSeconds": round(cpu, 2), "exit": code,
                 "bytes": fleet_bytes, **check,
                 "stdoutTail": stdout.splitlines()[-3:]})
            results["fleet"].append(seconds)
            out = work / f"fleet-nomdns-{round_number}"
            seconds, code, _, _, _, cpu = run_timed([*fleet_base, "--out", str(out), "--no-mdns"], env=env)
            log({"part": "fleet --no-mdns", "round": round_number, "seconds": round(seconds, 3), "cpuSeconds": round(cpu, 2), "exit": code})
            results["fleetNoMDNS"].append(seconds)
            out = work / f"curl-{round_number}"
            seconds, code, _, stderr, _, cpu = run_timed(
                ["bash", "-c", CURL_LOOP, "loop", str(out), str(start_ms / 1000), str(end_ms / 1000), *urls], env=env)
            log({"part": "curl loop (9 live nodes)", "round": round_number, "seconds": round(seconds, 3), "cpuSeconds": round(cpu, 2), "exit": code,
                 "bytes": bytes_under(out), "stderr": stderr[-300:]})
            results["curl"].append(seconds)
            one_bytes = bytes_under(work / f"curl-{round_number}" / urls[0].replace(":", "_").replace("/", "_").replace(".", "_"))
            repeats = max(1, round(fleet_bytes / max(one_bytes, 1)))
            out = work / f"one-{round_number}"
            seconds, code, _, _, _, _ = run_timed(
                ["bash", "-c", CURL_LOOP, "loop", str(out), str(start_ms / 1000), str(end_ms / 1000), *([urls[0]] * repeats)], env=env)
            log({"part": "one node", "round": round_number, "seconds": round(seconds, 3), "repeats": repeats,
                 "bytes": one_bytes * repeats, "exit": code})
            results["oneNode"].append(seconds)
        for count in (3, 6, 12):
            names = sorted(nodes)[:count]
            out = work / f"rss-{count}"
            seconds, code, _, _, peak, _ = run_timed([*fleet_base, "--out", str(out), "--nodes", ",".join(names)], env=env,
                                                     sample_rss=True)
            log({"part": "memory", "nodes": count, "peakRSSMiB": round(peak, 1), "seconds": round(seconds, 3), "exit": code,
                 "bytes": bytes_under(out)})
        medians = {key: statistics.median(values) for key, values in results.items()}
        log({"part": "medians", **{key: round(value, 3) for key, value in medians.items()},
             "fleetVsCurl": round(medians["curl"] / medians["fleet"], 2),
             "fleetNoMDNSVsCurl": round(medians["curl"] / medians["fleetNoMDNS"], 2),
             "fleetVsOneNode": round(medians["oneNode"] / medians["fleet"], 2), "load": os.getloadavg()[0]})
    finally:
        for node in nodes.values():
            node.stop()
        gateway.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
