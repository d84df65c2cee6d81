"""Helpers for the ONVIF suite (a module name of its own: Tests/protocol has a conftest too): two network namespaces joined by a veth pair (the node in
one, the clients in the other, so discovery's multicast stays between them), the node
started in its own, and the pythons of the two onvif-zeep-async versions under test."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from node_harness import NODE_BIN, Node  # noqa: E402

HERE = Path(__file__).resolve().parent
TOKEN = "onvif-suite-token-0123456789"
USER = "admin"
# The version the tests' venv holds (Tests/requirements.txt) and the newest, in a venv of its
# own (scripts/setup.sh --test): Home Assistant's pin and the latest release.
LATEST_PYTHON = Path(os.environ.get("ALLSPARK_ONVIF_LATEST_PYTHON", "/opt/allspark-onvif-latest/bin/python3"))
# onvif-python, the Media2 client, in a venv of its own (scripts/setup.sh --test).
MEDIA2_PYTHON = Path(os.environ.get("ALLSPARK_ONVIF_MEDIA2_PYTHON", "/opt/allspark-onvif-python/bin/python3"))


def run(*command, check=True, timeout=60, text=True, **kwargs):
    return subprocess.run(command, check=check, capture_output=True, text=text, timeout=timeout, **kwargs)


class NetworkPair:
    """Namespaces `node` and `clients`, 10.77.0.1/24 and 10.77.0.2/24 on a veth pair; each
    with loopback up and a multicast route on the veth. Nothing reaches outside them."""

    def __init__(self):
        tag = f"{os.getpid() % 100000}"
        self.node, self.clients = f"aonvn{tag}", f"aonvc{tag}"
        self.node_address, self.client_address = "10.77.0.1", "10.77.0.2"
        run("ip", "netns", "add", self.node)
        run("ip", "netns", "add", self.clients)
        run("ip", "link", "add", f"aov{tag}n", "type", "veth", "peer", "name", f"aov{tag}c")
        for namespace, device, address in ((self.node, f"aov{tag}n", self.node_address),
                                           (self.clients, f"aov{tag}c", self.client_address)):
            run("ip", "link", "set", device, "netns", namespace)
            inside = ("ip", "netns", "exec", namespace)
            run(*inside, "ip", "link", "set", "lo", "up")
            run(*inside, "ip", "addr", "add", f"{address}/24", "dev", device)
            run(*inside, "ip", "link", "set", device, "up", "multicast", "on")
            run(*inside, "ip", "route", "add", "224.0.0.0/4", "dev", device)

    def inside(self, namespace, *command, **kwargs):
        return run("ip", "netns", "exec", namespace, *command, **kwargs)

    def close(self):
        for namespace in (self.node, self.clients):
            run("ip", "netns", "del", namespace, check=False)


def can_make_namespaces():
    return os.geteuid() == 0 and shutil.which("ip") is not None


class NamespacedNode:
    """The node binary recording the test pattern inside `network.node`, on every address there."""

    def __init__(self, network, store, port=8090, rtsp_port=8554, discovery=False, extra_env=None, size="640x360", fps=15,
                 privacy="none"):
        self.network, self.port, self.rtsp_port = network, port, rtsp_port
        self.store = Path(store)
        self.host = network.node_address
        self.log_path = Path(store).parent / "node.log"
        self.log = open(self.log_path, "w")
        environment = {**os.environ, "ALLSPARK_SERVER_HOST": "0.0.0.0", "ALLSPARK_SERVER_ANNOUNCE": "false",
                       "ALLSPARK_SERVER_RTSP_PORT": str(rtsp_port), "ALLSPARK_CLOCK_SYNC_REQUIRED": "false",
                       "ALLSPARK_ONVIF_DISCOVERY": "true" if discovery else "false", **(extra_env or {})}
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", network.node, str(NODE_BIN), "run", "--config", "/dev/null", "--source", "testsrc",
             "--size", size, "--fps", str(fps), "--chunk-ms", "2000", "--privacy", privacy, "--store", str(store),
             "--port", str(port), "--token", TOKEN],
            stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        self.wait_ready()

    def url(self, path):
        return f"http://{self.host}:{self.port}{path}"

    def curl(self, *arguments, timeout=20):
        return self.network.inside(self.network.clients, "curl", "-s", "-m", "10", *arguments, check=False, timeout=timeout)

    def chunks(self, timeout=60):
        """The store's chunks as /api/chunks lists them, oldest first, once there is one."""
        deadline = time.time() + timeout
        while True:
            listed = json.loads(self.curl("-H", f"Authorization: Bearer {TOKEN}", self.url("/api/chunks")).stdout or "{}").get("chunks", [])
            if listed or time.time() > deadline:
                return sorted(listed, key=lambda chunk: chunk["startMs"])
            time.sleep(0.5)

    def frames_recorded(self, from_ms, to_ms):
        """Frames the store's timestamps files put in [from_ms, to_ms]."""
        return sum(from_ms <= int(line) <= to_ms
                   for path in self.store.glob("timestamps_*.txt") for line in path.read_text().split())

    def wait_ready(self, timeout=40):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"node exited: {self.log_path.read_text()[-3000:]}")
            status = self.curl("-o", "/dev/null", "-w", "%{http_code}", self.url("/api/health")).stdout
            snapshot = self.curl("-o", "/dev/null", "-w", "%{http_code}", "-H", f"Authorization: Bearer {TOKEN}",
                                 self.url("/api/snapshot.jpg")).stdout
            if status == "200" and snapshot == "200":
                return
            time.sleep(0.5)
        raise AssertionError(f"node not ready: {self.log_path.read_text()[-3000:]}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def client_pythons():
    """(label, python) for each onvif-zeep-async version present."""
    pythons = [("tests-venv", sys.executable)]
    if LATEST_PYTHON.exists():
        pythons.append(("latest", str(LATEST_PYTHON)))
    return pythons

