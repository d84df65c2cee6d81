"""Several peers and uploads at once: a peer that stops reading holds its upload, the chunks
it named are kept while anything else can go, the cap still wins (and the upload reports
what it lost), and recording never waits for any of it."""
import asyncio
import time
from pathlib import Path

from node_harness import add_chunk, timestamps_name
from wsclient import Peer, StallingPeer

MIB = 1 << 20
BASE_MS = 1_700_000_000_000


# The largest send buffer the kernel grows a TCP socket to (tcp_wmem's maximum): machines differ.
SOCKET_BUFFER_MAX = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
# Each old chunk is larger than the node's socket can buffer, so an upload to a peer that
# stops reading stalls inside its first chunk, whatever this machine's tcp_wmem is.
CHUNK_MIB = max(12, SOCKET_BUFFER_MAX // MIB + 4)
CHUNK_BYTES = CHUNK_MIB * MIB


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
    node = make_node("--cap-mb", str(8 * CHUNK_MIB + 32), store=store, chunk_ms=1000)
    node.wait_healthy()
    node.wait_for_chunks(len(old) + 2)

    # One peer asks for the four oldest chunks and stops reading.
    stalled = StallingPeer("127.0.0.1", node.port)
    assert stalled.receive()["type"] == "clientConfig"
    stalled.send({"command": "uploadTimeRange", "startTime": BASE_MS / 1000, "endTime": BASE_MS / 1000 + 40})
    node.wait_until(lambda: len(node.json("/api/status")[1]["peers"]) == 1, what="the stalled peer listed")
    time.sleep(1)
    before = recorder(node)

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
    put_cap(node, 4 * CHUNK_MIB + 8)
    names = store_names(node)
    assert {chunk.name for chunk in old[:4]} <= names, "the chunks the stalled upload named are kept"
    assert not names & {chunk.name for chunk in old[4:]}, "unpinned chunks go first"
    assert node.json("/api/status")[1]["store"]["pinnedChunksEvicted"] == 0

    # A cap below what the pins hold wins: the oldest pinned chunks go, and are counted.
    put_cap(node, CHUNK_MIB + 4)
    names = store_names(node)
    assert not names & {chunk.name for chunk in old[:3]}
    assert old[3].name in names
    assert node.json("/api/status")[1]["store"]["pinnedChunksEvicted"] == 3

    # Recording goes on while the upload is still stuck: more chunks are written, and no
    # frame is dropped. The rate under uploads is a benchmark figure (bench/README.md, "Soak").
    node.wait_until(lambda: recorder(node)["chunksWritten"] >= before["chunksWritten"] + 3, timeout=120,
                    what="chunks written while the upload is stalled")
    after = recorder(node)
    assert after["framesCaptured"] > before["framesCaptured"]
    assert after["framesDropped"] == before["framesDropped"] == 0
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
    # The files of the three evicted chunks, in the order they are sent: those the upload had
    # opened before the eviction (the first chunk at least) arrive whole, the rest are reported.
    def files(chunk):
        return [chunk.name, timestamps_name(chunk.name)]
    evicted_files = files(old[0]) + files(old[1]) + files(old[2])
    opened = [name for name in evicted_files if name in received]
    context = f"received {sorted(received)}, final {final}, tcp_wmem {SOCKET_BUFFER_MAX}"
    assert received[old[0].name] == first_chunk_bytes, context
    assert opened == evicted_files[: len(opened)], context
    assert len(opened) < len(evicted_files) - 2, f"the upload was meant to stall inside the first chunks: {context}"
    assert all(received[name] == (store / name).read_bytes() for name in files(old[3])), context
    assert set(received) == set(opened) | set(files(old[3])), context
    assert final["status"] == "error"
    assert [skipped["file"] for skipped in final["skipped"]] == evicted_files[len(opened):], context
    assert all("evicted" in skipped["reason"] for skipped in final["skipped"])
    assert node.json("/api/health")[0] == 200
