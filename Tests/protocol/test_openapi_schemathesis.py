"""The HTTP API against its own published contract (issue 49): Schemathesis, a fuzzer from
PyPI that no one here wrote, reads the OpenAPI document the node serves at
/api/openapi.json and sends generated requests to every operation with the token, checking
each answer for server errors, documented status codes, content types and response
schemas. The node records all the while: no frame is lost and the chunk timeline has no
gap. A short run (ALLSPARK_SCHEMATHESIS_EXAMPLES cases per operation and phase, 20 by
default, seeded); bench/api-fuzz.py is the long one. What is not fuzzed against the
recording node, and why, is in schemathesis_run.py."""
import json
import os
import urllib.error
import urllib.request

from schemathesis_run import OTHER_METHODS, STREAM, fuzz_recording_nodes, summary

EXAMPLES = int(os.environ.get("ALLSPARK_SCHEMATHESIS_EXAMPLES", "20"))
TOKEN = "schemathesis-token"


def test_every_operation_keeps_its_contract_while_the_node_records(make_node, tmp_path):
    result = fuzz_recording_nodes(make_node("--token", TOKEN), make_node("--token", TOKEN), TOKEN, tmp_path, EXAMPLES)
    print(summary(result["seen"]) + "\n" + summary(result["configSeen"]))
    assert result["documentStatus"] == 200, "the document needs no token"
    assert result["exitCode"] == 0, result["output"][-6000:]
    assert result["configExitCode"] == 0, result["configOutput"][-6000:]
    missing = set(result["operations"]) - {STREAM} - set(result["seen"]) - set(result["configSeen"])
    assert not missing, f"operations Schemathesis never sent: {sorted(missing)}"
    assert all(code == 405 for code in result["seen"].get(OTHER_METHODS, {})), "a path's other methods are 405"

    # The recording went on (checked once the chunk being written at the end is finished):
    # no frame dropped on either node, and the recording node's chunks since the run began
    # hold every frame of their span, with no pause between them.
    for recorder in result["recorders"]:
        assert recorder["framesDropped"] == 0 and recorder["framesDroppedForStore"] == 0, recorder
        assert recorder["chunkStartFailures"] == 0 and recorder["storeError"] is None, recorder
    assert result["health"] == [200, 200]
    chunks = result["chunks"]
    assert chunks[0]["startMs"] <= result["startedMs"] and chunks[-1]["endMs"] >= result["endedMs"]
    assert result["timelineProblems"] == []


def test_what_schemathesis_found_and_the_one_error_shape(node):
    """Each finding of the runs above, kept as a plain case; and errors Hummingbird itself
    raises (unknown path, other method, body over the limit, bad HLS query) in the one shape."""
    def error(path, method="GET", body=None, data=None, headers=None):
        request = urllib.request.Request(node.url(path), data=data if data is not None else (json.dumps(body).encode() if body is not None else None),
                                         method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), json.loads(response.read())
        except urllib.error.HTTPError as refusal:
            return refusal.code, dict(refusal.headers), json.loads(refusal.read())

    # Found: epoch seconds far out of range trapped converting to Int64 and killed the node.
    status, _, body = error("/api/fleet/exports", "POST", {"start": -1.1754943508222875e-38, "end": -1.5599175155206114e16})
    assert status == 400 and "start must be epoch seconds" in body["message"]
    status, _, body = error("/api/fleet/exports", "POST", {"start": 1.5e16, "end": 1.6e16})
    assert status == 400 and "epoch seconds" in body["message"]
    assert node.process.poll() is None
    # Found: a body that is no JSON object answered 400 without the documented `key`.
    assert error("/api/config", "PUT", data=b"\x00")[2] == {"status": "error", "message": "the body must be a JSON object of config keys", "key": ""}

    cases = [
        ("/api/nope", "GET", None, 404, "no such route or file: GET /api/nope"),
        ("/api/health", "POST", None, 405, "POST is not allowed on /api/health; it takes GET"),
        ("/live/index.m3u8?_HLS_part=1", "GET", None, 400, "_HLS_part needs _HLS_msn"),
        ("/api/holds", "POST", b"x" * (16 * 1024 + 1), 413, "the request body is over 16384 bytes, this route's limit"),
    ]
    for path, method, data, code, message in cases:
        status, headers, body = error(path, method, data=data)
        assert (status, body) == (code, {"status": "error", "message": message}), path
        assert headers["Content-Type"] == "application/json"
    assert error("/api/health", "DELETE")[1]["Allow"] == "GET"
    chunk = node.wait_for_chunks(1)[0]
    status, headers, body = error(f"/api/chunks/{chunk['file']}", headers={"Range": f"bytes={chunk['bytes'] + 10}-"})
    assert status == 416 and body["status"] == "error" and headers["Content-Range"] == f"bytes */{chunk['bytes']}"

    # The one operation Schemathesis cannot run (an endless response): its status and
    # content type as documented, read from the first bytes.
    request = urllib.request.Request(node.url("/live/stream.mp4"))
    with urllib.request.urlopen(request, timeout=20) as stream:
        assert stream.status == 200 and stream.headers["Content-Type"].startswith("video/mp4")
        assert stream.read(8)[4:8] == b"ftyp"
