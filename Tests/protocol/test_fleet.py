"""The fleet: nodes register themselves in the archive bucket (node.json) and on mDNS;
`fleet list` merges the two by node id, and `fleet fetch` pulls one time range from every
node (live nodes over their API, the rest and what rings evicted from the bucket), byte for
byte, and names every gap with its reason. Real nodes, a real radosgw and a real
avahi-daemon (loopback only)."""
import hashlib
import json
import os
import subprocess
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from media_checks import assert_every_reader_agrees, ffprobe_duration_and_frames
from node_harness import NODE_BIN, REPO, free_port

# pytest-xdist (scripts/test.sh, --dist loadgroup): one avahi-daemon for the machine: its services and browses are shared.
pytestmark = pytest.mark.xdist_group("avahi")

SMALL = dict(size="160x90", fps=5, chunk_ms=2000)
REASONS = {"node down", "not recorded", "evicted before archiving", "no archive", "fetch failed"}


@pytest.fixture(scope="module", autouse=True)
def avahi_daemon():
    subprocess.run(["bash", str(REPO / "scripts/start-avahi.sh")], check=True, capture_output=True)


@pytest.fixture
def bucket(radosgw):
    name = f"fleet-{uuid.uuid4().hex[:12]}"
    radosgw.s3().create_bucket(Bucket=name)
    return name


def archive_env(radosgw, **extra):
    return {"AWS_ACCESS_KEY_ID": radosgw.access_key, "AWS_SECRET_ACCESS_KEY": radosgw.secret_key, **extra}


def start_node(make_node, radosgw, bucket, tmp_path, name, *extra, announce=False, store=None, **kwargs):
    env = archive_env(radosgw, ALLSPARK_UPLINK_NAME=name, ALLSPARK_SERVER_ANNOUNCE="true" if announce else "false")
    options = {**SMALL, **kwargs}
    return make_node("--archive-endpoint", radosgw.endpoint, "--archive-bucket", bucket, "--archive-prefix", f"{name}/",
                     *extra, store=store or tmp_path / name, env=env, **options)


def fleet_command(radosgw, bucket, *arguments, endpoint=None):
    """`allspark-node fleet ARGUMENTS` against the bucket: the command line and its environment."""
    return ([str(NODE_BIN), "fleet", *arguments, "--config", "/dev/null", "--archive-endpoint", endpoint or radosgw.endpoint,
             "--archive-bucket", bucket], {**os.environ, **archive_env(radosgw)})


def fleet(radosgw, bucket, *arguments, endpoint=None, timeout=180):
    command, env = fleet_command(radosgw, bucket, *arguments, endpoint=endpoint)
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=timeout)


def keys(s3, bucket, prefix):
    return sorted(item["Key"] for item in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []))


def archived(node):
    return node.json("/api/status")[1]["archive"]["chunksArchived"]


def record(radosgw, bucket, name):
    """The node's node.json, None while there is none."""
    s3 = radosgw.s3()
    try:
        return json.loads(s3.get_object(Bucket=bucket, Key=f"{name}/node.json")["Body"].read())
    except s3.exceptions.NoSuchKey:
        return None


def covered_or_named(node_report, start_ms, end_ms, tolerance_ms=1000):
    """Every millisecond of the range is in a fetched chunk or a named gap."""
    spans = sorted([(c["startMs"], c["endMs"]) for c in node_report["chunks"]]
                   + [(g["startMs"], g["endMs"]) for g in node_report["gaps"]])
    cursor = start_ms
    for first, last in spans:
        assert first - cursor <= tolerance_ms, f"{node_report['name']}: {cursor}..{first} is neither fetched nor a named gap"
        cursor = max(cursor, last)
    assert end_ms - cursor <= tolerance_ms, f"{node_report['name']}: {cursor}..{end_ms} is neither fetched nor a named gap"


