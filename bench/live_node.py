"""A node recording the test pattern for the live-video benches, and what they read from it:
the capture time of every recorded frame, by the MD5 of its decoded picture."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import free_port, timestamps_name, wait_for_answer  # noqa: E402


class LiveNode:
    """`run` with the test pattern, privacy as asked, the API open on loopback, RTSP on."""

    def __init__(self, binary, work, size, fps, privacy, chunk_ms=10_000):
        self.port, self.rtsp_port = free_port(), free_port()
        self.store = Path(work) / "store"
        self.log_path = Path(work) / "node.log"
        environment = {**os.environ, "ALLSPARK_SERVER_AUTH": "none", "ALLSPARK_SERVER_HOST": "127.0.0.1",
                       "ALLSPARK_SERVER_ANNOUNCE": "false", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                       "ALLSPARK_SERVER_RTSP_PORT": str(self.rtsp_port)}
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "run", "--config", "/dev/null", "--source", "testsrc", "--size", size, "--fps", str(fps),
             "--privacy", privacy, "--chunk-ms", str(chunk_ms), "--store", str(self.store), "--port", str(self.port)],
            stdout=self.log, stderr=subprocess.STDOUT, env=environment, cwd=REPO)
        wait_for_answer(self.url("/api/health"), timeout=60)
        # The first keyframes, and the privacy pass warmed up.
        time.sleep(5)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def rtsp_url(self):
        return f"rtsp://127.0.0.1:{self.rtsp_port}/live"

    def status(self):
        with urllib.request.urlopen(self.url("/api/status"), timeout=10) as response:
            return json.load(response)

    def cpu_seconds(self):
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        """SIGTERM: the chunk being written is finished, so every frame shown is in a chunk."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)
        self.log.close()

    def capture_times_by_picture(self):
        """MD5 of each recorded frame's decoded picture -> its capture time (epoch ms)."""
        times = {}
        for chunk in sorted(self.store.glob("chunk_*.mp4")):
            stamps = self.store / timestamps_name(chunk.name)
            captured = [int(line) for line in stamps.read_text().split()]
            for md5, ms in zip(frame_md5s(["-i", str(chunk)]), captured):
                times[md5] = ms
        return times


def frame_md5s(arguments):
    result = subprocess.run(["ffmpeg", "-v", "error", *arguments, "-fps_mode", "passthrough", "-f", "framemd5", "-"],
                            capture_output=True, text=True, check=True)
    return [line.split(",")[-1].strip() for line in result.stdout.splitlines() if line and not line.startswith("#")]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_arguments(description, seconds):
    """The options both live benches take: the node binary and what it records."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", default=str(REPO / ".build-release/release/allspark-node"))
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--privacy", default="face")
    parser.add_argument("--seconds", type=int, default=seconds)
    return parser
