#!/usr/bin/env python3
"""Store faults under a running node (root: mounts a tmpfs and a loop-mounted ext4 image).

- Full disk: another program takes every free byte before the node starts. Chunk tries
  during a minute of full disk (allspark_chunk_start_failures_total and the log), then
  seconds from freeing the space to health 200 (a chunk storing frames) and to the first
  new chunk listed; the resume is measured --repeats times (refilled in between).
- Unmounted store (umount -l of the ext4 disk) and read-only store (a read-only bind mount
  over its path): seconds to health 503, and from the disk's return to health 200.
- ext4 turned read-only by the kernel after an error: seconds to health 503, chunk tries
  per minute after it (a failure no probe sees, so the backoff paces the tries).

    python3 bench/store-faults.py [--binary PATH] [--repeats N] [--full-seconds S]
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))

import node_harness  # noqa: E402
from node_harness import Node  # noqa: E402
from store_disks import fill, loop_disk, metric, tmpfs  # noqa: E402


def seconds_until(condition, timeout=60, step=0.05):
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if condition():
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(step)
    raise TimeoutError("condition not reached")


def health(node):
    return node.json("/api/health")


def red(node, text):
    status, report = health(node)
    return status == 503 and any(text in problem for problem in report["problems"])


def tries(node):
    return metric(node.request("/metrics")[2].decode(), "allspark_chunk_start_failures_total")


def full_disk(workdir, repeats, full_seconds):
    with tmpfs(workdir / "disk", 48) as disk:
        # The store as a node left it (token, marker), its chunks gone: nothing to evict.
        first = Node(disk / "store", log_dir=workdir)
        first.wait_healthy()
        first.stop()
        for chunk in (disk / "store").glob("*_*.*"):
            if chunk.name.startswith(("chunk_", "timestamps_")):
                chunk.unlink()
        filler = fill(disk)
        node = Node(disk / "store", log_dir=workdir)
        try:
            seconds_until(lambda: red(node, "disk full"), timeout=60)
            before, log_before = tries(node), node.log_path.read_text().count("\n")
            time.sleep(full_seconds)
            per_minute = (tries(node) - before) * 60 / full_seconds
            log_lines = (node.log_path.read_text().count("\n") - log_before) * 60 / full_seconds
            print(f"full disk: {per_minute:.1f} chunk tries/min, {log_lines:.1f} log lines/min over {full_seconds} s"
                  f" (total tries since start {tries(node):.0f})", flush=True)
            resumes = []
            for attempt in range(repeats):
                if attempt:
                    filler = fill(disk)
                    seconds_until(lambda: red(node, "disk full"), timeout=60)
                    time.sleep(5)
                filler.unlink()
                listed = len(node.chunks())
                freed = time.monotonic()
                green = seconds_until(lambda: health(node)[0] == 200)
                seconds_until(lambda: len(node.chunks()) > listed)
                chunk = time.monotonic() - freed
                resumes.append((green, chunk))
                print(f"  space freed -> health 200 in {green:.2f} s, first new chunk listed in {chunk:.2f} s", flush=True)
            return per_minute, resumes
        finally:
            node.stop()


def store_outage(workdir, kind, repeats):
    figures = []
    with loop_disk(workdir / f"{kind}.img", workdir / kind) as disk:
        node = Node(disk.directory)
        try:
            node.wait_healthy()
            node.wait_for_chunks(1)
            for _ in range(repeats):
                node.wait_healthy()
                time.sleep(1)
                if kind == "unmounted":
                    disk.unmount_lazily()
                    to_red = seconds_until(lambda: red(node, "vanished"))
                else:
                    subprocess.run(["mount", "--bind", str(disk.directory), str(disk.directory)], check=True)
                    subprocess.run(["mount", "-o", "remount,bind,ro", str(disk.directory)], check=True)
                    to_red = seconds_until(lambda: red(node, "Read-only"))
                time.sleep(5)
                if kind == "unmounted":
                    disk.mount()
                else:
                    subprocess.run(["umount", "-l", str(disk.directory)], check=True)
                back = seconds_until(lambda: health(node)[0] == 200)
                figures.append((to_red, back))
                print(f"{kind}: red in {to_red:.2f} s, back (health 200) {back:.2f} s after the disk returned", flush=True)
        finally:
            node.stop()
    return figures


def kernel_read_only(workdir, seconds):
    """ext4 errors=remount-ro after an error: statvfs and access(2) still say writable, writes fail."""
    with loop_disk(workdir / "error.img", workdir / "error") as disk:
        node = Node(disk.directory)
        try:
            node.wait_healthy()
            node.wait_for_chunks(1)
            with open(f"/sys/fs/ext4/{Path(disk.device).name}/trigger_fs_error", "w") as trigger:
                trigger.write("store-faults bench\n")
            to_red = seconds_until(lambda: red(node, "Read-only"))
            before = tries(node)
            time.sleep(seconds)
            per_minute = (tries(node) - before) * 60 / seconds
            print(f"ext4 error: red in {to_red:.2f} s, {per_minute:.1f} chunk tries/min over {seconds} s", flush=True)
            return to_red, per_minute
        finally:
            node.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(node_harness.NODE_BIN))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full-seconds", type=int, default=60)
    arguments = parser.parse_args()
    node_harness.NODE_BIN = Path(arguments.binary)
    with tempfile.TemporaryDirectory(prefix="store-faults-") as work:
        workdir = Path(work)
        per_minute, resumes = full_disk(workdir, arguments.repeats, arguments.full_seconds)
        outages = {kind: store_outage(workdir, kind, arguments.repeats) for kind in ("unmounted", "read-only")}
        error_red, error_tries = kernel_read_only(workdir, arguments.full_seconds)
    print("\nsummary")
    print(f"  full disk: {per_minute:.1f} chunk tries/min; back to health 200 after space returns: "
          f"max {max(g for g, _ in resumes):.2f} s; first new chunk listed: max {max(c for _, c in resumes):.2f} s")
    for kind, figures in outages.items():
        print(f"  {kind}: red within max {max(r for r, _ in figures):.2f} s; back within max {max(b for _, b in figures):.2f} s")
    print(f"  ext4 error (kernel read-only): red in {error_red:.2f} s; {error_tries:.1f} chunk tries/min")


if __name__ == "__main__":
    main()
