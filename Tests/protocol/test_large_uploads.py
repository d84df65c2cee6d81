"""Uploads of files of several hundred MB: memory stays bounded, the peer's limit is respected."""
import asyncio

from node_harness import add_chunk, rss_mib
from wsclient import Peer


def test_a_290_mib_file_streams_with_bounded_memory_and_an_over_limit_file_is_reported(make_node, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    big = add_chunk(store, 1_700_000_000_000, 290 * 1024 * 1024)
    too_big = add_chunk(store, 1_700_000_010_000, 300 * 1024 * 1024)
    node = make_node(store=store)
    node.wait_healthy()

    async def scenario():
        peer = await Peer.connect(node.ws_url("/"))
        await peer.receive()
        baseline = rss_mib(node.process.pid)
        peak = baseline
        await peer.send({"command": "uploadTimeRange", "startTime": 1700000000.0, "endTime": 1700000001.0})
        # Each message's wait: 290 MiB took under 20 s on a quiet box; a loaded one may be
        # many times slower, and only a stalled transfer waits 600 s.
        receiving = asyncio.ensure_future(peer.receive_uploads(timeout=600))
        while not receiving.done():
            peak = max(peak, rss_mib(node.process.pid))
            await asyncio.sleep(0.02)
        big_files, big_status = receiving.result()
        await peer.send({"command": "uploadTimeRange", "startTime": 1700000010.0, "endTime": 1700000011.0})
        over_files, over_status = await peer.receive_uploads(timeout=60)
        await peer.close()
        return baseline, peak, big_files, big_status, over_files, over_status

    baseline, peak, big_files, big_status, over_files, over_status = asyncio.run(scenario())
    assert big_files[big.name] == big.read_bytes()
    assert big_status["status"] == "success"
    print(f"RSS growth while sending: {peak - baseline:.1f} MiB")
    assert peak - baseline < 64, f"RSS grew {peak - baseline:.0f} MiB while sending 290 MiB"
    assert too_big.name not in over_files, "never send a file over the peer's 300 MiB - 1 limit"
    assert over_status["status"] == "error"
    assert any(skipped["file"] == too_big.name and "limit" in skipped["reason"] for skipped in over_status["skipped"])
    assert list(over_files) == [too_big.name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")]
