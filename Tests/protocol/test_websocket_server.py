"""The node's own WebSocket (server role of PROTOCOL.md), with a real aiohttp peer."""
import asyncio

from wsclient import Peer


def run(coroutine):
    return asyncio.run(coroutine)


def test_connect_gets_effective_client_config(node):
    async def scenario():
        peer = await Peer.connect(node.ws_url("/"))
        first = await peer.receive()
        await peer.close()
        return first

    first = run(scenario())
    assert first["type"] == "clientConfig"
    assert first["config"]["videoChunkDurationMs"] == 2000
    assert first["config"]["videoFormat"] == "mp4"


def test_client_config_applies_persists_and_names_bad_keys(node):
    async def scenario():
        peer = await Peer.connect(node.ws_url("/ws"))
        await peer.receive()
        await peer.send({"type": "clientConfig", "config": {
            "videoChunkDurationMs": 3000, "videoFormat": "mov", "fps": 30.0, "audioFormat": "aac",
            "communicationsPolicy": {"wifi": True, "cellular": False}}})
        applied = await peer.receive_json(lambda m: "status" in m)
        await peer.send({"type": "clientConfig", "config": {"videoChunkDurationMs": 10}})
        refused = await peer.receive_json(lambda m: "status" in m)
        await peer.send({"type": "clientConfig", "config": {"videoBufferMaxMB": "lots"}})
        refused_type = await peer.receive_json(lambda m: "status" in m)
        await peer.close()
        return applied, refused, refused_type

    applied, refused, refused_type = run(scenario())
    assert applied["status"] == "success"
    assert sorted(applied["applied"]) == ["videoChunkDurationMs", "videoFormat"]
    assert sorted(applied["ignored"]) == ["audioFormat", "communicationsPolicy", "fps"]
    assert refused["status"] == "error" and refused["key"] == "videoChunkDurationMs"
    assert "1000...3600000" in refused["message"]
    assert refused_type["status"] == "error" and refused_type["key"] == "videoBufferMaxMB"
    status, config = node.json("/api/config")
    assert config["config"]["videoChunkDurationMs"] == 3000 and config["config"]["videoFormat"] == "mov"
    runtime = (node.store / ".allspark-runtime.yaml").read_text()
    assert "videoChunkDurationMs: 3000" in runtime and "videoFormat: mov" in runtime


def test_upload_time_range_sends_exactly_the_overlapping_chunks_byte_identical(node):
    chunks = node.wait_for_chunks(3)
    middle = chunks[1]

    async def scenario():
        peer = await Peer.connect(node.ws_url("/"))
        await peer.receive()
        await peer.send({"command": "uploadTimeRange", "message": "",
                         "startTime": middle["startTime"], "endTime": middle["endTime"]})
        result = await peer.receive_uploads()
        await peer.close()
        return result

    files, final = run(scenario())
    assert list(files) == [middle["file"], middle["timestampsFile"]], "the chunk, then its timestamps file"
    for name, data in files.items():
        assert data == (node.store / name).read_bytes()
    assert final["status"] == "success" and final["files"] == list(files)


def test_upload_time_range_spanning_chunks_and_empty_ranges(node):
    chunks = node.wait_for_chunks(3)

    async def scenario():
        peer = await Peer.connect(node.ws_url("/"))
        await peer.receive()
        # From the last frame of the first chunk to the first frame of the third.
        await peer.send({"command": "uploadTimeRange", "startTime": chunks[0]["endTime"], "endTime": chunks[2]["startTime"] + 0.001})
        spanning = await peer.receive_uploads()
        await peer.send({"command": "uploadTimeRange", "startTime": 1000.0, "endTime": 2000.0})
        empty = await peer.receive_uploads()
        await peer.close()
        return spanning, empty

    (files, final), (no_files, empty_final) = run(scenario())
    expected = [name for chunk in chunks[:3] for name in (chunk["file"], chunk["timestampsFile"])]
    assert list(files) == expected
    assert final["status"] == "success"
    assert no_files == {} and empty_final["status"] == "success" and empty_final["files"] == []


def test_bad_commands_get_errors_and_the_connection_stays_up(node):
    async def scenario():
        peer = await Peer.connect(node.ws_url("/"))
        await peer.receive()
        answers = []
        for text in [
            '{"command":"uploadTimeRange","startTime":1700000060.0,"endTime":1700000000.0}',
            '{"command":"uploadTimeRange","startTime":"1700000000","endTime":1700000060.0}',
            '{"command":"uploadTimeRange","startTime":null,"endTime":1700000060.0}',
            '{"command":"uploadTimeRange","endTime":1700000060.0}',
            '{"command":"uploadTimeRange","startTime":NaN,"endTime":1700000060.0}',
            '{"command":"uploadTimeRange","startTime":1e308,"endTime":1e309}',
            '{"command":"selfDestruct"}',
            '{"type":"nonsense"}',
            'this is not json',
            '[1, 2, 3]',
        ]:
            await peer.send(text)
            answers.append(await peer.receive_json(lambda m: "status" in m))
        await peer.send({"type": "clientInfo", "clientName": "still here"})
        await peer.send({"command": "uploadTimeRange", "startTime": 1000.0, "endTime": 1001.0})
        files, final = await peer.receive_uploads()
        await peer.close()
        return answers, final

    answers, final = run(scenario())
    assert all(answer["status"] == "error" for answer in answers), answers
    assert "after" in answers[0]["message"]
    assert "startTime" in answers[1]["message"] and "startTime" in answers[2]["message"] and "missing" in answers[3]["message"]
    assert "Unknown command" in answers[6]["message"] and "Unknown message type" in answers[7]["message"]
    assert answers[8]["message"] == "Invalid JSON"
    assert answers[9]["message"].startswith("Invalid JSON: a message must be an object")
    assert final["status"] == "success", "the connection survived every bad message"


def test_chunk_saved_is_pushed_to_every_peer_and_selects_exactly_its_chunk(node):
    async def scenario():
        first = await Peer.connect(node.ws_url("/"))
        second = await Peer.connect(node.ws_url("/ws"))
        await first.send({"type": "clientInfo", "clientName": "agent one"})
        saved_first = await first.receive_json(lambda m: m.get("type") == "chunkSaved", timeout=15)
        saved_second = await second.receive_json(lambda m: m.get("type") == "chunkSaved", timeout=15)
        _, status = node.json("/api/status")
        # autoUpload: the edge server echoes a chunk's own times back; exactly that chunk must come.
        await first.send({"command": "uploadTimeRange", "startTime": saved_first["startTime"], "endTime": saved_first["endTime"]})
        files, _ = await first.receive_uploads()
        await first.close()
        await second.close()
        return saved_first, saved_second, status, files

    saved_first, saved_second, status, files = run(scenario())
    assert saved_first["filename"] == saved_second["filename"]
    assert saved_first["format"] == "mp4" and saved_first["dimensions"] == {"width": 320, "height": 240}
    assert saved_first["size"] == (node.store / saved_first["filename"]).stat().st_size
    names = sorted(peer["name"] or "" for peer in status["peers"])
    assert names == ["", "agent one"]
    assert list(files) == [saved_first["filename"], saved_first["filename"].replace("chunk_", "timestamps_").rsplit(".", 1)[0] + ".txt"]
