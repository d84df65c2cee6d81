"""A file of several hundred MB sent through the uplink: the node's memory stays bounded by
its pieces, not by the file (the client's frames are masked into copies, which must not pile up)."""
import asyncio

from edge_peer import EdgePeer
from node_harness import add_chunk, free_port, rss_mib


def test_a_290_mib_file_streams_through_the_uplink_with_bounded_memory(make_node, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    big = add_chunk(store, 1_700_000_000_000, 290 * 1024 * 1024)
    port = free_port()

    async def scenario():
        peer = EdgePeer(port)
        await peer.start()
        try:
            node = make_node("--uplink", f"ws://127.0.0.1:{port}/", store=store)
            await peer.wait_for(lambda: peer.client_names, timeout=30, what="clientInfo")
            baseline = rss_mib(node.process.pid)
            peak = baseline
            await peer.command({"command": "uploadTimeRange", "message": "", "startTime": 1700000000.0, "endTime": 1700000001.0})
            # A bound only a stalled upload misses: a debug build on a box at a load of 15
            # took over 120 s.
            deadline = asyncio.get_running_loop().time() + 600
            while big.name not in peer.uploads:
                assert asyncio.get_running_loop().time() < deadline, "the 290 MiB file did not arrive within 600 s"
                peak = max(peak, rss_mib(node.process.pid))
                await asyncio.sleep(0.02)
            return baseline, peak, peer.uploads[big.name]
        finally:
            await peer.stop()

    baseline, peak, received = asyncio.run(scenario())
    assert received == big.read_bytes()
    print(f"RSS growth while sending through the uplink: {peak - baseline:.1f} MiB")
    assert peak - baseline < 64, f"RSS grew {peak - baseline:.0f} MiB while sending 290 MiB through the uplink"
