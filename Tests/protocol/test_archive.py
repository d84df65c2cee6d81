"""The archive tier against a real S3 service (Ceph's radosgw, started by the radosgw
fixture): chunks copied byte for byte with manifests, an outage ridden out, a SIGKILL
mid-upload resumed without duplicates, evicted ranges answered from the bucket (ONVIF replay
among them), and bad credentials or a missing bucket reported while recording goes on."""
import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from edge_peer import EdgePeer
from node_harness import NODE_BIN, REPO, free_port
from wsclient import Peer


def archive_args(radosgw, bucket, prefix):
    return ("--archive-endpoint", radosgw.endpoint, "--archive-bucket", bucket, "--archive-prefix", prefix)


def archive_env(radosgw, secret=None, **extra):
    return {"AWS_ACCESS_KEY_ID": radosgw.access_key, "AWS_SECRET_ACCESS_KEY": secret or radosgw.secret_key, **extra}


@pytest.fixture
def bucket(radosgw):
    name = f"node-{uuid.uuid4().hex[:12]}"
    radosgw.s3().create_bucket(Bucket=name)
    return name


def keys(s3, bucket, prefix=""):
    found = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        found += [item["Key"] for item in page.get("Contents", [])]
    return found


def manifests(s3, bucket, prefix):
    return [json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
            for key in keys(s3, bucket, prefix + "manifests/")]


def evicted_and_archived(node, s3, bucket, prefix):
    """The manifests of the first two archived chunks the ring has evicted, once there are two."""
    def found():
        ring = {chunk["file"] for chunk in node.chunks()}
        gone = [manifest for manifest in manifests(s3, bucket, prefix) if manifest["chunkFile"] not in ring]
        return len(gone) >= 2 and gone

    return node.wait_until(found, timeout=120, what="2 archived chunks evicted from the ring")[:2]


def archive_status(node):
    return node.json("/api/status")[1]["archive"]


def run_cli(*arguments, env):
    return subprocess.run([str(NODE_BIN), *arguments], capture_output=True, text=True, env={**os.environ, **env}, cwd=REPO,
                          timeout=120)