def test_node_json_is_written_and_says_stopped_at_shutdown(make_node, radosgw, bucket, tmp_path):
    node = start_node(make_node, radosgw, bucket, tmp_path, "reg-101")
    node.wait_healthy()
    node.wait_until(lambda: archived(node) >= 2, timeout=60, what="2 chunks archived")
    written = node.wait_until(lambda: record(radosgw, bucket, "reg-101"), what="node.json")
    node_id = (tmp_path / "reg-101" / ".allspark-node-id").read_text().strip()
    assert written["id"] == node_id and written["name"] == "reg-101" and written["state"] == "running"
    assert f"http://127.0.0.1:{node.port}" in written["apiURLs"]
    assert written["archivePrefix"] == "reg-101/" and written["version"]
    assert "token" not in json.dumps(written).lower()
    fleet_copy = json.loads(radosgw.s3().get_object(Bucket=bucket, Key=f"allspark-fleet/{node_id}.json")["Body"].read())
    assert fleet_copy["id"] == node_id
    _, health = node.json("/api/health")
    assert health["node"] == {"id": node_id, "name": "reg-101"}
    node.stop()
    stopped = record(radosgw, bucket, "reg-101")
    assert stopped["state"] == "stopped" and stopped["lastSeenMs"] >= written["lastSeenMs"]
    assert stopped["ring"]["lastMs"] >= stopped["archive"]["lastMs"] >= stopped["archive"]["firstMs"]
    # The id survives a restart (and a rename).
    again = start_node(make_node, radosgw, bucket, tmp_path, "reg-102", store=tmp_path / "reg-101")
    again.wait_healthy()
    renamed = again.wait_until(lambda: (r := record(radosgw, bucket, "reg-102")) and r, what="the renamed node's record")
    assert renamed["id"] == node_id and len(renamed["runs"]) == 1


def test_fleet_list_merges_a_node_found_by_mdns_with_its_bucket_record(make_node, radosgw, bucket, tmp_path):
    announced = start_node(make_node, radosgw, bucket, tmp_path, "lista-201", announce=True)
    silent = start_node(make_node, radosgw, bucket, tmp_path, "listb-202")
    for node in (announced, silent):
        node.wait_healthy()
        node.wait_until(lambda: record(radosgw, bucket, node.store.name), what="node.json")
    silent.stop()

    def listed():
        result = fleet(radosgw, bucket, "list", "--json")
        assert result.returncode == 0, result.stderr
        nodes = [n for n in json.loads(result.stdout)["nodes"] if n["name"] in ("lista-201", "listb-202")]
        a = [n for n in nodes if n["name"] == "lista-201"]
        return len(nodes) == 2 and a and a[0]["foundBy"] == ["mdns", "bucket"] and nodes

    nodes = announced.wait_until(listed, timeout=40, what="lista-201 found by mDNS and in the bucket, merged")
    by_name = {node["name"]: node for node in nodes}
    a_id = (tmp_path / "lista-201" / ".allspark-node-id").read_text().strip()
    assert by_name["lista-201"]["id"] == a_id and by_name["lista-201"]["live"]["url"].endswith(f":{announced.port}")
    assert by_name["lista-201"]["record"]["state"] == "running" and by_name["lista-201"]["record"]["apiURLs"] == [f"http://127.0.0.1:{announced.port}"]
    assert by_name["listb-202"]["foundBy"] == ["bucket"] and "live" not in by_name["listb-202"]
    # Issue 41: a plain online/offline field per node, for scripts.
    assert by_name["lista-201"]["online"] is True and by_name["listb-202"]["online"] is False
    assert by_name["listb-202"]["record"]["state"] == "stopped"
    text = fleet(radosgw, bucket, "list").stdout
    assert "lista-201" in text and "online at" in text and "offline, last seen" in text


def anchor_fingerprint(pem):
    """openssl's SHA-256 fingerprint of a PEM certificate: the form the node reports."""
    printed = subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256"], input=pem, capture_output=True, text=True, check=True)
    return printed.stdout.strip().split("=", 1)[1]


