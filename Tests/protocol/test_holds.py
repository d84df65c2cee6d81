"""Holds (evidence locks) and the age limit on a real node: a held range outlives the cap
turning over and a lowered cap, kill -9 and a restart; the share limit refuses what would
pass it; a torn holds file stops the node; the CLI places and releases holds while the node
records; chunks past the age limit go, held ones stay."""
import json
import os
import signal
import subprocess
import time

from node_harness import NODE_BIN, REPO

TOKEN = "holds-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def cli(*arguments, env=None):
    """The command line as an operator runs it: with the node's configuration (here its environment)."""
    return subprocess.run([str(NODE_BIN), *arguments], capture_output=True, text=True, cwd=REPO, timeout=60,
                          env={**os.environ, "ALLSPARK_CONFIG": "/dev/null", **(env or {})})


def status(node):
    return node.json("/api/status", headers=AUTH)[1]["store"]


def metric(node, name):
    text = node.request("/metrics", headers=AUTH)[2].decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def place(node, start_ms, end_ms, reason="incident", **extra):
    body = {"start": start_ms / 1000, "end": end_ms / 1000, "reason": reason, **extra}
    return node.json("/api/holds", method="POST", body=body, headers=AUTH)


def test_a_held_range_outlives_the_ring_a_lower_cap_and_kill_9_and_goes_when_released(make_node, tmp_path):
    store = tmp_path / "store"
    env = {"ALLSPARK_VIDEO_BUFFER_MAX_MB": "2"}
    # A busy picture, so that the cap turns over in seconds.
    node = make_node("--token", TOKEN, store=store, chunk_ms=1000, size="640x480", env=env)
    node.wait_healthy(headers=AUTH)
    first = node.wait_for_chunks(3, headers=AUTH)[:2]

    # Bad requests are named.
    assert node.request("/api/holds", method="POST", body={"start": 1, "end": 2, "reason": "x"})[0] == 401
    assert node.json("/api/holds", method="POST", body=[1, 2], headers=AUTH)[0] == 400
    code, answer = place(node, 2000, 1000)
    assert code == 400 and "start must be before end" in answer["message"]
    code, answer = node.json("/api/holds", method="POST", body={"start": 1, "end": 2}, headers=AUTH)
    assert code == 400 and "reason" in answer["message"]
    code, answer = node.json("/api/holds/hold-000000000000", method="DELETE", headers=AUTH)
    assert code == 404 and "no hold with id" in answer["message"]

    code, placed = place(node, first[0]["startMs"], first[1]["endMs"] + 1, reason="incident 7: forklift")
    assert code == 201, placed
    hold_id = placed["hold"]["id"]
    assert placed["chunks"] == [chunk["file"] for chunk in first]
    held_files = set(placed["chunks"])
    listed = node.json("/api/holds", headers=AUTH)[1]
    assert [hold["id"] for hold in listed["holds"]] == [hold_id] and listed["heldBytes"] > 0
    listing = {chunk["file"]: chunk["holds"] for chunk in node.chunks(headers=AUTH)}
    assert all(listing[name] == [hold_id] for name in held_files)

    # A cap lowered to a third of what it was, then filled several times over.
    cap_bytes = status(node)["capBytes"]
    code, answer = node.json("/api/config", method="PUT", body={"videoBufferMaxMB": 0.7}, headers=AUTH)
    assert code == 200, answer
    lowered = status(node)["capBytes"]
    evicted_before = status(node)["chunksEvictedByCap"]
    node.wait_until(lambda: sum(c["bytes"] for c in node.chunks(headers=AUTH) if c["file"] not in held_files)
                    and metric(node, "allspark_evicted_by_cap_bytes_total") > 3 * lowered,
                    timeout=240, what="the lowered cap turned over three times")
    names = {chunk["file"] for chunk in node.chunks(headers=AUTH)}
    assert held_files <= names
    store_status = status(node)
    assert store_status["peakBytes"] <= cap_bytes and store_status["usedBytes"] <= lowered
    assert store_status["chunksEvictedByCap"] > evicted_before and store_status["heldChunks"] == 2

    # kill -9: the hold is on disk, and the restarted node keeps it.
    node.process.send_signal(signal.SIGKILL)
    node.process.wait()
    restarted = make_node("--token", TOKEN, store=store, chunk_ms=1000, size="640x480", env=env)
    restarted.wait_healthy(headers=AUTH)
    assert [hold["id"] for hold in restarted.json("/api/holds", headers=AUTH)[1]["holds"]] == [hold_id]
    assert held_files <= {chunk["file"] for chunk in restarted.chunks(headers=AUTH)}
    listed = json.loads(cli("chunks", "--store", str(store), "--json").stdout)
    assert {chunk["file"] for chunk in listed if chunk["holds"] == [hold_id]} == held_files

    # Released through the CLI while the node records: the ring takes the chunks again.
    released = cli("hold", "release", hold_id, "--store", str(store))
    assert released.returncode == 0 and f"released {hold_id}" in released.stdout, released.stderr
    # (The environment's cap is back in force after the restart: a lower one takes the oldest chunks at once.)
    code, answer = restarted.json("/api/config", method="PUT", body={"videoBufferMaxMB": 0.5}, headers=AUTH)
    assert code == 200, answer
    restarted.wait_until(lambda: not held_files & {chunk["file"] for chunk in restarted.chunks(headers=AUTH)},
                         timeout=60, what="the released chunks evicted")
    assert restarted.json("/api/holds", headers=AUTH)[1]["holds"] == []


