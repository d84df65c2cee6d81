#!/usr/bin/env python3
"""Soak: a node left running against its storage cap, with peers asking for footage, a
dashboard polling it and the archive on, watched for what would end a months-long run:
growing memory, open files or threads, dropped frames, a store over its cap, an archive
falling behind, errors in its log.

The node records the test pattern with privacy on, in 1 s chunks under a 3 MiB cap (a
chunk is evicted about every second), behind its access token (the default). Its archive
copies every chunk to a real radosgw (Tests/protocol/radosgw.py, its OSD in memory, sized
for the run). Its uplink is connected to an edge server (Tests/protocol/edge_peer.py) that
every 5 s asks for the last 4 chunks it was told of and reads their upload pairs. Every 5 s
a WebSocket peer connects to the node's own server, asks for the last 4 s (the chunk being
recorded ends early for it) and reads the upload pairs to the final status; every second a
poller reads /api/status and /api/snapshot.jpg as the dashboard does; every 30 s a clip of
3 s is cut. Every 10 s: VmRSS, open file descriptors, threads, the bytes of the chunk and
timestamps files in the store (the cap's) and of the node's other files there, and
the archive's progress from /api/status. Prints a table of samples and a summary with the
growth from the end of the first minute to the end, then what the node logged (its stderr,
kept in --log) while it ran and after it was told to stop (SIGTERM): lines by level, every
distinct error line, warnings by kind; and its exit status.

With --holds, retention is on as well: once there is footage, a hold on the first two
chunks, a hold on 5 s that starts a minute later (footage still to come), and an age limit
of 0.004 h (14.4 s, less than the ring keeps under this cap, so both delete) set while it
runs; every 10 s the sample also checks that every held chunk is still listed, that no
chunk older than the limit and a minute is left but held ones, and the store's peak
against its cap.

Usage: bench/soak.py [--node BIN] [--minutes 15] [--size 640x360] [--fps 30] [--log FILE] [--holds]
"""
import argparse
import asyncio
import collections
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from edge_peer import EdgePeer  # noqa: E402
from node_harness import free_port, wait_for_answer  # noqa: E402
from radosgw import Radosgw  # noqa: E402
from wsclient import Peer  # noqa: E402

CAP_MIB = 3
BUCKET = "soak"
# Room for what the archive takes: the OSD keeps the bucket in memory (at 640x360, 30 fps
# the chunks and their files come to about 7 MB a minute; 1 GiB at least).
ARCHIVE_MIB_PER_MINUTE = 20
MAX_AGE_HOURS = 0.004


def process_facts(pid):
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    values = {line.split(":")[0]: line.split()[1] for line in status if line.startswith(("VmRSS", "Threads"))}
    return int(values["VmRSS"]) / 1024, len(os.listdir(f"/proc/{pid}/fd")), int(values["Threads"])


def store_bytes(store):
    """(bytes of the chunk and timestamps files, with the chunk being recorded; bytes of the
    rest: the archive journal, ids, runtime config)."""
    ring = other = 0
    for entry in os.scandir(store):
        try:
            if not entry.is_file():
                continue
            size = entry.stat().st_size
        except FileNotFoundError:
            continue  # evicted between the listing and the stat
        if entry.name.startswith(("chunk_", ".chunk_", "timestamps_")):
            ring += size
        else:
            other += size
    return ring, other


def get(url, token, timeout=5):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{url.split('?')[0]}: HTTP {error.code} {error.read()[:200]!r}") from None


async def every(seconds, name, counts, action):
    """Runs `action` every `seconds`; a failure is counted under "<name> errors", not fatal."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await action()
        except Exception as error:  # noqa: BLE001 - a soak counts failures instead of stopping
            counts[f"{name} errors"] += 1
            print(f"{name} failed: {error!r}", file=sys.stderr)


async def ask_for_footage(port, token, counts):
    """A peer on the node's own server: the last 4 s of footage, read to the final status."""
    peer = await Peer.connect(f"ws://127.0.0.1:{port}/?token={token}")
    await peer.receive()
    now = time.time()
    await peer.send({"command": "uploadTimeRange", "startTime": now - 4, "endTime": now})
    files, status = await peer.receive_uploads(timeout=30)
    await peer.close()
    counts["uploads"] += 1
    counts["files"] += len(files)
    counts["skipped"] += len(status.get("skipped", []))
    counts["from archive"] += len(status.get("fromArchive", []))


def timestamps_name(chunk_name):
    return chunk_name.replace("chunk_", "timestamps_").rsplit(".", 1)[0] + ".txt"