def test_fetch_three_nodes_one_stopped_one_evicting(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    live = start_node(make_node, radosgw, bucket, tmp_path, "live-301", announce=True)
    stopped = start_node(make_node, radosgw, bucket, tmp_path, "stopped-302")
    # A small ring (about 15 s of this picture) that evicts: what it let go comes from the
    # bucket, what it holds from the node.
    evicting = start_node(make_node, radosgw, bucket, tmp_path, "evicting-303", "--cap-mb", "0.25", size="160x120", fps=10)
    for node in (live, stopped, evicting):
        node.wait_healthy()
    start_ms = int(time.time() * 1000)
    stopped.wait_until(lambda: archived(stopped) >= 4, timeout=90, what="4 chunks archived")
    stopped.stop()
    stopped_ms = int(time.time() * 1000)

    def evicted_and_archived():
        ring = {chunk["file"] for chunk in evicting.chunks()}
        keys = [item["Key"] for item in s3.list_objects_v2(Bucket=bucket, Prefix="evicting-303/manifests/").get("Contents", [])]
        names = [json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read()) for key in keys]
        return len([m for m in names if m["chunkFile"] not in ring and m["firstFrameMs"] >= start_ms]) >= 2

    evicting.wait_until(evicted_and_archived, timeout=150, what="2 archived chunks evicted")
    end_ms = int(time.time() * 1000)
    out = tmp_path / "out"
    result = fleet(radosgw, bucket, "fetch", "--from", str(start_ms / 1000), "--to", str(end_ms / 1000), "--out", str(out),
                   "--nodes", "live-301,stopped-302,evicting-303")
    manifest = json.loads((out / "manifest.json").read_text())
    reports = {node["name"]: node for node in manifest["nodes"]}
    assert set(reports) == {"live-301", "stopped-302", "evicting-303"}, result.stdout + result.stderr

    anchors = {name: anchor_fingerprint(json.loads(s3.get_object(Bucket=bucket, Key=f"{name}/node.json")["Body"].read())["signingAnchorPEM"])
               for name in reports}
    # Byte-identical: live chunks with the node's store, the rest with the bucket's objects.
    for name, node in (("live-301", live), ("stopped-302", stopped), ("evicting-303", evicting)):
        report = reports[name]
        assert report["chunks"], f"{name}: nothing fetched\n{result.stdout}{result.stderr}"
        for chunk in report["chunks"]:
            for file in (chunk["file"], chunk["timestampsFile"]):
                fetched = (out / report["folder"] / file).read_bytes()
                local = node.store / file
                if chunk["source"] == "bucket":
                    assert fetched == s3.get_object(Bucket=bucket, Key=f"{name}/{file}")["Body"].read()
                elif local.exists():
                    assert fetched == local.read_bytes()
            if chunk.get("sha256"):
                assert hashlib.sha256((out / report["folder"] / chunk["file"]).read_bytes()).hexdigest() == chunk["sha256"]
            # Issue 32: every chunk a node recorded, from the node or the bucket, verifies;
            # issue 38: against the trust anchor its node.json carries, nobody handing it out.
            assert chunk["signature"]["status"] == "valid", f"{name}: {chunk}"
            assert chunk["signature"]["anchor"] == anchors[name], f"{name}: {chunk}"
        assert not list((out / report["folder"]).glob("*.part"))
        for gap in report["gaps"]:
            assert gap["reason"] in REASONS and gap["detail"]
        covered_or_named(report, start_ms, end_ms)
    assert reports["live-301"]["state"] == "online" and reports["stopped-302"]["state"] == "offline"
    assert {c["source"] for c in reports["stopped-302"]["chunks"]} == {"bucket"}
    assert "bucket" in {c["source"] for c in reports["evicting-303"]["chunks"]}
    assert "node" in {c["source"] for c in reports["evicting-303"]["chunks"]}
    # Every chunk the stopped node archived in the range was fetched; after its stop it was down.
    stopped_id = (stopped.store / ".allspark-node-id").read_text().strip()
    assert reports["stopped-302"]["id"] == stopped_id
    assert reports["stopped-302"]["gaps"][-1]["reason"] == "node down"
    # Each node's clock state is in the manifest; CI's clock is not synchronised, and that is said.
    for report in reports.values():
        assert "clockWarning" in report or report.get("clock", {}).get("synchronized")
    # The exit code says whether everything that exists was fetched.
    assert (result.returncode == 0) == manifest["complete"], result.stdout + result.stderr
    assert manifest["complete"] or manifest["problems"]

    # A re-run finds every file whole and rewrites nothing.
    before = {path: path.stat().st_mtime_ns for path in out.rglob("chunk_*")}
    again = fleet(radosgw, bucket, "fetch", "--from", str(start_ms / 1000), "--to", str(end_ms / 1000), "--out", str(out),
                  "--nodes", "live-301,stopped-302,evicting-303")
    assert again.returncode == result.returncode
    assert all(path.stat().st_mtime_ns == mtime for path, mtime in before.items())

    # One hold on all three: the running nodes hold it themselves, the stopped one in the bucket.
    held = fleet(radosgw, bucket, "hold", str(start_ms / 1000), str(stopped_ms / 1000), "--reason", "incident 9",
                 "--nodes", "live-301,stopped-302,evicting-303", "--json")
    assert held.returncode == 0, held.stdout + held.stderr
    hold = json.loads(held.stdout)
    outcomes = {node["name"]: node for node in hold["nodes"]}
    assert {name: node["outcome"] for name, node in outcomes.items()} == {
        "live-301": "held", "stopped-302": "heldInBucket", "evicting-303": "held"}, held.stdout
    assert outcomes["live-301"]["bytes"] > 0 and outcomes["stopped-302"]["bytes"] > 0
    bucket_holds = json.loads(s3.get_object(Bucket=bucket, Key=f"stopped-302/holds/{hold['holdID']}.json")["Body"].read())
    assert [h["id"] for h in bucket_holds["holds"]] == [hold["holdID"]]
    assert f"stopped-302/holds/{hold['holdID']}.json" in outcomes["stopped-302"]["detail"]
    for node in (live, evicting):
        assert [h["id"] for h in node.json("/api/holds")[1]["holds"]] == [hold["holdID"]], node.json("/api/holds")[1]["holds"]
    # The evicting node's ring keeps what it still had of the span, whatever its cap does next.
    kept = {c["file"] for c in evicting.chunks() if c["holds"] == [hold["holdID"]]}
    evicted = evicting.json("/api/status")[1]["store"]["chunksEvictedByCap"]
    turnover = len(evicting.chunks())
    evicting.wait_until(lambda: evicting.json("/api/status")[1]["store"]["chunksEvictedByCap"] >= evicted + turnover, timeout=120,
                        what="the evicting node's cap turning over")
    assert kept <= {c["file"] for c in evicting.chunks()}


