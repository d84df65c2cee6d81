#!/usr/bin/env python3
"""Archive figures for bench/README.md: the node copying chunks to an S3 bucket, against a
plain S3 client copying the same files to the same service in the same run.

The service is a real radosgw (Tests/protocol/radosgw.py: a one-host Ceph cluster on
loopback, in-memory OSD), started once for the whole run; one bucket, a prefix per upload.

throughput  A store is seeded with copies (enough for GIGABYTES, default 0.95 GB: 32) of one
            30 s 1920x1080 MP4 made by ffmpeg (testsrc2, libx264 ultrafast, 8 Mb/s: 30 MB),
            under stamps 30 s apart, with their timestamps files. Node: the release node is
            started on that store with the archive on (it queues every chunk its journal does
            not list, HEADs it, uploads it: chunk, timestamps, manifest, one file at a time)
            while it records a 160x120 5 fps test pattern (paced) under a cap large enough
            that nothing is evicted. Its time runs from its first request to radosgw (its first
            archive activity, taken from radosgw's access log) to the /api/status poll
            (every 50 ms) that counts every seeded chunk archived; the time from process
            start is reported too. Peer: boto3 `upload_file` with its defaults (multipart
            above 8 MB in 8 MB parts, 10 threads) of the same files, in the same order, to
            another prefix of the same bucket. ROUNDS rounds (default 3) per setting,
            alternating which goes first; medians. Settings: the node's defaults (64 MB
            multipart threshold, so the 30 MB chunks go as single PUTs), multipart in 8 MB
            parts (boto3's own split) and in 16 MB parts (the node's default part size, as
            it sends chunks over 64 MB), by ALLSPARK_ARCHIVE_MULTIPART_THRESHOLD_MB and
            ALLSPARK_ARCHIVE_PART_SIZE_MB. MB/s = the files' bytes (chunks and timestamps
            files; the node's ~0.5 KB manifests not counted) / time.
            Where each client's time went, from radosgw's access log: time with a request
            open (chunk bytes, HEADs, the rest) and with none open (work on the client's
            side; for the node mostly hashing each chunk before its first request).
            Memory: the node's VmRSS every 100 ms; RSS at its first request, the peak until
            done, the growth.
            Radosgw's memstore holds 1 GiB: between uploads the objects are deleted and its
            garbage collection run at once, and the data pool is checked empty.
lag         The node records testsrc 1920x1080 at 30 fps paced (a camera's rate), LAG_CHUNK_MS
            chunks (default 30000), archive on, until LAG_CHUNKS (default 3) chunks after the
            first are written and archived; /api/status polled every 200 ms. Reports the max
            lagMs once the first chunk is done (lagMs counts from the first frame of the
            oldest unarchived chunk, so a chunk just finished is already one chunk length
            old), the archive delay of each chunk: from its files' last write (mtime) to the
            end of its manifest's PUT in radosgw's log, and as polled (chunksWritten
            increments → chunksArchived increments), frames dropped, peak RSS (VmHWM).

Usage: bench/archive-bench.py [throughput] [lag]
       (ALLSPARK_NODE_BIN picks the binary, default .build-release/release/allspark-node;
        ROUNDS, GIGABYTES, LAG_CHUNK_MS, LAG_CHUNKS as above)
Prints one JSON line per measurement, then Markdown tables for the README.
"""
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port  # noqa: E402
from radosgw import Radosgw  # noqa: E402

