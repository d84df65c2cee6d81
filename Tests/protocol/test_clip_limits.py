"""/api/clip refuses what it cannot make safely, and leaves no clip file behind."""
import subprocess

from node_harness import add_chunk


def test_a_clip_over_the_limit_or_the_free_disk_is_refused_and_recording_goes_on(make_node, tmp_path, monkeypatch):
    store = tmp_path / "store"
    store.mkdir()
    add_chunk(store, 1_600_000_000_000, 3 << 20)  # 3 MiB of an old recording
    clips = tmp_path / "clips"
    clips.mkdir()
    monkeypatch.setenv("TMPDIR", str(clips))
    monkeypatch.setenv("ALLSPARK_SERVER_MAX_CLIP_MB", "2")

    node = make_node(store=store)
    node.wait_healthy()
    status, body = node.json("/api/clip?start=1600000000&end=1600000001")
    assert status == 413, body
    assert "server.maxClipMB" in body["message"] and "/api/chunks" in body["message"]
    recorded = node.wait_for_chunks(3)[1]
    status, headers, clip = node.request(f"/api/clip?start={recorded['startTime']}&end={recorded['endTime']}")
    assert status == 200 and len(clip) == int(headers["Content-Length"]) > 0
    assert list(clips.iterdir()) == [], "the clip's file is gone once it is sent"
    node.stop()

    # A disk too small for the clip: refused before anything is written, recording goes on.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(clips)], check=True)
    try:
        node = make_node(store=store)
        node.wait_healthy()
        status, body = node.json(f"/api/clip?start={recorded['startTime']}&end={recorded['endTime']}")
        assert status == 507, body
        assert str(clips) in body["message"] and "TMPDIR" in body["message"]
        assert list(clips.iterdir()) == []
        before = node.json("/api/status")[1]["recorder"]["framesEncoded"]
        node.wait_until(lambda: node.json("/api/status")[1]["recorder"]["framesEncoded"] > before, what="more frames")
        node.stop()
    finally:
        subprocess.run(["umount", str(clips)], check=False)