def evicted_by_cap(node):
    return node.json("/api/status")[1]["store"]["chunksEvictedByCap"]


def test_a_node_back_after_a_fleet_hold_takes_it_into_its_ring_and_keeps_its_chunks_past_the_cap(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    # A ring of about 15 s of this picture: what it had when it stopped is gone within 15 s of its start, unless held.
    ring = dict(size="160x120", fps=10)
    node = start_node(make_node, radosgw, bucket, tmp_path, "back-501", "--cap-mb", "0.25", **ring)
    node.wait_healthy()
    node.wait_until(lambda: evicted_by_cap(node) >= 1 and archived(node) >= 3, timeout=120, what="a full ring, 3 chunks archived")
    chunks = node.chunks()
    held, legacy = chunks[-1], chunks[-3]
    node.stop()

    result = fleet(radosgw, bucket, "hold", str(held["startMs"] / 1000), str((held["endMs"] + 1) / 1000), "--reason", "incident 51",
                   "--nodes", "back-501", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    hold_id = report["holdID"]
    assert [n["outcome"] for n in report["nodes"]] == ["heldInBucket"], result.stdout
    assert keys(s3, bucket, "back-501/holds/") == [f"back-501/holds/{hold_id}.json"]
    # A hold in the single record older versions of `fleet hold` wrote is taken as well.
    s3.put_object(Bucket=bucket, Key="back-501/holds.json", Body=json.dumps({"format": "allspark-holds/1", "holds": [
        {"id": "hold-legacy", "startMs": legacy["startMs"], "endMs": legacy["endMs"] + 1, "reason": "an older fleet hold",
         "createdMs": int(time.time() * 1000)}]}).encode())

    back = start_node(make_node, radosgw, bucket, tmp_path, "back-501", "--cap-mb", "0.25", **ring)
    back.wait_healthy()
    holds = {h["id"]: h for h in back.json("/api/holds")[1]["holds"]}
    assert set(holds) == {hold_id, "hold-legacy"}, holds
    assert holds[hold_id]["reason"] == "incident 51"
    assert abs(holds[hold_id]["startMs"] - held["startMs"]) <= 1 and abs(holds[hold_id]["endMs"] - held["endMs"] - 1) <= 1
    log = back.log_path.read_text()
    assert f"hold {hold_id} (incident 51), put in {bucket}/back-501/holds/{hold_id}.json by fleet hold, is taken into the ring" in log
    # Taken: the waiting object goes, a record says which node took it; the old record is left as it was.
    assert keys(s3, bucket, "back-501/holds/") == []
    assert keys(s3, bucket, "back-501/holds-taken/") == [f"back-501/holds-taken/{hold_id}.json", "back-501/holds-taken/hold-legacy.json"]
    taken = json.loads(s3.get_object(Bucket=bucket, Key=f"back-501/holds-taken/{hold_id}.json")["Body"].read())
    assert taken["node"] == "back-501" and taken["hold"]["id"] == hold_id
    assert b"hold-legacy" in s3.get_object(Bucket=bucket, Key="back-501/holds.json")["Body"].read()

    # The ring keeps the held chunks while the cap turns everything else over.
    on_restart = back.chunks()
    kept = {c["file"]: c["holds"] for c in on_restart if c["holds"]}
    assert kept == {held["file"]: [hold_id], legacy["file"]: ["hold-legacy"]}, kept
    evicted = evicted_by_cap(back)
    back.wait_until(lambda: evicted_by_cap(back) >= evicted + len(on_restart), timeout=120, what="the cap turning the ring over")
    now = {c["file"] for c in back.chunks()}
    assert {held["file"], legacy["file"]} <= now
    assert not {c["file"] for c in on_restart if not c["holds"]} & now, "the ring did turn over"
    assert len(back.json("/api/holds")[1]["holds"]) == 2, "the minute's passes place nothing twice"


def test_fleet_holds_run_at_once_for_a_stopped_node_lose_none(make_node, radosgw, bucket, tmp_path):
    s3 = radosgw.s3()
    node = start_node(make_node, radosgw, bucket, tmp_path, "pair-511")
    node.wait_healthy()
    node.wait_until(lambda: archived(node) >= 2, timeout=90, what="2 chunks archived")
    chunks = node.chunks()
    node.stop()
    start, end = str(chunks[0]["startMs"] / 1000), str((chunks[-1]["endMs"] + 1) / 1000)
    # Four processes started together: each waits the same mDNS window, then writes the bucket.
    runs = []
    for number in range(4):
        command, env = fleet_command(radosgw, bucket, "hold", start, end, "--reason", f"incident 6{number}", "--nodes", "pair-511", "--json")
        runs.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO))
    reports = []
    for run in runs:
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, out + err
        reports.append(json.loads(out))
    assert all([n["outcome"] for n in report["nodes"]] == ["heldInBucket"] for report in reports), reports
    ids = {report["holdID"] for report in reports}
    assert len(ids) == 4
    assert keys(s3, bucket, "pair-511/holds/") == sorted(f"pair-511/holds/{hold_id}.json" for hold_id in ids)

    back = start_node(make_node, radosgw, bucket, tmp_path, "pair-511")
    back.wait_healthy()
    holds = back.json("/api/holds")[1]["holds"]
    assert {h["id"] for h in holds} == ids and {h["reason"] for h in holds} == {f"incident 6{n}" for n in range(4)}
    assert keys(s3, bucket, "pair-511/holds/") == []
    assert all(set(c["holds"]) == ids for c in back.chunks() if c["file"] in {chunk["file"] for chunk in chunks})


