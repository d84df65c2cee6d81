"""Several peers and uploads at once: a peer that stops reading holds its upload, the chunks
it named are kept while anything else can go, the cap still wins (and the upload reports
what it lost), and recording never waits for any of it."""
import asyncio
import time

from node_harness import add_chunk
from wsclient import Peer, StallingPeer

MIB = 1 << 20
BASE_MS = 1_700_000_000_000
# Each old chunk is larger than the most the kernel buffers on loopback (tcp_wmem 4 MiB),
# so an upload to a peer that stops reading stalls inside its first chunk.
CHUNK_BYTES = 12 * MIB


def recorder(node):
    return node.json("/api/status")[1]["recorder"]


def store_names(node):
    return {chunk["file"] for chunk in node.chunks()}


def put_cap(node, mib):
    status, body = node.json("/api/config", method="PUT", body={"videoBufferMaxMB": mib})
    assert status == 200, body


def test_a_stalled_upload_pins_its_chunks_other_peers_are_served_and_recording_goes_on(make_node, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    old = [add_chunk(store, BASE_MS + 10_000 * index, CHUNK_BYTES) for index in range(8)]
    first_chunk_bytes = old[0].read_bytes()
    node = make_node("--cap-mb", "128", store=store, chunk_ms=1000)
    node.wait_healthy()
    node.wait_for_chunks(len(old) + 2)

    # One peer asks for the four oldest chunks and stops reading.
    stalled = StallingPeer("127.0.0.1", node.port)
    assert stalled.receive()["type"] == "clientConfig"
    stalled.send({"command": "uploadTimeRange", "startTime": BASE_MS / 1000, "endTime": BASE_MS / 1000 + 40})
    node.wait_until(lambda: len(node.json("/api/status")[1]["peers"]) == 1, what="the stalled peer listed")
    time.sleep(1)
    before = recorder(node)
    started = time.monotonic()

    # Two more peers fetch the other four at the same time, in full.
    async def fetch(start_index):
        peer = await Peer.connect(node.ws_url("/"))
        await peer.receive()
        start = (BASE_MS + 10_000 * start_index) / 1000
        await peer.send({"command": "uploadTimeRange", "startTime": start, "endTime": start + 20})
        files, status = await peer.receive_uploads(timeout=120)
        await peer.close()
        return files, status

    async def fetch_both():
        return await asyncio.gather(fetch(4), fetch(6))

    for (files, status), chunks in zip(asyncio.run(fetch_both()), (old[4:6], old[6:8])):
        assert status["status"] == "success", status
        assert [name for name in files if name.startswith("chunk_")] == [chunk.name for chunk in chunks]
        assert all(files[chunk.name] == chunk.read_bytes() for chunk in chunks)

    # A lower cap takes every unpinned old chunk, though the pinned ones are older.
    put_cap(node, 56)
    names = store_names(node)
    assert {chunk.name for chunk in old[:4]} <= names, "the chunks the stalled upload named are kept"
    assert not names & {chunk.name for chunk in old[4:]}, "unpinned chunks go first"
    assert node.json("/api/status")[1]["store"]["pinnedChunksEvicted"] == 0

    # A cap below what the pins hold wins: the oldest pinned chunks go, and are counted.
    put_cap(node, 16)
    names = store_names(node)
    assert not names & {chunk.name for chunk in old[:3]}
    assert old[3].name in names
    assert node.json("/api/status")[1]["store"]["pinnedChunksEvicted"] == 3

    # Recording went on at full rate while the upload was stuck and the others ran.
    time.sleep(2)
    after = recorder(node)
    elapsed = time.monotonic() - started
    assert after["framesDropped"] == before["framesDropped"] == 0
    assert after["framesCaptured"] - before["framesCaptured"] >= 15 * (elapsed - 1.5)
    assert after["chunksWritten"] - before["chunksWritten"] >= int(elapsed) - 2
    assert node.json("/api/health")[0] == 200

    # The stalled peer reads again: the chunk it was receiving arrives whole (it was open);
    # what was evicted before it could be opened is reported, not sent; the rest is sent.
    received, final = {}, None
    while final is None:
        message = stalled.receive()
        if isinstance(message, dict) and message.get("type") == "upload":
            received[message["filename"]] = stalled.receive()
        elif isinstance(message, dict) and message.get("command") == "uploadTimeRange":
            final = message
    stalled.close()
    assert received[old[0].name] == first_chunk_bytes
    assert received[old[3].name] == old[3].read_bytes()
    lost = {old[0].name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")}
    for chunk in old[1:3]:
        lost |= {chunk.name, chunk.name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")}
    assert final["status"] == "error"
    assert {skipped["file"] for skipped in final["skipped"]} == lost
    assert all("evicted" in skipped["reason"] for skipped in final["skipped"])
    assert set(received) == {old[0].name, old[3].name, old[3].name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")}
    assert node.json("/api/health")[0] == 200
