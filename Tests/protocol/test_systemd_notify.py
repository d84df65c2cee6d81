"""The node's side of systemd's notify protocol, on the built binary: a datagram socket
stands where systemd's NOTIFY_SOCKET would, and a FIFO stands for a camera that can stall.
WATCHDOG=1 must follow the recording loop's progress, not merely the process being alive:
pings stop while no frame arrives and come back with the frames. (A booted systemd acting
on them is Tests/package.)"""
import os
import socket
import subprocess
import threading
import time

import pytest

from node_harness import NODE_BIN, free_port

WIDTH, HEIGHT, FPS = 160, 90, 10
FRAME_BYTES = WIDTH * HEIGHT * 3 // 2
# Only a broken node misses these; the node's own window is 8 s of no progress.
PATIENCE_S = 90
SILENCE_S = 5


def y4m_stream(frames):
    """A raw YUV4MPEG2 stream from ffmpeg's test pattern: (header, [frame, ...])."""
    data = subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}",
         "-frames:v", str(frames), "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"],
        check=True, capture_output=True).stdout
    header, _, body = data.partition(b"\n")
    step = len(b"FRAME\n") + FRAME_BYTES
    return header + b"\n", [body[i:i + step] for i in range(0, len(body), step)]


class NotifyListener:
    """Collects every datagram the node sends, with its arrival time."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(path))
        self.socket.settimeout(0.2)
        self.messages = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._receive, daemon=True)
        self.thread.start()

    def _receive(self):
        while self.running:
            try:
                message = self.socket.recv(4096).decode()
            except socket.timeout:
                continue
            with self.lock:
                self.messages.append((time.monotonic(), message))

    def times(self, field):
        with self.lock:
            return [moment for moment, message in self.messages if field in message.split("\n")]

    def wait_for(self, field, after, what):
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            if any(moment > after for moment in self.times(field)):
                return
            time.sleep(0.2)
        pytest.fail(f"no {field} {what} within {PATIENCE_S} s")

    def close(self):
        self.running = False
        self.thread.join()
        self.socket.close()


def test_watchdog_pings_follow_the_recording_loop(tmp_path):
    header, frames = y4m_stream(120)
    fifo = tmp_path / "camera.y4m"
    os.mkfifo(fifo)
    # Read-write, so the FIFO always has a writer: when we stop writing, the node's read
    # blocks as on a camera that stalls, instead of seeing the end of a file.
    writer = os.open(fifo, os.O_RDWR)
    listener = NotifyListener(tmp_path / "notify.sock")
    log = open(tmp_path / "node.log", "w")
    environment = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "2000000",
                   "ALLSPARK_SERVER_HOST": "127.0.0.1", "ALLSPARK_SERVER_ANNOUNCE": "false",
                   "ALLSPARK_SERVER_AUTH": "none", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false"}
    node = subprocess.Popen(
        [str(NODE_BIN), "run", "--config", "/dev/null", "--source", str(fifo), "--size", f"{WIDTH}x{HEIGHT}",
         "--fps", str(FPS), "--privacy", "none", "--store", str(tmp_path / "store"), "--port", str(free_port()),
         # Unpaced: frames that come back after the stall are recorded, not dropped as late.
         "--no-pace"],
        stdout=log, stderr=subprocess.STDOUT, env=environment)

    def feed(batch):
        for frame in batch:
            os.write(writer, frame)

    try:
        os.write(writer, header)
        feeding = threading.Thread(target=feed, args=(frames[:40],), daemon=True)
        feeding.start()
        started = time.monotonic()
        listener.wait_for("READY=1", started, "after the first frames")
        listener.wait_for("WATCHDOG=1", started, "while frames flow")
        feeding.join(PATIENCE_S)
        assert not feeding.is_alive(), "the node stopped reading the frames it was given"

        # The source stalls: pings must stop while the node itself is still running.
        stalled = time.monotonic()
        deadline = stalled + PATIENCE_S
        silent = False
        while time.monotonic() < deadline and not silent:
            time.sleep(0.5)
            last = max(listener.times("WATCHDOG=1"), default=stalled)
            silent = time.monotonic() - max(last, stalled) >= SILENCE_S
        assert node.poll() is None, "the node exited while its source stalled"
        assert silent, "WATCHDOG=1 kept coming while no frame arrived"

        resumed = time.monotonic()
        threading.Thread(target=feed, args=(frames[40:],), daemon=True).start()
        listener.wait_for("WATCHDOG=1", resumed, "after frames came back")
    finally:
        node.terminate()
        try:
            node.wait(timeout=30)
        except subprocess.TimeoutExpired:
            node.kill()
        os.close(writer)
        listener.close()
        log.close()
