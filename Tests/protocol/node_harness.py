"""The real allspark-node binary, run for protocol and API tests."""
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = Path(os.environ.get("ALLSPARK_NODE_BIN", REPO / ".build/debug/allspark-node"))


def timestamps_name(chunk_name):
    """The timestamps file that goes with a chunk (`chunk_<stamp>.mp4` → `timestamps_<stamp>.txt`)."""
    return chunk_name.replace("chunk_", "timestamps_").rsplit(".", 1)[0] + ".txt"


def add_chunk(store, start_ms, size):
    """A chunk the store indexes from its timestamps file; its bytes are a pattern, not video."""
    stamp = f"{start_ms // 1000}.{start_ms % 1000:03d}"
    chunk = store / f"chunk_{stamp}.mp4"
    block = os.urandom(1 << 20)
    with open(chunk, "wb") as output:
        for _ in range(size >> 20):
            output.write(block)
        output.write(block[: size & ((1 << 20) - 1)])
    (store / f"timestamps_{stamp}.txt").write_text("".join(f"{start_ms + 33 * i}\n" for i in range(30)))
    return chunk


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mib(pid):
    """The process's peak resident memory (VmHWM), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def wait_for_answer(url, timeout=30):
    """Waits until a freshly started node answers `url` with a success."""
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


# Parallel pytest-xdist workers (scripts/test.sh) each take ports from a range of their own,
# below the kernel's ephemeral ports (32768 and up), so no two workers' nodes, peers and
# proxies are handed the same free port between its check here and its bind.
_WORKER = int(re.sub(r"\D", "", os.environ.get("PYTEST_XDIST_WORKER", "")) or -1)
_PORTS_PER_WORKER = 1500
_next_port = None


def free_port():
    global _next_port
    if _WORKER < 0:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    first = 12000 + (_WORKER % 13) * _PORTS_PER_WORKER
    for _ in range(_PORTS_PER_WORKER):
        if _next_port is None or not first <= _next_port < first + _PORTS_PER_WORKER:
            _next_port = first
        port, _next_port = _next_port, _next_port + 1
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in worker {_WORKER}'s range from {first}")


class Node:
    """One node process recording the test pattern, serving on a free loopback port."""

    def __init__(self, store, *extra, port=None, size="320x240", fps=15, chunk_ms=2000, scheme="http", env=None, log_dir=None):
        self.store = Path(store)
        self.fps = fps
        self.port = port or free_port()
        self.scheme = scheme
        self.log_path = Path(log_dir or self.store.parent) / f"node-{self.port}.log"
        arguments = [
            str(NODE_BIN), "run", "--config", "/dev/null", "--source", "testsrc", "--size", size,
            "--fps", str(fps), "--chunk-ms", str(chunk_ms), "--privacy", "none",
            "--store", str(self.store), "--port", str(self.port), *extra,
        ]
        # Loopback only and no mDNS, unless a test's environment says otherwise. CI machines
        # run no time daemon, so the clock is judged by its error bound only (test_clock.py
        # checks the synchronisation rule itself). The API is open unless the test gives a
        # token or asks for the default (test_access.py covers the token the node makes).
        # RTSP off unless a test asks for a port: nodes of parallel tests would share 8554;
        # WS-Discovery off unless a test wants it: they would all answer on UDP 3702.
        environment = {"ALLSPARK_SERVER_HOST": "127.0.0.1", "ALLSPARK_SERVER_ANNOUNCE": "false",
                       "ALLSPARK_SERVER_RTSP_PORT": "0", "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                       "ALLSPARK_ONVIF_DISCOVERY": "false",
                       **os.environ, **(env or {})}
        if "--token" not in extra and "--auth" not in extra:
            environment.setdefault("ALLSPARK_SERVER_AUTH", "none")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(arguments, stdout=self.log, stderr=subprocess.STDOUT, env=environment, cwd=REPO)

    def url(self, path):
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def ws_url(self, path="/"):
        return f"{'wss' if self.scheme == 'https' else 'ws'}://127.0.0.1:{self.port}{path}"

    def request(self, path, method="GET", body=None, headers=None, context=None):
        """Returns (status, headers, body bytes) without raising on HTTP errors."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url(path), data=data, method=method, headers=headers or {})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10, context=context) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, path, **kwargs):
        status, _, body = self.request(path, **kwargs)
        return status, json.loads(body)

    def wait_until(self, condition, timeout=30, what="condition"):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"node exited ({self.process.returncode}):\n{self.log_path.read_text()[-3000:]}")
            try:
                result = condition()
                if result:
                    return result
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; node log:\n{self.log_path.read_text()[-3000:]}")

    def wait_healthy(self, **kwargs):
        return self.wait_until(lambda: self.json("/api/health", **kwargs)[0] == 200, what="/api/health 200")

    def chunks(self, headers=None):
        return self.json("/api/chunks", headers=headers)[1]["chunks"]

    def wait_for_chunks(self, count, timeout=40, headers=None):
        return self.wait_until(lambda: (c := self.chunks(headers)) and len(c) >= count and c, timeout, f"{count} chunks")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return self.process.returncode


def put_ahead_of_the_rest_of_the_machine(pid):
    """The node's threads at nice -10, as on an appliance whose main work it is: what a test
    throws at it (floods, a fuzzer) must cost the recording nothing, while the test
    command's builds and VMs beside it would otherwise take the CPU its frames need (17
    frames lost in a loaded run of the floods, 7 in one of the fuzzer beside both VM
    suites). Nice values are per thread on Linux: each thread is set. Needs root (as CI
    is); elsewhere the node keeps its priority."""
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            os.setpriority(os.PRIO_PROCESS, int(task), -10)
        except (PermissionError, ProcessLookupError):
            pass