async def ask_over_the_uplink(edge, counts):
    """The edge server the node's uplink is connected to: the range of the last 4 chunks it
    was told of (chunkSaved), every one of them and its timestamps file received (over the
    uplink the node sends no final status). What it kept is dropped after each round."""
    saved = edge.chunk_saved[-4:]
    edge.chunk_saved.clear()
    edge.uploads.clear()
    if len(saved) < 4:
        raise RuntimeError(f"{len(saved)} chunkSaved since the last round")
    expected = {name for chunk in saved for name in (chunk["filename"], timestamps_name(chunk["filename"]))}
    await edge.command({"command": "uploadTimeRange", "message": "", "startTime": saved[0]["startTime"],
                        "endTime": saved[-1]["endTime"]})
    await edge.wait_for(lambda: expected <= edge.uploads.keys(), timeout=30, what=f"the upload pairs of {sorted(expected)}")
    counts["uplink rounds"] += 1
    counts["uplink files"] += len(edge.uploads)


async def poll_like_the_dashboard(port, token, counts):
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, get, f"http://127.0.0.1:{port}/api/status", token)
    await loop.run_in_executor(None, get, f"http://127.0.0.1:{port}/api/snapshot.jpg", token)
    counts["polls"] += 1


def send_json(url, token, method, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def place_holds(port, token, saved):
    """The first two chunks held, 5 s starting a minute from now held, and the age limit on;
    returns the held chunks' files (the future hold's are found as they are recorded)."""
    base = f"http://127.0.0.1:{port}"
    past = send_json(f"{base}/api/holds", token, "POST",
                     {"start": saved[0]["startTime"], "end": saved[1]["endTime"] + 0.001, "reason": "soak: the first two chunks"})
    now = time.time()
    future = send_json(f"{base}/api/holds", token, "POST", {"start": now + 60, "end": now + 65, "reason": "soak: a minute from now"})
    send_json(f"{base}/api/config", token, "PUT", {"videoBufferMaxAgeHours": MAX_AGE_HOURS})
    return set(past["chunks"]), future["hold"]["id"]


def retention_facts(port, token, held, future_id):
    """(held chunks listed, held chunks missing, unheld chunks past the age limit and a minute)."""
    chunks = json.loads(get(f"http://127.0.0.1:{port}/api/chunks", token))["chunks"]
    held |= {chunk["file"] for chunk in chunks if future_id in chunk["holds"]}
    listed = {chunk["file"] for chunk in chunks}
    stale_ms = time.time() * 1000 - MAX_AGE_HOURS * 3_600_000 - 60_000
    stale = [chunk["file"] for chunk in chunks if chunk["endMs"] < stale_ms and not chunk["holds"]]
    return len(held & listed), len(held - listed), len(stale)


async def cut_clip(port, token, counts):
    """A clip of 3 s, as the dashboard's range picker asks for one."""
    now = time.time()
    clip = await asyncio.get_running_loop().run_in_executor(
        None, get, f"http://127.0.0.1:{port}/api/clip?start={now - 4}&end={now - 1}", token)
    counts["clips"] += 1 if clip else 0


def start_node(arguments, radosgw, store, port, edge_port, token, log):
    environment = dict(os.environ, ALLSPARK_SERVER_HOST="127.0.0.1", ALLSPARK_SERVER_ANNOUNCE="false",
                       # RTSP stays on, on a port of its own (others' nodes on this machine take 8554).
                       ALLSPARK_SERVER_RTSP_PORT=str(free_port()),
                       # This machine runs no time daemon: the clock is judged by its error bound.
                       ALLSPARK_CLOCK_SYNC_REQUIRED="false",
                       AWS_ACCESS_KEY_ID=radosgw.access_key, AWS_SECRET_ACCESS_KEY=radosgw.secret_key)
    return subprocess.Popen(
        [arguments.node, "run", "--config", "/dev/null", "--source", "testsrc", "--size", arguments.size,
         "--fps", arguments.fps, "--chunk-ms", "1000", "--cap-mb", str(CAP_MIB), "--privacy", "face",
         "--store", str(store), "--port", str(port), "--token", token, "--uplink", f"ws://127.0.0.1:{edge_port}/",
         "--archive-endpoint", radosgw.endpoint, "--archive-bucket", BUCKET, "--archive-prefix", "soak/"],
        env=environment, stdout=subprocess.DEVNULL, stderr=log, cwd=REPO)


async def soak(arguments, radosgw, store, log):
    loop = asyncio.get_running_loop()
    port, edge_port, token = free_port(), free_port(), secrets.token_urlsafe(32)
    # The edge server's clientConfig would otherwise set 3 s chunks.
    edge = EdgePeer(edge_port, client_config={"videoChunkDurationMs": 1000})
    await edge.start()
    node = start_node(arguments, radosgw, store, port, edge_port, token, log)
    try:
        await loop.run_in_executor(None, wait_for_answer, f"http://127.0.0.1:{port}/api/health")
        await edge.wait_for(lambda: edge.client_names, timeout=60, what="the node's uplink")
        # The load starts once there is footage to ask for (and a frame for the snapshot).
        await edge.wait_for(lambda: len(edge.chunk_saved) >= 4, timeout=60, what="4 chunks saved")
        holds = await loop.run_in_executor(None, place_holds, port, token, edge.chunk_saved[:2]) if arguments.holds else None
        samples, counts = await sample(arguments, node, port, token, edge, store, holds)
    finally:
        # What the log holds by now was logged while the node ran; the rest, while it stopped.
        stop_offset = os.path.getsize(log.name)
        node.send_signal(signal.SIGTERM)
        await loop.run_in_executor(None, node.wait, 30)
        await edge.stop()
    counts["uplink connections"] = edge.connections
    counts["exit status"] = node.returncode
    return samples, counts, stop_offset


async def sample(arguments, node, port, token, edge, store, holds):
    counts = collections.Counter()
    workers = [asyncio.create_task(every(5, "upload", counts, lambda: ask_for_footage(port, token, counts))),
               asyncio.create_task(every(5, "uplink", counts, lambda: ask_over_the_uplink(edge, counts))),
               asyncio.create_task(every(1, "poll", counts, lambda: poll_like_the_dashboard(port, token, counts))),
               asyncio.create_task(every(30, "clip", counts, lambda: cut_clip(port, token, counts)))]
    samples = []
    started = time.monotonic()
    print("| minute | RSS (MB) | open fds | threads | chunks on disk (KiB) | other store files (KiB) "
          "| chunks evicted | frames dropped "
          "| uploads | uplink rounds | archived | archive backlog | archive lag (s) | evicted before archived |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    while time.monotonic() - started < arguments.minutes * 60:
        await asyncio.sleep(10)
        if node.poll() is not None:
            raise RuntimeError(f"the node exited by itself after {(time.monotonic() - started) / 60:.1f} min, status {node.returncode}")
        rss, fds, threads = process_facts(node.pid)
        ring, other = store_bytes(store)
        status = json.loads(await asyncio.get_running_loop().run_in_executor(
            None, get, f"http://127.0.0.1:{port}/api/status", token))
        archive = status["archive"]
        sample = {"minute": (time.monotonic() - started) / 60, "rss": rss, "fds": fds, "threads": threads,
                  "disk": ring, "other files": other, "evicted": status["store"]["chunksEvicted"],
                  "dropped": status["recorder"]["framesDropped"], "uploads": counts["uploads"],
                  "uplink": counts["uplink rounds"], "uplink state": status["uplink"]["state"],
                  "archived": archive["chunksArchived"], "archived bytes": archive["bytesArchived"],
                  "backlog": archive["backlogChunks"], "lag": archive["lagMs"] / 1000,
                  "unarchived": archive["evictedBeforeArchive"], "archive failures": archive["uploadFailures"],
                  "peak": status["store"]["peakBytes"], "cap": status["store"]["capBytes"],
                  "by cap": status["store"]["chunksEvictedByCap"], "by age": status["store"]["chunksEvictedByAge"],
                  "bytes by cap": status["store"]["bytesEvictedByCap"]}
        if holds:
            sample["held"], sample["held lost"], sample["stale"] = await asyncio.get_running_loop().run_in_executor(
                None, retention_facts, port, token, *holds)
        samples.append(sample)
        print(f"| {sample['minute']:.1f} | {rss:.1f} | {fds} | {threads} | {ring / 1024:.0f} | {other / 1024:.0f} | "
              f"{sample['evicted']} | {sample['dropped']} | {sample['uploads']} | {sample['uplink']} | "
              f"{sample['archived']} | {sample['backlog']} | {sample['lag']:.1f} | {sample['unarchived']} |", flush=True)
    for worker in workers:
        worker.cancel()
    return samples, counts


# swift-log's StreamLogHandler: "2026-11-25T01:02:03+0000 warning allspark : meta [Module] message".
LOG_LINE = re.compile(r"^\S+ (trace|debug|info|notice|warning|error|critical) (.*)$")


def kind(text):
    """A message with its numbers, hex and file stamps blanked: one kind per distinct cause."""
    message = text.split("] ", 1)[1] if "] " in text else text
    return re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?", "N", message)[:140]


def read_log(text):
    """Lines by level; every error or critical line and every line not from the node's logger
    (libav, OpenCV, the runtime: at the levels the node lets through these are errors), and
    warnings by kind, with their counts."""
    levels = collections.Counter()
    errors, warnings = collections.Counter(), collections.Counter()
    for line in text.splitlines():
        match = LOG_LINE.match(line)
        level = match.group(1) if match else "other"
        levels[level] += 1
        if level in ("error", "critical", "other"):
            errors[line] += 1
        elif level == "warning":
            warnings[kind(match.group(2))] += 1
    return levels, errors, warnings


def report_log(title, text):
    levels, errors, warnings = read_log(text)
    print(f"{title}: " + (", ".join(f"{count} {level}" for level, count in sorted(levels.items())) or "nothing"))
    print(f"  {sum(errors.values())} error lines (error, critical, or not from the node's logger)" + (":" if errors else ""))
    for line, count in errors.most_common():
        print(f"    {count} x {line}")
    print(f"  {sum(warnings.values())} warnings" + (", by kind:" if warnings else ""))
    for message, count in warnings.most_common():
        print(f"    {count} x {message}")


def summarise(samples, counts, log_path, stop_offset):
    warm = next(sample for sample in samples if sample["minute"] >= 1)
    last = samples[-1]
    hours = (last["minute"] - warm["minute"]) / 60
    print()
    print(f"After {last['minute']:.1f} min: RSS {warm['rss']:.1f} -> {last['rss']:.1f} MB "
          f"({(last['rss'] - warm['rss']) / hours:+.2f} MB/h; max {max(s['rss'] for s in samples):.1f}), "
          f"open fds {warm['fds']} -> {last['fds']} (range {min(s['fds'] for s in samples)}-{max(s['fds'] for s in samples)}), "
          f"threads {warm['threads']} -> {last['threads']} "
          f"(range {min(s['threads'] for s in samples)}-{max(s['threads'] for s in samples)}); "
          f"chunks on disk at most {max(s['disk'] for s in samples) / 1024:.0f} KiB of the {CAP_MIB * 1024} KiB cap, "
          f"the node's other files in the store {warm['other files'] / 1024:.0f} -> {last['other files'] / 1024:.0f} KiB; "
          f"{last['evicted']} chunks evicted, {last['dropped']} frames dropped")
    print(f"Peers: {counts['uploads']} uploads ({counts['files']} files, {counts['skipped']} skipped, "
          f"{counts['from archive']} from the archive, {counts['upload errors']} failed); "
          f"uplink: {counts['uplink rounds']} rounds ({counts['uplink files']} files, {counts['uplink errors']} failed), "
          f"{counts['uplink connections']} connection(s), "
          f"{sum(s['uplink state'] != 'connected' for s in samples)} samples not connected; "
          f"{counts['polls']} polls ({counts['poll errors']} failed), "
          f"{counts['clips']} clips ({counts['clip errors']} failed)")
    print(f"Archive: {last['archived']} chunks ({last['archived bytes'] / 1e6:.0f} MB) archived, "
          f"backlog at most {max(s['backlog'] for s in samples)} chunks, lag at most {max(s['lag'] for s in samples):.1f} s, "
          f"{last['unarchived']} evicted before archived, {last['archive failures']} failed uploads")
    log = log_path.read_bytes()
    print(f"Store: peak {last['peak'] / 1024:.0f} KiB of the {last['cap'] / 1024:.0f} KiB cap "
          f"(peak / cap {last['peak'] / last['cap']:.3f}); {last['by cap']} chunks deleted by the cap "
          f"({last['bytes by cap'] / last['cap']:.1f} cap turnovers), {last['by age']} by age")
    if "held" in last:
        print(f"Holds: {last['held']} held chunks listed at the end, held chunks lost at most {max(s['held lost'] for s in samples)}; "
              f"unheld chunks older than the age limit and a minute: at most {max(s['stale'] for s in samples)} "
              f"(age limit {MAX_AGE_HOURS} h)")
    print(f"Log: {log_path}")
    report_log("While it ran", log[:stop_offset].decode(errors="replace"))
    report_log("After SIGTERM", log[stop_offset:].decode(errors="replace"))
    print(f"Exit status: {counts['exit status']}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--minutes", type=float, default=15)
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--fps", default="30")
    parser.add_argument("--log", help="where the node's stderr goes (default: beside the store, removed)")
    parser.add_argument("--holds", action="store_true", help="holds and an age limit on (see above)")
    arguments = parser.parse_args()
    memstore = max(1024, int(arguments.minutes * ARCHIVE_MIB_PER_MINUTE)) << 20
    radosgw = Radosgw(memstore_bytes=memstore)
    try:
        radosgw.s3().create_bucket(Bucket=BUCKET)
        with tempfile.TemporaryDirectory(prefix="allspark-soak-") as work:
            log_path = Path(arguments.log or Path(work) / "node.log")
            store = Path(work) / "store"
            with open(log_path, "w") as log:
                samples, counts, stop_offset = asyncio.run(soak(arguments, radosgw, store, log))
            summarise(samples, counts, log_path, stop_offset)
    finally:
        radosgw.close()


if __name__ == "__main__":
    main()