def test_the_share_limit_refuses_a_hold_that_would_pass_it_and_the_cli_holds_while_the_node_records(make_node, tmp_path):
    store = tmp_path / "store"
    env = {"ALLSPARK_VIDEO_BUFFER_MAX_MB": "1"}
    node = make_node("--token", TOKEN, store=store, chunk_ms=1000, env=env)
    node.wait_healthy(headers=AUTH)
    chunks = node.wait_for_chunks(3, headers=AUTH)
    now_ms = int(time.time() * 1000)
    # The next hour at the current bitrate is far more than half of 1 MiB.
    code, answer = place(node, now_ms, now_ms + 3_600_000, reason="planned experiment")
    assert code == 409, answer
    assert "the hold needs" in answer["message"] and "videoBufferMaxHeldShare 0.5" in answer["message"]
    assert answer["expectedBytes"] > answer["limitBytes"] == 512 * 1024
    assert node.json("/api/holds", headers=AUTH)[1]["holds"] == []

    # The CLI with the node running: a hold of the next 3 s (in the future when placed).
    start = time.time() + 1
    added = cli("hold", "add", str(start), str(start + 3), "--reason", "cli test", "--store", str(store), "--json", env=env)
    assert added.returncode == 0, added.stderr
    hold = json.loads(added.stdout)
    assert hold["chunks"] == 0 and hold["expectedBytes"] > 0
    listed = json.loads(cli("hold", "list", "--store", str(store), "--json").stdout)
    assert [entry["id"] for entry in listed] == [hold["id"]]
    assert [entry["id"] for entry in node.json("/api/holds", headers=AUTH)[1]["holds"]] == [hold["id"]]
    refused = cli("hold", "add", str(chunks[0]["startTime"]), str(start + 3600), "--reason", "too much", "--store", str(store), env=env)
    assert refused.returncode != 0 and "the hold needs" in refused.stderr
    node.wait_until(lambda: any(c["holds"] == [hold["id"]] for c in node.chunks(headers=AUTH)),
                    timeout=60, what="a chunk recorded into the future hold")


def test_a_torn_holds_file_stops_the_node_with_the_file_named(make_node, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / ".allspark-holds.json").write_text('{"format": "allspark-holds/1", "holds": [{"id": "hold-1", "sta')
    node = make_node(store=store)
    assert node.process.wait(timeout=60) != 0
    log = node.log_path.read_text()
    assert "holds file" in log and ".allspark-holds.json" in log and "will not run without knowing its holds" in log
    assert cli("hold", "list", "--store", str(store)).returncode != 0


def test_chunks_past_the_age_limit_go_and_held_ones_stay(make_node, tmp_path):
    max_age_hours = 0.004  # 14.4 s
    node = make_node("--token", TOKEN, chunk_ms=1000,
                     env={"ALLSPARK_VIDEO_BUFFER_MAX_AGE_HOURS": str(max_age_hours), "ALLSPARK_VIDEO_BUFFER_MAX_MB": "64"})
    node.wait_healthy(headers=AUTH)
    first = node.wait_for_chunks(2, headers=AUTH)[0]
    code, placed = place(node, first["startMs"], first["endMs"] + 1, reason="keep the first second")
    assert code == 201, placed
    node.wait_until(lambda: metric(node, "allspark_chunks_evicted_by_age_total") >= 3, timeout=120, what="chunks deleted for age")
    # Age passes run every 10 s: a chunk is gone at most that long after crossing the limit.
    limit_ms = max_age_hours * 3_600_000
    cutoff_ms = time.time() * 1000 - limit_ms - 10_000 - 5_000
    chunks = node.chunks(headers=AUTH)
    assert chunks[0]["file"] == first["file"] and chunks[0]["holds"] == [placed["hold"]["id"]]
    assert not [c["file"] for c in chunks[1:] if c["endMs"] < cutoff_ms]
    assert metric(node, "allspark_evicted_by_age_bytes_total") > 0
    assert metric(node, "allspark_chunks_evicted_by_cap_total") == 0
    listed = node.json("/api/holds", headers=AUTH)[1]
    assert listed["maxAgeHours"] == max_age_hours and listed["nextAgeDeletion"]["file"] != first["file"]
