"""The store's disk fails under a running node: another program fills it, it is unmounted,
it turns read-only. Real file systems (tmpfs, loop-mounted ext4) as root, as CI runs."""
import os
import re
import subprocess
import time

from store_disks import fill, loop_disk, metric, tmpfs

DISK_FULL = re.compile(r"disk full: (\d+) bytes free, a chunk needs about (\d+)")


def problems(node):
    return node.json("/api/health")[1]["problems"]


def red_with(node, text):
    status, health = node.json("/api/health")
    return status == 503 and any(text in problem for problem in health["problems"])


def metrics(node):
    return node.request("/metrics")[2].decode()


def chunk_bytes(node, name):
    status, _, body = node.request(f"/api/chunks/{name}")
    assert status == 200, body
    return body


def test_a_disk_another_program_filled_is_waited_out_quietly(make_node, tmp_path):
    with tmpfs(tmp_path / "disk", 48) as disk:
        store = disk / "store"
        # The store as a node left it (token, marker), its chunks gone: nothing to evict.
        first = make_node(store=store, log_dir=tmp_path)
        first.wait_healthy()
        first.stop()
        for name in os.listdir(store):
            if name.startswith(("chunk_", "timestamps_")):
                os.unlink(store / name)
        filler = fill(disk)
        node = make_node(store=store, log_dir=tmp_path)
        node.wait_until(lambda: red_with(node, "disk full"), timeout=30, what="health red: disk full")
        reason = next(problem for problem in problems(node) if "disk full" in problem)
        free, needed = map(int, DISK_FULL.search(reason).groups())
        assert free < needed and needed > 10_000, reason
        assert metric(metrics(node), "allspark_store_full_total") == 1
        tries_before = metric(metrics(node), "allspark_chunk_start_failures_total")
        dropped_before = metric(metrics(node), "allspark_frames_dropped_store_total")
        # 20 s of frames with nowhere to go: the node that tried a chunk every 4 frames made ~75 tries here.
        deadline = time.time() + 20
        while time.time() < deadline:
            assert node.process.poll() is None
            time.sleep(1)
        text = metrics(node)
        assert metric(text, "allspark_chunk_start_failures_total") - tries_before <= 5
        assert metric(text, "allspark_frames_dropped_store_total") - dropped_before >= 50
        assert metric(text, "allspark_store_writing") == 0
        assert node.chunks() == [] and not [name for name in os.listdir(store) if name.endswith(".part")]
        log = node.log_path.read_text()
        assert log.count("disk full") <= 8, log[-3000:]

        filler.unlink()
        node.wait_until(lambda: node.json("/api/health")[0] == 200 and node.chunks(), timeout=30, what="recording again")
        first = node.chunks()[0]
        assert first["frames"] > 1 and len(chunk_bytes(node, first["file"])) == first["bytes"]
        assert metric(metrics(node), "allspark_store_writing") == 1
        node.stop()


def test_chunks_on_an_unmounted_disk_stay_listed_and_come_back_with_it(make_node, tmp_path):
    with loop_disk(tmp_path / "disk.img", tmp_path / "disk") as disk:
        node = make_node(store=disk.directory)
        node.wait_healthy()
        before = node.wait_for_chunks(2)
        kept = {chunk["file"]: chunk_bytes(node, chunk["file"]) for chunk in before}

        disk.unmount_lazily()
        node.wait_until(lambda: red_with(node, "vanished"), timeout=15, what="health red: store vanished")
        listed = {chunk["file"] for chunk in node.chunks()}
        assert set(kept) <= listed, "chunks written before stay listed"
        status, _, body = node.request(f"/api/chunks/{next(iter(kept))}")
        assert status == 503 and b"served again when the store is back" in body, body
        start, end = before[0]["startTime"], before[-1]["endTime"]
        status, _, body = node.request(f"/api/clip?start={start}&end={end}")
        assert status == 503 and b"store vanished" in body, body
        time.sleep(3)  # frames keep arriving: none may land on the bare mount point (the root file system)
        assert os.listdir(disk.directory) == []
        assert node.process.poll() is None
        assert metric(metrics(node), "allspark_store_unavailable_total") >= 1

        disk.mount()
        newest = max(chunk["startMs"] for chunk in before)
        node.wait_until(
            lambda: node.json("/api/health")[0] == 200 and any(chunk["startMs"] > newest for chunk in node.chunks()),
            timeout=30, what="recording on the disk again")
        for name, body in kept.items():
            assert chunk_bytes(node, name) == body, f"{name} served as before"
        # The chunk cut off by the unmount was finished from its part file once the disk was back
        # (or removed, when its frames were all still in the muxer's memory): only the chunk
        # being written has a part file now.
        log = node.log_path.read_text()
        assert "recovered" in log or "no intact frame in it" in log, log[-3000:]
        assert len([name for name in os.listdir(disk.directory) if name.endswith(".part")]) <= 1
        node.stop()


def test_a_store_that_turns_read_only_and_back(make_node, tmp_path):
    with loop_disk(tmp_path / "disk.img", tmp_path / "disk") as disk:
        node = make_node(store=disk.directory)
        node.wait_healthy()
        before = node.wait_for_chunks(2)
        # A read-only mount over the store's path (`mount -o remount,ro` of the disk itself is
        # refused while the node has files open for writing on it: "mount point is busy").
        subprocess.run(["mount", "--bind", str(disk.directory), str(disk.directory)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(disk.directory)], check=True)
            node.wait_until(lambda: red_with(node, "Read-only file system"), timeout=15, what="health red: read-only")
            assert chunk_bytes(node, before[0]["file"]), "chunks on a read-only store are still served"
            count = len(node.chunks())
            time.sleep(2)
            assert len(node.chunks()) == count and node.process.poll() is None
        finally:
            subprocess.run(["umount", "-l", str(disk.directory)], check=True)
        newest = max(chunk["startMs"] for chunk in node.chunks())
        node.wait_until(
            lambda: node.json("/api/health")[0] == 200 and any(chunk["startMs"] > newest for chunk in node.chunks()),
            timeout=30, what="recording again once writable")
        assert len([name for name in os.listdir(disk.directory) if name.endswith(".part")]) <= 1
        node.stop()


def test_a_disk_the_kernel_turns_read_only_after_an_error(make_node, tmp_path):
    # ext4 mounted errors=remount-ro goes read-only on an error, and Linux 6.x shows it in
    # neither statvfs nor access(2): only writes fail (EROFS). Health must still turn red.
    with loop_disk(tmp_path / "disk.img", tmp_path / "disk") as disk:
        node = make_node(store=disk.directory)
        node.wait_healthy()
        before = node.wait_for_chunks(2)
        device = os.path.basename(disk.device)
        with open(f"/sys/fs/ext4/{device}/trigger_fs_error", "w") as trigger:
            trigger.write("allspark store-fault test\n")
        node.wait_until(lambda: red_with(node, "Read-only file system"), timeout=20, what="health red: EROFS")
        tries = metric(metrics(node), "allspark_chunk_start_failures_total")
        time.sleep(5)
        assert metric(metrics(node), "allspark_chunk_start_failures_total") - tries <= 2
        assert node.process.poll() is None
        assert chunk_bytes(node, before[0]["file"]), "chunks written before are still served"
        node.stop()