def test_chunks_appear_in_the_bucket_byte_identical_with_manifests(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    env = archive_env(radosgw)
    store = tmp_path / "store"
    node = make_node(*archive_args(radosgw, bucket, "lab/cam1/"), store=store, env=env)
    node.wait_healthy()
    node.wait_until(lambda: archive_status(node)["chunksArchived"] >= 3, timeout=60, what="3 chunks archived")
    node.stop()

    found = manifests(s3, bucket, "lab/cam1/")
    assert len(found) >= 3
    for manifest in found:
        chunk = (store / manifest["chunkFile"]).read_bytes()
        stamps = (store / manifest["timestampsFile"]).read_bytes()
        assert s3.get_object(Bucket=bucket, Key="lab/cam1/" + manifest["chunkFile"])["Body"].read() == chunk
        assert s3.get_object(Bucket=bucket, Key="lab/cam1/" + manifest["timestampsFile"])["Body"].read() == stamps
        assert manifest["chunkSHA256"] == hashlib.sha256(chunk).hexdigest() and manifest["chunkBytes"] == len(chunk)
        assert manifest["timestampsSHA256"] == hashlib.sha256(stamps).hexdigest()
        lines = stamps.decode().split()
        assert manifest["frames"] == len(lines) and manifest["format"] == "mp4" and manifest["node"]
        assert manifest["firstFrameMs"] <= manifest["lastFrameMs"]
        head = s3.head_object(Bucket=bucket, Key="lab/cam1/" + manifest["chunkFile"])
        assert head["Metadata"]["sha256"] == manifest["chunkSHA256"] and head["ContentType"] == "video/mp4"

    # The command line agrees: every stored chunk that was archived verifies.
    config = tmp_path / "node.yaml"
    config.write_text(f"store: {store}\narchive:\n  endpoint: {radosgw.endpoint}\n  bucket: {bucket}\n  prefix: lab/cam1/\n")
    cli_env = env
    first, last = found[0], found[-1]
    verify = run_cli("archive", "verify", "--config", str(config), "--from", str(first["firstFrameMs"] / 1000),
                     "--to", str(last["lastFrameMs"] / 1000), env=cli_env)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"{len(found)} chunks checked: {len(found)} archived" in verify.stdout
    status = run_cli("archive", "status", "--config", str(config), "--json", env=cli_env)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["archivedChunks"] == len(found)

    # An object changed behind the node's back is reported as differing, and the exit code says so.
    s3.put_object(Bucket=bucket, Key="lab/cam1/" + first["timestampsFile"], Body=b"tampered\n")
    verify = run_cli("archive", "verify", "--config", str(config), env=cli_env)
    assert verify.returncode == 1 and f"differs  {first['chunkFile']}" in verify.stdout

    # Issue 32: a ring chunk changed on the node's disk (a byte in the middle of its media)
    # fails its media signatures too.
    chunk = store / last["chunkFile"]
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0x40
    chunk.write_bytes(bytes(data))
    verify = run_cli("archive", "verify", "--config", str(config), env=cli_env)
    assert verify.returncode == 1 and f"invalid  {last['chunkFile']}" in verify.stdout, verify.stdout


def test_an_outage_of_30_s_loses_nothing_and_the_backlog_drains(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    node = make_node(*archive_args(radosgw, bucket, "outage/"), store=tmp_path / "store",
                     env=archive_env(radosgw, ALLSPARK_ARCHIVE_MAX_LAG_SECONDS="15"))
    node.wait_healthy()
    node.wait_until(lambda: archive_status(node)["chunksArchived"] >= 1, timeout=60, what="a chunk archived")
    radosgw.stop_gateway()
    try:
        written_before = node.json("/api/status")[1]["recorder"]["chunksWritten"]
        time.sleep(30)
        status = node.json("/api/status")[1]
        assert status["recorder"]["chunksWritten"] >= written_before + 10, "recording went on"
        assert status["archive"]["backlogChunks"] >= 10 and status["archive"]["uploadFailures"] >= 1
        assert status["archive"]["state"] == "retrying" and status["archive"]["lagMs"] > 20_000
        code, health = node.json("/api/health")
        assert code == 200 and health["status"] == "degraded"
        assert any(problem.startswith("archive failing") for problem in health["problems"])
        assert any(problem.startswith("archive lag") and "archive.maxLagSeconds (15 s)" in problem for problem in health["problems"])
    finally:
        radosgw.start_gateway()
    node.wait_until(lambda: archive_status(node)["backlogChunks"] <= 1, timeout=90, what="the backlog drained")
    node.stop()
    stored = {path.name.removeprefix("chunk_").removesuffix(".mp4") for path in (tmp_path / "store").glob("chunk_*.mp4")}
    archived = {manifest["stamp"] for manifest in manifests(s3, bucket, "outage/")}
    # Chunks finished in the last seconds (the last one at the stop) are archived at the next start.
    assert len(stored - archived) <= 2 and archived <= stored
    assert "answers again" in node.log_path.read_text()


def test_sigkill_mid_upload_resumes_without_duplicates_or_partial_objects(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    store = tmp_path / "store"
    # Every file goes as a multipart upload (one part each), so a kill can land inside one.
    env = archive_env(radosgw, ALLSPARK_ARCHIVE_MULTIPART_THRESHOLD_MB="0.01")
    node = make_node(*archive_args(radosgw, bucket, "kill/"), store=store, env=env)
    node.wait_healthy()
    node.wait_until(lambda: archive_status(node)["chunksArchived"] >= 1, timeout=60, what="a chunk archived")
    # A backlog builds while the gateway is away; the node is killed while it drains.
    radosgw.stop_gateway()
    node.wait_until(lambda: archive_status(node)["backlogChunks"] >= 8, timeout=60, what="a backlog of 8 chunks")
    radosgw.start_gateway()
    archived = archive_status(node)["chunksArchived"]
    node.wait_until(lambda: archive_status(node)["chunksArchived"] > archived, timeout=60, what="uploads under way again")
    node.process.send_signal(signal.SIGKILL)
    node.process.wait()
    assert archive_status_after_kill_is_incomplete(s3, bucket, store)

    restarted = make_node(*archive_args(radosgw, bucket, "kill/"), store=store, env=env)
    restarted.wait_healthy()
    restarted.wait_until(lambda: archive_status(restarted)["backlogChunks"] <= 1, timeout=90, what="the backlog drained")
    restarted.stop()

    stored = sorted(path.name for path in store.glob("chunk_*.mp4"))
    found = manifests(s3, bucket, "kill/")
    names = {manifest["chunkFile"] for manifest in found}
    assert len(names) == len(found), "one manifest per chunk"
    assert len(set(stored) - names) <= 2, "every chunk but the newest is archived"
    expected = {"kill/" + name for manifest in found for name in (manifest["chunkFile"], manifest["timestampsFile"])}
    expected |= {f"kill/manifests/{manifest['stamp']}.json" for manifest in found}
    expected.add("kill/node.json")  # the node's fleet record (test_fleet.py)
    assert sorted(keys(s3, bucket, "kill/")) == sorted(expected), "nothing but whole chunks, their manifests and node.json"
    assert not s3.list_multipart_uploads(Bucket=bucket).get("Uploads"), "no unfinished multipart upload left"
    for manifest in found:
        if (store / manifest["chunkFile"]).exists():
            body = s3.get_object(Bucket=bucket, Key="kill/" + manifest["chunkFile"])["Body"].read()
            assert body == (store / manifest["chunkFile"]).read_bytes()


def archive_status_after_kill_is_incomplete(s3, bucket, store):
    """Right after the kill the bucket lacks some stored chunks: the kill was mid-backlog."""
    stored = {path.name for path in store.glob("chunk_*.mp4")}
    listed = {key.removeprefix("kill/") for key in keys(s3, bucket, "kill/")}
    return len(stored - listed) >= 2


def test_a_range_the_ring_evicted_is_answered_from_the_archive(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    node = make_node(*archive_args(radosgw, bucket, "tiny/"), "--cap-mb", "0.25", store=tmp_path / "store",
                     env=archive_env(radosgw))
    node.wait_healthy()
    gone = evicted_and_archived(node, s3, bucket, "tiny/")
    start, end = gone[0]["firstFrameMs"] / 1000, gone[1]["lastFrameMs"] / 1000
    expected = {}
    for manifest in gone:
        for name in (manifest["chunkFile"], manifest["timestampsFile"]):
            expected[name] = s3.get_object(Bucket=bucket, Key="tiny/" + name)["Body"].read()

    # /api/chunks lists them from the archive, and each file downloads byte for byte.
    listing = node.json(f"/api/chunks?start={start}&end={end}")[1]
    from_archive = [chunk for chunk in listing["chunks"] if chunk["source"] == "archive"]
    assert [chunk["file"] for chunk in from_archive] == [manifest["chunkFile"] for manifest in gone]
    status, headers, body = node.request(f"/api/chunks/{gone[0]['chunkFile']}")
    assert status == 200 and body == expected[gone[0]["chunkFile"]] and headers["X-AllSpark-Source"] == "archive"

    async def over_websocket():
        peer = await Peer.connect(node.ws_url())
        try:
            await peer.send({"command": "uploadTimeRange", "startTime": start, "endTime": end})
            return await peer.receive_uploads(timeout=60)
        finally:
            await peer.close()

    files, final = asyncio.run(over_websocket())
    for name, data in expected.items():
        assert files[name] == data, f"{name} sent byte-identical from the archive"
    assert set(expected) <= set(final["fromArchive"]) and final["status"] == "success"

    status, headers, clip = node.request(f"/api/clip?start={start}&end={end}")
    assert status == 200 and headers["Content-Type"] == "video/mp4"
    assert headers["X-Clip-From-Archive"].split(",") == [manifest["chunkFile"] for manifest in gone]
    path = tmp_path / "clip.mp4"
    path.write_bytes(clip)
    frames = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
         "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout)["streams"][0]["nb_read_packets"]
    assert int(frames) == int(headers["X-Clip-Frames"]) >= gone[0]["frames"]
    assert not list((tmp_path / "store" / ".archive-fetch").glob("*/*")), "fetched copies are removed after use"


def test_an_onvif_replay_of_a_range_the_ring_evicted_plays_from_the_archive(make_node, radosgw, bucket, tmp_path):
    """Profile G's replay (GStreamer's ONVIF client, as in Tests/onvif) of two chunks the ring
    let go of: the node fetches them from the bucket and sends every frame they hold, each
    with its capture time in the ONVIF extension, from the first chunk's key frame to the
    range's end; then the fetched copies are removed."""
    s3 = radosgw.s3()
    rtsp_port = free_port()
    node = make_node(*archive_args(radosgw, bucket, "replay/"), "--cap-mb", "0.25", store=tmp_path / "store",
                     env=archive_env(radosgw, ALLSPARK_SERVER_RTSP_PORT=str(rtsp_port)))
    node.wait_healthy()
    gone = evicted_and_archived(node, s3, bucket, "replay/")
    start_ms, end_ms = gone[0]["firstFrameMs"], gone[1]["lastFrameMs"]
    assert node.chunks()[0]["startMs"] > end_ms, "the range is still in the ring: no test of the archive"
    done = subprocess.run([sys.executable, str(REPO / "Tests/onvif/replay_client.py"), f"rtsp://127.0.0.1:{rtsp_port}/replay",
                           str(start_ms), str(end_ms + 1)], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["ended"], "the server did not end the replay"
    frame_times = sorted({round(packet[0]) for packet in found["packets"] if packet is not None})
    # Every frame of the two archived chunks (2 s each at 15 fps), and only those (the range
    # ends a millisecond past the last: the chunk's clock may put it a fraction past).
    assert len(frame_times) == gone[0]["frames"] + gone[1]["frames"], (len(frame_times), gone)
    assert abs(frame_times[0] - start_ms) <= 1 and abs(frame_times[-1] - end_ms) <= 1, (frame_times[:2], frame_times[-2:], start_ms, end_ms)
    first = next(packet for packet in found["packets"] if packet is not None)
    assert first[1], "the replay does not start at a key frame"
    node.wait_until(lambda: not list((tmp_path / "store" / ".archive-fetch").glob("*/*")), timeout=60,
                    what="the fetched copies removed once the replay ended")


def test_the_uplink_answers_an_evicted_range_from_the_archive(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    port = free_port()

    async def scenario():
        peer = EdgePeer(port, client_config={"videoChunkDurationMs": 2000})
        await peer.start()
        try:
            node = make_node(*archive_args(radosgw, bucket, "edge/"), "--cap-mb", "0.25", "--uplink", f"ws://127.0.0.1:{port}/",
                             store=tmp_path / "store", env={**archive_env(radosgw), "ALLSPARK_UPLINK_TIME_REFERENCE": "node"})
            await peer.wait_for(lambda: peer.client_names, timeout=30, what="clientInfo")
            deadline = time.time() + 120
            while True:
                ring = {chunk["file"] for chunk in node.chunks()}
                gone = [m for m in manifests(s3, bucket, "edge/") if m["chunkFile"] not in ring]
                if gone:
                    break
                assert time.time() < deadline, "no archived chunk was evicted"
                await asyncio.sleep(1)
            target = gone[0]
            await peer.command({"command": "uploadTimeRange", "message": "",
                                "startTime": target["firstFrameMs"] / 1000, "endTime": target["lastFrameMs"] / 1000})
            await peer.wait_for(lambda: target["timestampsFile"] in peer.uploads, timeout=60, what="the archived chunk uploaded")
            return target, dict(peer.uploads)
        finally:
            await peer.stop()

    target, uploads = asyncio.run(scenario())
    assert uploads[target["chunkFile"]] == s3.get_object(Bucket=bucket, Key="edge/" + target["chunkFile"])["Body"].read()


@pytest.mark.parametrize("problem", ["wrong secret", "missing bucket"])
def test_bad_credentials_or_a_missing_bucket_are_reported_and_recording_goes_on(make_node, radosgw, bucket, problem):
    secret = "not-the-secret-" + uuid.uuid4().hex
    target = bucket if problem == "wrong secret" else bucket + "-missing"
    env = archive_env(radosgw, secret=secret if problem == "wrong secret" else None)
    node = make_node(*archive_args(radosgw, target, "bad/"), env=env)
    node.wait_until(lambda: archive_status(node)["uploadFailures"] >= 1, timeout=60, what="a failed upload")
    written = node.json("/api/status")[1]["recorder"]["chunksWritten"]
    code, health = node.json("/api/health")
    assert code == 200 and health["status"] == "degraded"
    expected = "SignatureDoesNotMatch" if problem == "wrong secret" else "NoSuchBucket"
    assert any(expected in text for text in health["problems"]), health["problems"]
    assert archive_status(node)["configurationProblem"] is True
    node.wait_until(lambda: node.json("/api/status")[1]["recorder"]["chunksWritten"] >= written + 2, what="recording goes on")
    log = node.log_path.read_text()
    assert expected in log and secret not in log and radosgw.secret_key not in log
    assert secret not in json.dumps(node.json("/api/config")[1])
    # Stopped, it does not wait out the shutdown grace for a bucket that fails: it says what is left.
    assert node.stop() == 0
    assert "not yet archived (the bucket is failing); the next start sends them" in node.log_path.read_text()


def test_archived_chunks_past_max_age_days_go_from_the_bucket_and_held_ones_stay(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    max_age_days = 0.0002  # 17.3 s
    store = tmp_path / "store"
    env = archive_env(radosgw, ALLSPARK_ARCHIVE_MAX_AGE_DAYS=str(max_age_days))
    node = make_node(*archive_args(radosgw, bucket, "aged/"), store=store, chunk_ms=1000, env=env)
    # Another node's objects, as old as can be: never this node's to delete.
    foreign = "other/manifests/1000000000.000.json"
    s3.put_object(Bucket=bucket, Key=foreign, Body=b"{}")
    node.wait_until(lambda: archive_status(node)["chunksArchived"] >= 3, timeout=90, what="3 chunks archived")
    first, second = [m for m in sorted(manifests(s3, bucket, "aged/"), key=lambda m: m["firstFrameMs"])][:2]
    # One hold on the node itself, one in the bucket's holds record (as `fleet hold` leaves for a node that is down).
    code, placed = node.json("/api/holds", method="POST",
                             body={"start": first["firstFrameMs"] / 1000, "end": (first["lastFrameMs"] + 1) / 1000, "reason": "local"})
    assert code == 201, placed
    bucket_hold = {"id": "hold-bucket", "startMs": second["firstFrameMs"], "endMs": second["lastFrameMs"] + 1,
                   "reason": "fleet hold while down", "createdMs": int(time.time() * 1000)}
    s3.put_object(Bucket=bucket, Key="aged/holds.json",
                  Body=json.dumps({"format": "allspark-holds/1", "holds": [bucket_hold]}).encode())

    node.wait_until(lambda: archive_status(node)["deletedByAge"]["chunksDeleted"] >= 3, timeout=150, what="archived chunks deleted for age")
    status = archive_status(node)["deletedByAge"]
    assert status["lastDeletionMs"] and status["lastDeletedFiles"] and status["bytesDeleted"] > 0
    remaining = {m["chunkFile"]: m for m in manifests(s3, bucket, "aged/")}
    assert first["chunkFile"] in remaining and second["chunkFile"] in remaining, "held chunks stay in the bucket"
    objects = set(keys(s3, bucket, "aged/"))
    for name in status["lastDeletedFiles"]:
        assert name not in remaining and f"aged/{name}" not in objects
        assert f"aged/{name.replace('chunk_', 'timestamps_').rsplit('.', 1)[0]}.txt" not in objects
    # Nothing past the limit (and a pass's 10 s, and a margin) is left but held chunks.
    cutoff_ms = time.time() * 1000 - max_age_days * 86_400_000 - 10_000 - 10_000
    assert not [m["chunkFile"] for m in remaining.values()
                if m["lastFrameMs"] < cutoff_ms and m["chunkFile"] not in (first["chunkFile"], second["chunkFile"])]
    assert foreign in keys(s3, bucket, "other/")
    metrics = node.request("/metrics")[2].decode()
    assert any(line.startswith("allspark_archive_deleted_by_age_total ") and float(line.split()[1]) >= 3 for line in metrics.splitlines())

    config = tmp_path / "cli.yaml"
    config.write_text(f"store: {store}\narchive:\n  endpoint: {radosgw.endpoint}\n  bucket: {bucket}\n  prefix: aged/\n  maxAgeDays: {max_age_days}\n")
    cli = run_cli("archive", "status", "--config", str(config), env=archive_env(radosgw))
    assert cli.returncode == 0, cli.stderr
    assert "deleted by age (archive.maxAgeDays" in cli.stdout and "last at" in cli.stdout, cli.stdout