NODE_BIN = Path(os.environ.get("ALLSPARK_NODE_BIN", REPO / ".build-release/release/allspark-node"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
GIGABYTES = float(os.environ.get("GIGABYTES", "0.95"))
LAG_CHUNK_MS = int(os.environ.get("LAG_CHUNK_MS", "30000"))
LAG_CHUNKS = int(os.environ.get("LAG_CHUNKS", "3"))
BUCKET = "archive-bench"
FIRST_STAMP_S = 1_700_000_000
SETTINGS = {
    # name: the node's environment for it
    "defaults (single PUT)": {},
    "multipart 8 MB parts": {"ALLSPARK_ARCHIVE_MULTIPART_THRESHOLD_MB": "8", "ALLSPARK_ARCHIVE_PART_SIZE_MB": "8"},
    # The node's default part size, as chunks over the default 64 MB threshold would be sent.
    "multipart 16 MB parts": {"ALLSPARK_ARCHIVE_MULTIPART_THRESHOLD_MB": "16", "ALLSPARK_ARCHIVE_PART_SIZE_MB": "16"},
}


def log(record):
    print(json.dumps(record), flush=True)


def load_average():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def rss_mib(pid, field="VmRSS"):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return None


class RSSSampler:
    """Samples a process's VmRSS every 100 ms on a thread: (monotonic time, MiB)."""

    def __init__(self, pid):
        self.pid = pid
        self.samples = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped.is_set():
            rss = rss_mib(self.pid)
            if rss is not None:
                self.samples.append((time.monotonic(), rss))
            self.stopped.wait(0.1)

    def stop(self):
        self.stopped.set()
        self.thread.join()

    def at(self, moment):
        """The first sample at or after `moment`."""
        return next(rss for when, rss in self.samples if when >= moment)

    def peak(self, start, end):
        return max(rss for when, rss in self.samples if start <= when <= end)


# --- the data -----------------------------------------------------------------------------

def make_seed_chunk(work):
    """One 30 s 1080p30 MP4, x264 ultrafast at 8 Mb/s: a chunk of about 30 MB."""
    path = work / "seed.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", "30",
                    "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "8M", "-pix_fmt", "yuv420p", "-y", str(path)],
                   check=True)
    return path


def seed_master(master, seed, count):
    """COUNT distinct copies of the seed under stamps 30 s apart, each with its timestamps file
    (written here, so the node does not spend its start-up rebuilding them)."""
    master.mkdir()
    data = seed.read_bytes()
    for index in range(count):
        start_ms = (FIRST_STAMP_S + 30 * index) * 1000
        stamp = f"{start_ms // 1000}.{start_ms % 1000:03d}"
        (master / f"chunk_{stamp}.mp4").write_bytes(data)
        (master / f"timestamps_{stamp}.txt").write_text("".join(f"{start_ms + i * 1000 // 30}\n" for i in range(900)))


def fresh_store(master, store):
    """A store holding the master's files by hard link: every round starts from the same
    files (already in the page cache for node and boto3 alike), with no journal."""
    store.mkdir()
    for path in master.iterdir():
        os.link(path, store / path.name)


def files_in_upload_order(master):
    """Oldest chunk first, each chunk file then its timestamps file: the node's order."""
    files = []
    for chunk in sorted(master.glob("chunk_*.mp4")):
        files += [chunk, master / chunk.name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")]
    return files


# --- the bucket -----------------------------------------------------------------------------

def object_sizes(s3, prefix):
    sizes = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        sizes.update({item["Key"]: item["Size"] for item in page.get("Contents", [])})
    return sizes


def check_uploaded(s3, prefix, files):
    """Every file is in the bucket under the prefix with its size (bytes are the tests' job)."""
    sizes = object_sizes(s3, prefix)
    missing = [path.name for path in files if sizes.get(prefix + path.name) != path.stat().st_size]
    assert not missing, f"{len(missing)} files missing or short under {prefix}: {missing[:3]}"


def empty_the_bucket(radosgw, s3):
    """Deletes every object, then runs radosgw's garbage collection at once (by default the
    tails of deleted objects wait two hours), so memstore's 1 GiB is free for the next upload."""
    keys = list(object_sizes(s3, ""))
    for start in range(0, len(keys), 1000):
        s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": key} for key in keys[start:start + 1000]]})
    for upload in s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []):
        s3.abort_multipart_upload(Bucket=BUCKET, Key=upload["Key"], UploadId=upload["UploadId"])
    ceph_tool(radosgw, "radosgw-admin", "gc", "process", "--include-all")
    left = ceph_tool(radosgw, "rados", "-p", "default.rgw.buckets.data", "ls").split()
    assert not left, f"{len(left)} RADOS objects left in the data pool after garbage collection"


def ceph_tool(radosgw, *command):
    return subprocess.run([*command, "-c", str(radosgw.conf)], check=True, capture_output=True, text=True,
                          timeout=120).stdout


# radosgw's access log line: '... beast: 0x..: 127.0.0.1 - node [23/Nov/2026:18:01:29.739 +0000]
# "HEAD /archive-bench/node-put-r1/chunk_... HTTP/1.1" 404 0 - "UA" - latency=0.003999999s'
ACCESS = re.compile(r'beast: \S+ \S+ - \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d+) .* latency=([\d.]+)s')


def requests_for(radosgw, prefix):
    """(method, path, wall-clock start, end) of every request radosgw logged whose path names
    `prefix`: the server's own account of a client's work (ms resolution)."""
    requests = []
    for line in (radosgw.dir / "log" / "client.rgw.a.log").read_text(errors="replace").splitlines():
        match = ACCESS.search(line)
        if match and prefix in match.group(3):
            start = datetime.datetime.strptime(match.group(1), "%d/%b/%Y:%H:%M:%S.%f %z").timestamp()
            requests.append((match.group(2), match.group(3), start, start + float(match.group(5))))
    return requests


def busy_seconds(intervals):
    """Length of the union of (start, end) intervals: time with at least one request open."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def where_the_time_went(requests):
    """Splits a client's span at radosgw into time with a request open, by kind (the chunk
    files' bytes, HEADs, the rest: timestamps files, manifests, listings, multipart
    create/complete), and time with none open: work on the client's side between requests."""
    def kind(method, path):
        if method == "HEAD":
            return "head"
        return "chunk_bytes" if method == "PUT" and ".mp4" in path else "other"
    span = max(end for *_, end in requests) - min(start for _, _, start, _ in requests)
    busy = busy_seconds([(start, end) for _, _, start, end in requests])
    # Of the time with no request open, the part just before each chunk's first request: for
    # the node, reading and hashing the chunk (and its timestamps file) before it sends anything.
    before_chunks, reach, seen = 0.0, None, set()
    for method, path, start, end in sorted(requests, key=lambda request: request[2]):
        chunk = re.search(r"chunk_[\d.]+\.mp4", path)
        if chunk and chunk.group() not in seen:
            seen.add(chunk.group())
            if reach is not None and start > reach:
                before_chunks += start - reach
        reach = end if reach is None else max(reach, end)
    result = {"span_s": round(span, 2), "no_request_open_s": round(span - busy, 2),
              "of_it_before_each_chunk_s": round(before_chunks, 2), "requests": len(requests)}
    for name in ("chunk_bytes", "head", "other"):
        result[f"{name}_s"] = round(busy_seconds([(start, end) for method, path, start, end in requests
                                                  if kind(method, path) == name]), 2)
    return result


