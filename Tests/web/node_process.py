"""A real allspark-node recording the test pattern, for the dashboard tests."""

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CHUNK_MS = 3000
SERVING_LINE = re.compile(r"serving the API, WebSocket and dashboard on https?://[^\s]*:(\d+)/")


def node_binary():
    return Path(os.environ.get("ALLSPARK_NODE_BIN", REPO_ROOT / ".build/debug/allspark-node")).resolve()


class RunningNode:
    """Starts the node on a free port (--port 0, read back from its log) and stops it."""

    def __init__(self, work_dir, token=None, privacy=("--privacy", "none"), extra=(), env=None):
        self.token = token
        self.store = Path(work_dir) / "store"
        self.log_path = Path(work_dir) / "node.log"
        arguments = [
            str(node_binary()), "run",
            "--source", "testsrc", "--size", "640x360", "--fps", "15",
            "--chunk-ms", str(CHUNK_MS), *privacy,
            "--store", str(self.store), "--port", "0", "--config", "/dev/null", *extra,
        ]
        if token:
            arguments += ["--token", token]
        self._log = open(self.log_path, "w")
        # CI machines run no time daemon: an unsynchronised kernel clock would make every
        # node degraded, so these tests judge the clock by its error bound only.
        # RTSP off unless a test asks for a port: nodes of parallel tests would share 8554.
        environment = {"ALLSPARK_CLOCK_SYNC_REQUIRED": "false", "ALLSPARK_SERVER_RTSP_PORT": "0", **os.environ, **(env or {})}
        if not token:
            # The dashboard's own behaviour with a token is what test_token_access.py covers.
            environment["ALLSPARK_SERVER_AUTH"] = "none"
        # The node serves web/ relative to its working directory: the repository root.
        self.process = subprocess.Popen(
            arguments, cwd=REPO_ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=environment)
        self.port = self._wait_for_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def _wait_for_port(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the node exited with {self.process.returncode}:\n{self.log_path.read_text()}")
            match = SERVING_LINE.search(self.log_path.read_text())
            if match:
                return int(match.group(1))
            time.sleep(0.2)
        raise TimeoutError(f"the node did not start serving:\n{self.log_path.read_text()}")

    def api(self, path, method="GET", body=None, authorized=True):
        """The parsed JSON answer and the HTTP status, sending the token when there is one."""
        headers = {"Content-Type": "application/json"}
        if self.token and authorized:
            headers["Authorization"] = f"Bearer {self.token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.load(response), response.status
        except urllib.error.HTTPError as error:
            return json.load(error), error.code

    def chunks(self):
        return self.api("/api/chunks")[0]["chunks"]

    def wait_for_chunks(self, count, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.chunks()) >= count:
                return
            time.sleep(0.5)
        raise TimeoutError(f"the node wrote fewer than {count} chunks:\n{self.log_path.read_text()}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
