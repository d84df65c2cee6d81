"""The node as an AllSpark client: a whole session against an edge-server-compatible peer."""
import asyncio
import re
import ssl
import subprocess

from node_harness import free_port, timestamps_name
from edge_peer import EdgePeer


async def peer_and_node(make_node, port):
    """An edge-server-compatible peer on `port`, and a node dialling it."""
    peer = EdgePeer(port)
    await peer.start()
    return peer, make_node("--uplink", f"ws://127.0.0.1:{port}/")


def test_whole_session_reconnect_and_recording_never_stops(make_node):
    port = free_port()

    async def scenario():
        peer, node = await peer_and_node(make_node, port)
        await peer.wait_for(lambda: peer.client_names, timeout=30, what="clientInfo")

        # The server's clientConfig applies: the next chunk uses its length.
        await peer.wait_for(lambda: len(peer.chunk_saved) >= 3, timeout=40, what="three chunkSaved")
        config = node.json("/api/config")[1]["config"]
        later = peer.chunk_saved[-1]

        # uploadTimeRange from the last frame of one chunk to inside the next: both, each with its timestamps.
        first, second = peer.chunk_saved[-2], peer.chunk_saved[-1]
        await peer.command({"command": "uploadTimeRange", "message": "", "startTime": first["endTime"],
                            "endTime": second["startTime"] + 0.5})
        expected = [first["filename"], timestamps_name(first["filename"]), second["filename"], timestamps_name(second["filename"])]
        await peer.wait_for(lambda: all(name in peer.uploads for name in expected), what="uploads")
        uploaded = dict(peer.uploads)

        # Bad commands relayed unchecked get an error status; the connection stays.
        statuses_before = len(peer.statuses)
        await peer.command('{"command":"uploadTimeRange","startTime":"soon","endTime":1}')
        await peer.command('{"command":"uploadTimeRange","startTime":NaN,"endTime":1}')
        await peer.command({"command": "record", "message": "ignored"})
        await peer.wait_for(lambda: len(peer.statuses) >= statuses_before + 2, what="error statuses")
        errors = peer.statuses[statuses_before:]

        # The edge server goes away and comes back: the node reconnects, recording never stops.
        await peer.stop()
        await asyncio.sleep(3)
        peer_again = EdgePeer(port)
        await peer_again.start()
        await peer_again.wait_for(lambda: peer_again.client_names, timeout=20, what="reconnection")
        await peer_again.wait_for(lambda: peer_again.chunk_saved, timeout=20, what="chunkSaved after reconnecting")
        await peer_again.stop()
        return node, config, uploaded, expected, errors, peer.client_names[0], peer_again.client_names[0], later

    node, config, uploaded, expected, errors, name, name_again, later = asyncio.run(scenario())
    assert config["videoChunkDurationMs"] == 3000, "the edge server's clientConfig was applied"
    assert later["endTime"] - later["startTime"] > 2.5, "chunks follow the server's 3000 ms"
    assert re.fullmatch(r".+-\d{3}", name) and name_again == name, "a persisted 3-digit nonce"
    assert sorted(uploaded) == sorted(expected), "exactly the overlapping chunks and their timestamps files"
    for file_name, data in uploaded.items():
        assert data == (node.store / file_name).read_bytes(), file_name
    assert all(status["status"] == "error" for status in errors)
    assert node.json("/api/status")[1]["uplink"]["state"] in ("connected", "waiting", "connecting")

    chunks = node.chunks()
    # A frame interval between chunks (67 ms at 15 fps); more only where the source dropped
    # frames, which a loaded box makes it do: the node counts them.
    dropped = node.json("/api/status")[1]["recorder"]["framesDropped"]
    for previous, following in zip(chunks, chunks[1:]):
        gap = following["startMs"] - previous["endMs"]
        assert 0 < gap and (gap <= 100 or dropped > 0), \
            f"recording paused between {previous['file']} and {following['file']} ({gap} ms, {dropped} frames dropped)"


def test_auto_upload_answers_with_exactly_the_saved_chunk(make_node):
    port = free_port()

    async def scenario():
        peer = EdgePeer(port, auto_upload=True)
        await peer.start()
        node = make_node("--uplink", f"ws://127.0.0.1:{port}/")
        await peer.wait_for(lambda: len(peer.chunk_saved) >= 3, timeout=40, what="chunkSaved")
        await asyncio.sleep(1.5)
        await peer.stop()
        return node, peer

    node, peer = asyncio.run(scenario())
    saved = [event["filename"] for event in peer.chunk_saved]
    for name in saved[:3]:
        assert peer.uploads[name] == (node.store / name).read_bytes()
        assert timestamps_name(name) in peer.uploads
    uploaded_chunks = sorted(name for name in peer.uploads if name.startswith("chunk_"))
    assert uploaded_chunks == sorted(saved[: len(uploaded_chunks)]), "never a neighbouring chunk"


def test_dead_server_is_retried_without_disturbing_recording(make_node):
    port = free_port()
    node = make_node("--uplink", f"ws://127.0.0.1:{port}/")
    node.wait_healthy()
    node.wait_for_chunks(2)
    _, status = node.json("/api/status")
    assert status["uplink"]["state"] in ("waiting", "connecting")
    assert "health" in (status["uplink"]["lastError"] or "")
    _, health = node.json("/api/health")
    assert health["status"] == "degraded" and health["recording"] is True


def test_tls_only_edge_server_with_a_self_signed_certificate(make_node, tmp_path):
    key, certificate = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(certificate),
                    "-days", "1", "-subj", "/CN=allspark-edge-server"], check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certificate), str(key))
    port = free_port()

    async def scenario():
        peer = EdgePeer(port, ssl_context=context)
        await peer.start()
        try:
            # A ws:// URL: the node checks health over http, then https, and tries wss first.
            make_node("--uplink", f"ws://127.0.0.1:{port}/")
            await peer.wait_for(lambda: peer.client_names, timeout=30, what="clientInfo over wss")
            await peer.wait_for(lambda: peer.chunk_saved, timeout=30, what="chunkSaved over wss")
            return peer.connections
        finally:
            await peer.stop()

    assert asyncio.run(scenario()) == 1


def test_stopping_while_connected_is_a_clean_exit(make_node):
    # systemd marks a unit failed when it exits non-zero on SIGTERM, and the archive's last
    # chunk would be cut short: a stop while the uplink is connected is no failure.
    async def scenario():
        peer, node = await peer_and_node(make_node, free_port())
        await peer.wait_for(lambda: peer.chunk_saved, timeout=40, what="chunkSaved")
        status = node.stop()
        await peer.stop()
        return node, status

    node, status = asyncio.run(scenario())
    log = node.log_path.read_text()
    assert status == 0, log[-3000:]
    assert not [line for line in log.splitlines() if " error " in line or line.startswith("Error")], log[-3000:]