# --- the node -------------------------------------------------------------------------------

def start_node(radosgw, store, prefix, *arguments, env=None):
    port = free_port()
    environment = {**os.environ, "ALLSPARK_SERVER_AUTH": "none", "ALLSPARK_SERVER_HOST": "127.0.0.1",
                   "ALLSPARK_SERVER_ANNOUNCE": "false", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                   "AWS_ACCESS_KEY_ID": radosgw.access_key, "AWS_SECRET_ACCESS_KEY": radosgw.secret_key, **(env or {})}
    log_file = open(store.parent / f"node-{port}.log", "w")
    process = subprocess.Popen(
        [str(NODE_BIN), "run", "--config", "/dev/null", "--privacy", "none", "--store", str(store), "--port", str(port),
         "--archive-endpoint", radosgw.endpoint, "--archive-bucket", BUCKET, "--archive-prefix", prefix, *arguments],
        env=environment, stdout=log_file, stderr=subprocess.STDOUT)
    process.port, process.log_file = port, log_file
    return process


def status(node):
    """/api/status, or None while the server is not up yet."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{node.port}/api/status", timeout=5) as response:
            return json.load(response)
    except OSError:
        if node.poll() is not None:
            raise RuntimeError(f"node exited with {node.returncode}: {Path(node.log_file.name).read_text()[-2000:]}")
        return None


def stop_node(node):
    if node.poll() is None:
        node.send_signal(signal.SIGTERM)
        try:
            node.wait(timeout=30)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()
    node.log_file.close()


def node_upload(radosgw, master, work, prefix, count, env):
    """The node archives the seeded store. Its time runs from its first request to radosgw
    (its first archive activity: the listing of open multipart uploads, in radosgw's access
    log) to the 50 ms poll of /api/status that sees the last seeded chunk archived; also from
    process start. RSS: at that first request, the peak until done, the growth."""
    store = work / f"store-{prefix.strip('/')}"
    fresh_store(master, store)
    started, started_wall = time.monotonic(), time.time()
    # A tiny live source, paced as a camera (--no-pace would run it flat out and take a core
    # from the upload), so the recorder runs but costs little; a cap far above the seed so
    # nothing is evicted; 60 s chunks so no live chunk joins the queue.
    node = start_node(radosgw, store, prefix, "--source", "testsrc", "--size", "160x120", "--fps", "5",
                      "--chunk-ms", "60000", "--cap-mb", "100000", env=env)
    rss = RSSSampler(node.pid)
    try:
        deadline = started + 600
        while time.monotonic() < deadline:
            answer = status(node)
            # The seeded chunks are the oldest in the store and go first, so once this many
            # are done they all are.
            if answer and answer["archive"]["chunksArchived"] + answer["archive"]["chunksFoundArchived"] >= count:
                done, done_wall = time.monotonic(), time.time()
                archive = answer["archive"]
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"the node did not archive {count} chunks in 600 s")
    finally:
        rss.stop()
        stop_node(node)
        shutil.rmtree(store, ignore_errors=True)
    assert archive["evictedBeforeArchive"] == 0 and archive["chunksFoundArchived"] == 0, archive
    time.sleep(0.5)  # radosgw's log thread writes within milliseconds
    requests = requests_for(radosgw, prefix.rstrip("/"))
    first_request_wall = min(start for _, _, start, _ in requests)
    first_request = started + (first_request_wall - started_wall)
    return {
        "seconds": done_wall - first_request_wall, "seconds_from_process_start": done - started,
        "first_request_after_process_start_s": first_request_wall - started_wall,
        "upload_failures": archive["uploadFailures"], "at_radosgw": where_the_time_went(requests),
        "rss_at_archive_start_mib": rss.at(first_request), "rss_peak_mib": rss.peak(first_request, done),
        "rss_growth_mib": rss.peak(first_request, done) - rss.at(first_request),
    }


def boto3_upload(s3, files, prefix):
    """boto3's upload_file with its defaults, one file after another in the node's order."""
    started = time.monotonic()
    for path in files:
        s3.upload_file(str(path), BUCKET, prefix + path.name)
    return {"seconds": time.monotonic() - started}


def throughput(radosgw, work):
    """ROUNDS rounds per setting of the node and boto3 uploading the same seeded files;
    returns (chunks, bytes, {setting: [row per round]})."""
    seed = make_seed_chunk(work)
    count = max(1, round(GIGABYTES * 1e9 / seed.stat().st_size))
    master = work / "master"
    seed_master(master, seed, count)
    files = files_in_upload_order(master)
    total = sum(path.stat().st_size for path in files)
    log({"part": "seed", "chunks": count, "chunk_bytes": seed.stat().st_size, "total_bytes": total})

    s3 = radosgw.s3()
    results = {name: [] for name in SETTINGS}
    for setting, env in SETTINGS.items():
        for round_number in range(1, ROUNDS + 1):
            node_first = round_number % 2 == 1
            tag = f"{env.get('ALLSPARK_ARCHIVE_PART_SIZE_MB', 'put')}-r{round_number}"
            row = {"part": "throughput", "setting": setting, "round": round_number,
                   "first": "node" if node_first else "boto3", "load_before": load_average()}
            for who in (("node", "boto3") if node_first else ("boto3", "node")):
                if who == "node":
                    row["node"] = node_upload(radosgw, master, work, f"node-{tag}/", count, env)
                    check_uploaded(s3, f"node-{tag}/", files)
                else:
                    row["boto3"] = boto3_upload(s3, files, f"boto3-{tag}/")
                    time.sleep(0.5)  # radosgw's log thread writes within milliseconds
                    row["boto3"]["at_radosgw"] = where_the_time_went(requests_for(radosgw, f"boto3-{tag}"))
                    check_uploaded(s3, f"boto3-{tag}/", files)
                empty_the_bucket(radosgw, s3)
            row["node_mb_per_s"] = total / row["node"]["seconds"] / 1e6
            row["boto3_mb_per_s"] = total / row["boto3"]["seconds"] / 1e6
            row["ratio"] = row["node_mb_per_s"] / row["boto3_mb_per_s"]
            row["load_after"] = load_average()
            log(row)
            results[setting].append(row)
    shutil.rmtree(master)
    return count, total, results


# --- lag under live recording ----------------------------------------------------------------

def lag(radosgw, work):
    """The node recording 1080p30 live with the archive on: lagMs, each chunk's archive
    delay, frames dropped (and how many while a chunk was being archived)."""
    store = work / "store-lag"
    store.mkdir()
    node = start_node(radosgw, store, "lag/", "--source", "testsrc", "--size", "1920x1080", "--fps", "30",
                      "--chunk-ms", str(LAG_CHUNK_MS), "--cap-mb", "100000")
    samples = []  # one per poll: time, the recorder's and the archive's counters
    try:
        deadline = time.monotonic() + (LAG_CHUNKS + 1) * LAG_CHUNK_MS / 1000 * 2 + 120
        while time.monotonic() < deadline:
            answer = status(node)
            if answer is not None:
                archive, recorder = answer["archive"], answer["recorder"]
                samples.append({"at": time.monotonic(), "written": recorder["chunksWritten"],
                                "archived": archive["chunksArchived"], "lag_ms": archive["lagMs"],
                                "backlog": archive["backlogChunks"], "dropped": recorder["framesDropped"]})
                if archive["chunksArchived"] >= LAG_CHUNKS + 1:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"{archive['chunksArchived']} chunks archived before the deadline")
        peak_rss = rss_mib(node.pid, "VmHWM")
    finally:
        stop_node(node)

    # Each chunk's delay as polled: from the first poll that counts it written to the first
    # that counts it archived (both to within one 200 ms poll).
    written = [next(s["at"] for s in samples if s["written"] >= n) for n in range(1, LAG_CHUNKS + 2)]
    archived = [next(s["at"] for s in samples if s["archived"] >= n) for n in range(1, LAG_CHUNKS + 2)]
    # The same to the millisecond: from the chunk's files' last write (the recorder's mtime)
    # to the end of the PUT of its manifest, the node's last request for it.
    time.sleep(0.5)  # radosgw's log thread writes within milliseconds
    manifest_put_end = {path.rsplit("/", 1)[-1].removesuffix(".json"): end
                        for method, path, _, end in requests_for(radosgw, "lag/manifests/") if method == "PUT"}
    chunks = sorted(store.glob("chunk_*.mp4"))[:LAG_CHUNKS + 1]
    exact_delays = []
    for chunk in chunks:
        stamp = chunk.name.removeprefix("chunk_").removesuffix(".mp4")
        last_write = max(chunk.stat().st_mtime, (store / f"timestamps_{stamp}.txt").stat().st_mtime)
        exact_delays.append(round(manifest_put_end[stamp] - last_write, 3))
    # Frames dropped while a chunk was being archived (publication to archive, plus a second)
    # against the rest of the time: whether the uploads, or something else, cost frames.
    windows = [(start, end + 1.0) for start, end in zip(written, archived)]
    while_archiving = sum(after["dropped"] - before["dropped"] for before, after in zip(samples, samples[1:])
                          if any(start <= after["at"] and before["at"] <= end for start, end in windows))
    lags = [s["lag_ms"] for s in samples if s["at"] >= written[0]]
    result = {
        "part": "lag", "chunk_ms": LAG_CHUNK_MS, "chunks_written": samples[-1]["written"],
        "chunks_archived": samples[-1]["archived"], "max_lag_ms": max(lags),
        "max_lag_over_chunk_length_ms": max(lags) - LAG_CHUNK_MS,
        "archive_delays_s": exact_delays, "archive_delays_polled_s": [round(b - a, 2) for a, b in zip(written, archived)],
        "max_backlog_chunks": max(s["backlog"] for s in samples),
        "frames_captured": recorder["framesCaptured"], "frames_dropped": recorder["framesDropped"],
        "frames_dropped_while_archiving": while_archiving, "seconds_archiving": round(sum(e - s for s, e in windows), 1),
        "seconds_recording": round(samples[-1]["at"] - samples[0]["at"], 1),
        "upload_failures": archive["uploadFailures"], "evicted_before_archive": archive["evictedBeforeArchive"],
        "chunk_mb": [round(path.stat().st_size / 1e6, 1) for path in chunks],
        "peak_rss_mib": peak_rss, "load": load_average(),
    }
    log(result)
    return result


# --- report -----------------------------------------------------------------------------------

def print_tables(count, total, results, lag_result):
    if results:
        print(f"\nData: {total / 1e9:.2f} GB, {count} chunks of {total / count / 1e6:.1f} MB with their timestamps files.\n")
        print("| setting | round (first) | node s | node s from process start | boto3 s "
              "| node MB/s | boto3 MB/s | ratio node/boto3 | node s with no request open (before each chunk) "
              "| boto3 s with no request open | node RSS at start → peak (growth), MiB | load before |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for setting, rows in results.items():
            for row in rows:
                node = row["node"]
                print(f"| {setting} | {row['round']} ({row['first']}) | {node['seconds']:.2f} "
                      f"| {node['seconds_from_process_start']:.2f} | {row['boto3']['seconds']:.2f} | {row['node_mb_per_s']:.1f} "
                      f"| {row['boto3_mb_per_s']:.1f} | {row['ratio']:.2f} | {node['at_radosgw']['no_request_open_s']:.2f} "
                      f"({node['at_radosgw']['of_it_before_each_chunk_s']:.2f}) | {row['boto3']['at_radosgw']['no_request_open_s']:.2f} "
                      f"| {node['rss_at_archive_start_mib']:.1f} → "
                      f"{node['rss_peak_mib']:.1f} ({node['rss_growth_mib']:+.1f}) | {row['load_before']} |")
        print("\n| setting | median node MB/s | median boto3 MB/s | median ratio | ratio with the node timed from process start "
              "| max RSS growth (MiB) |")
        print("|---|---|---|---|---|---|")
        for setting, rows in results.items():
            from_start = [total / r["node"]["seconds_from_process_start"] / 1e6 / r["boto3_mb_per_s"] for r in rows]
            print(f"| {setting} | {statistics.median(r['node_mb_per_s'] for r in rows):.1f} "
                  f"| {statistics.median(r['boto3_mb_per_s'] for r in rows):.1f} "
                  f"| {statistics.median(r['ratio'] for r in rows):.2f} | {statistics.median(from_start):.2f} "
                  f"| {max(r['node']['rss_growth_mib'] for r in rows):.1f} |")
    if lag_result:
        result = lag_result
        print("\n| chunk length | chunks written | chunk size (MB) | max lagMs | archive delay per chunk (s) "
              "| same, polled every 200 ms (s) | max backlog | frames captured | dropped (of them while archiving) "
              "| peak RSS (MiB) | load at end |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {result['chunk_ms'] / 1000:.0f} s | {result['chunks_written']} "
              f"| {min(result['chunk_mb']):.1f}–{max(result['chunk_mb']):.1f} | {result['max_lag_ms'] / 1000:.1f} s "
              f"| {', '.join(f'{d:.2f}' for d in result['archive_delays_s'])} "
              f"| {', '.join(f'{d:.1f}' for d in result['archive_delays_polled_s'])} | {result['max_backlog_chunks']} "
              f"| {result['frames_captured']} | {result['frames_dropped']} ({result['frames_dropped_while_archiving']}) "
              f"| {result['peak_rss_mib']:.0f} | {result['load']} |")


def main():
    parts = sys.argv[1:] or ["throughput", "lag"]
    log({"part": "start", "node": str(NODE_BIN), "load": load_average(), "rounds": ROUNDS})
    work = Path(tempfile.mkdtemp(prefix="allspark-archive-bench-"))
    radosgw = None
    try:
        radosgw = Radosgw()
        s3 = radosgw.s3()
        s3.create_bucket(Bucket=BUCKET)
        # The first write creates radosgw's data pool (its placement groups take a second or
        # two): done here, so no measurement pays it.
        s3.put_object(Bucket=BUCKET, Key="warm-up", Body=os.urandom(8 << 20))
        empty_the_bucket(radosgw, s3)
        count = total = None
        results, lag_result = {}, None
        if "throughput" in parts:
            count, total, results = throughput(radosgw, work)
        if "lag" in parts:
            lag_result = lag(radosgw, work)
        print_tables(count, total, results, lag_result)
    finally:
        if radosgw is not None:
            radosgw.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