def publish(name, port, node_id):
    """Announces a service as a node would, with its id in the TXT record."""
    return subprocess.Popen(["avahi-publish", "-s", name, "_allspark-node._tcp", str(port), f"id={node_id}", f"name={name}",
                             "version=test", "api=/api", "tls=off"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class StandInNode:
    """An HTTP server announced on mDNS as a node, for what no real node does on purpose.
    `answer(path, headers)` gives the body of a GET (sent as 200), or None to send nothing."""

    def __init__(self, name, answer):
        self.id = str(uuid.uuid4())

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = answer(self.path, self.headers)
                if body is None:
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.publisher = publish(name, self.port, self.id)

    def health(self, name):
        return json.dumps({"status": "ok", "node": {"id": self.id, "name": name}}).encode()

    def close(self):
        self.publisher.kill()
        self.publisher.wait()
        self.server.shutdown()


class FaultyNode(StandInNode):
    """Stands in for a broken node: its health is a node's, its chunk listing is `garbage`
    or never comes (`stall`)."""

    def __init__(self, mode):
        self.release = threading.Event()

        def answer(path, headers):
            if path.startswith("/api/health"):
                return self.health(f"{mode}-900")
            if mode == "stall":
                self.release.wait(120)
                return None
            return b"<html>\x00\xff not json"

        super().__init__(f"{mode}-900", answer)

    def close(self):
        self.release.set()
        super().close()


def test_bad_input_is_refused_with_a_clear_error(radosgw, bucket, tmp_path):
    backwards = fleet(radosgw, bucket, "fetch", "--from", "2000", "--to", "1000", "--out", str(tmp_path / "a"), "--no-mdns")
    assert backwards.returncode != 0 and "backwards" in backwards.stderr
    unknown = fleet(radosgw, bucket, "fetch", "--from", "1000", "--to", "2000", "--out", str(tmp_path / "b"), "--no-mdns",
                    "--nodes", "no-such-node")
    assert unknown.returncode != 0 and "unknown node: no-such-node" in unknown.stderr
    bad_time = fleet(radosgw, bucket, "fetch", "--from", "yesterday", "--to", "2000", "--out", str(tmp_path / "c"), "--no-mdns")
    assert bad_time.returncode != 0 and "--from must be epoch seconds or an ISO 8601 time" in bad_time.stderr
    tokens = tmp_path / "tokens"
    tokens.write_text("cam-101 s3cret\n")
    bad_tokens = fleet(radosgw, bucket, "fetch", "--from", "1000", "--to", "2000", "--out", str(tmp_path / "d"), "--no-mdns",
                       "--tokens", str(tokens))
    assert bad_tokens.returncode != 0 and "line 1: expected `name: token`" in bad_tokens.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_an_unreachable_bucket_a_garbage_node_and_a_stalled_node_fail_clearly(make_node, radosgw, bucket, tmp_path):
    live = start_node(make_node, radosgw, bucket, tmp_path, "alive-401", announce=True)
    live.wait_healthy()
    live.wait_for_chunks(3)
    garbage, stall = FaultyNode("garbage"), FaultyNode("stall")
    try:
        end = time.time()
        out = tmp_path / "out"
        # Nothing listens on this port: the bucket cannot be reached; mDNS still finds the nodes.
        result = fleet(radosgw, bucket, "fetch", "--from", str(end - 30), "--to", str(end), "--out", str(out),
                       "--nodes", "alive-401,garbage-900,stall-900", endpoint=f"http://127.0.0.1:{free_port()}")
    finally:
        garbage.close()
        stall.close()
    assert result.returncode == 1, result.stdout + result.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["bucket"]["error"] and not manifest["complete"]
    assert any(problem.startswith("the bucket could not be read") for problem in manifest["problems"])
    reports = {node["name"]: node for node in manifest["nodes"]}
    # The live node is fetched all the same, byte for byte.
    assert reports["alive-401"]["chunks"]
    for chunk in reports["alive-401"]["chunks"]:
        assert (out / "alive-401" / chunk["file"]).read_bytes() == (live.store / chunk["file"]).read_bytes()
    assert "not a chunk list" in " ".join(reports["garbage-900"]["errors"])
    assert [gap["reason"] for gap in reports["garbage-900"]["gaps"]] == ["fetch failed"]
    assert [gap["reason"] for gap in reports["stall-900"]["gaps"]] == ["fetch failed"]
    assert reports["stall-900"]["errors"] and "not fetched" in result.stdout


def test_a_node_killed_mid_fetch_the_fetch_finishes_and_a_rerun_completes(make_node, radosgw, bucket, tmp_path):
    import asyncio
    from delay_proxy import DelayProxy

    port = free_port()
    store = tmp_path / "victim-501"
    node = start_node(make_node, radosgw, bucket, tmp_path, "victim-501", port=port)
    node.wait_healthy()
    start = time.time()
    node.wait_until(lambda: archived(node) >= 8, timeout=90, what="8 chunks archived")
    end = time.time()
    node_id = (store / ".allspark-node-id").read_text().strip()
    # The fetcher reaches the node through a slow link (found by mDNS, merged by id with its
    # bucket record), so the fetch is still under way when the node is killed.
    proxy_port = free_port()
    loop = asyncio.new_event_loop()
    proxy = DelayProxy(proxy_port, port, delay_ms=150, jitter_ms=0)
    loop.run_until_complete(proxy.start())
    threading.Thread(target=loop.run_forever, daemon=True).start()
    publisher = publish("victim-501", proxy_port, node_id)
    out = tmp_path / "out"
    arguments = ("fetch", "--from", str(start), "--to", str(end), "--out", str(out), "--nodes", "victim-501")
    try:
        time.sleep(2)
        fetch = subprocess.Popen(
            [str(NODE_BIN), "fleet", *arguments, "--config", "/dev/null", "--archive-endpoint", radosgw.endpoint,
             "--archive-bucket", bucket], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **archive_env(radosgw)}, cwd=REPO)
        time.sleep(6)
        node.process.kill()
        node.process.wait()
        stdout, stderr = fetch.communicate(timeout=180)
    finally:
        publisher.kill()
        publisher.wait()
        loop.call_soon_threadsafe(loop.stop)
    manifest = json.loads((out / "manifest.json").read_text())
    report = manifest["nodes"][0]
    assert (fetch.returncode == 0) == manifest["complete"], stdout + stderr
    assert not list((out / "victim-501").glob("*.part")), "no part file is left looking whole"
    fetched = {chunk["file"] for chunk in report["chunks"]}
    for chunk in report["chunks"]:
        assert (out / "victim-501" / chunk["file"]).read_bytes() == (store / chunk["file"]).read_bytes()
    covered_or_named(report, int(start * 1000), int(end * 1000))

    # The node comes back; a re-run completes what is missing.
    again = start_node(make_node, radosgw, bucket, tmp_path, "victim-501", port=port, store=store)
    again.wait_healthy()
    rerun = fleet(radosgw, bucket, *arguments)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    report = json.loads((out / "manifest.json").read_text())["nodes"][0]
    assert {chunk["file"] for chunk in report["chunks"]} >= fetched
    assert all(gap["reason"] != "fetch failed" for gap in report["gaps"])
    for chunk in report["chunks"]:
        assert (out / "victim-501" / chunk["file"]).read_bytes() == (store / chunk["file"]).read_bytes()


def test_clip_mode_fetches_one_playable_clip_per_live_node(make_node, radosgw, bucket, tmp_path):
    node = start_node(make_node, radosgw, bucket, tmp_path, "clip-701")
    node.wait_healthy()
    node.wait_for_chunks(3)
    chunks = node.chunks()
    start, end = chunks[0]["startMs"] / 1000, chunks[-1]["endMs"] / 1000
    out = tmp_path / "out"
    result = fleet(radosgw, bucket, "fetch", "--from", str(start), "--to", str(end), "--out", str(out), "--clip",
                   "--nodes", "clip-701", "--no-mdns")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((out / "manifest.json").read_text())["nodes"][0]
    clip = out / report["folder"] / report["clip"]["file"]
    assert clip.stat().st_size == report["clip"]["bytes"] > 0
    _, frames = ffprobe_duration_and_frames(clip)
    assert frames >= 2 * 5 * 2, "the clip holds the range's frames"
    assert_every_reader_agrees(clip, frames, SMALL["fps"])
    # Issue 32: the clip verifies on its own, as the manifest says; its chunks were not fetched, so not checked.
    assert report["clip"]["signature"]["status"] == "valid" and report["clip"]["signature"]["problems"] == 0
    assert all("signature" not in chunk for chunk in report["chunks"])
    assert {chunk["file"] for chunk in report["chunks"]} >= {chunk["file"] for chunk in chunks}
    assert not list((out / report["folder"]).glob("chunk_*")), "the clip instead of the chunks"


class TokenRecordingNode(StandInNode):
    """Stands in for whatever a node record or an mDNS announcement points at: it answers as
    a node with nothing recorded, and keeps the Authorization header of every request."""

    def __init__(self, name):
        self.authorizations = []

        def answer(path, headers):
            self.authorizations.append(headers.get("Authorization"))
            return self.health(name) if path.startswith("/api/health") else json.dumps({"chunks": []}).encode()

        super().__init__(name, answer)


def test_the_fleet_page_hands_its_token_to_other_nodes_only_when_told_to(make_node, radosgw, bucket, tmp_path):
    token = "page-token-" + uuid.uuid4().hex
    stand_in = TokenRecordingNode("standin-950")
    try:
        for share in (False, True):
            stand_in.authorizations.clear()
            env = archive_env(radosgw, ALLSPARK_UPLINK_NAME=f"page-95{int(share)}", ALLSPARK_SERVER_ANNOUNCE="false",
                              ALLSPARK_FLEET_SHARE_TOKEN="true" if share else "false")
            page = make_node("--archive-endpoint", radosgw.endpoint, "--archive-bucket", bucket,
                             "--archive-prefix", f"page-95{int(share)}/", "--token", token,
                             store=tmp_path / f"page-95{int(share)}", env=env, **SMALL)
            bearer = {"Authorization": f"Bearer {token}"}
            page.wait_healthy(headers=bearer)
            now = time.time()
            status, job = page.json("/api/fleet/exports", method="POST", headers=bearer,
                                    body={"start": now - 20, "end": now, "nodes": ["standin-950"]})
            assert status == 202, job
            page.wait_until(lambda: page.json(f"/api/fleet/exports/{job['id']}", headers=bearer)[1]["state"] == "done",
                            timeout=90, what="the export done")
            assert stand_in.authorizations, "the export never reached the stand-in"
            sent = {header for header in stand_in.authorizations if header}
            assert sent == ({f"Bearer {token}"} if share else set()), (share, sent)
            page.stop()
    finally:
        stand_in.close()
