"""mDNS with a real avahi-daemon (loopback only, started by scripts/start-avahi.sh)."""
import asyncio
import os
import subprocess
import time

import pytest

from node_harness import REPO, free_port
from edge_peer import EdgePeer

# pytest-xdist (scripts/test.sh, --dist loadgroup): one avahi-daemon for the machine: its services and browses are shared.
pytestmark = pytest.mark.xdist_group("avahi")


@pytest.fixture(scope="module", autouse=True)
def avahi_daemon():
    subprocess.run(["bash", str(REPO / "scripts/start-avahi.sh")], check=True, capture_output=True)


def browse(service_type):
    result = subprocess.run(["avahi-browse", "-rtp", service_type], capture_output=True, text=True, timeout=20)
    return [line.split(";") for line in result.stdout.splitlines() if line.startswith("=")]


def test_node_announces_itself_with_port_and_txt(make_node):
    port = free_port()
    os.environ["ALLSPARK_SERVER_ANNOUNCE"] = "true"
    try:
        node = make_node(port=port)
    finally:
        del os.environ["ALLSPARK_SERVER_ANNOUNCE"]
    node.wait_healthy()
    deadline = time.time() + 15
    entries = []
    while time.time() < deadline:
        entries = [entry for entry in browse("_allspark-node._tcp") if entry[8] == str(port)]
        if entries:
            break
        time.sleep(0.5)
    assert entries, "the node's service appears"
    txt = entries[0][9]
    assert '"api=/api"' in txt and '"tls=off"' in txt and '"version=' in txt and '"name=' in txt
    assert not browse("_allspark._tcp") or all(entry[8] != str(port) for entry in browse("_allspark._tcp")), \
        "the node must not pose as an edge server"
    _, status = node.json("/api/status")
    assert "registered" in status["announcement"]
    node.stop()
    time.sleep(1.5)
    assert not [entry for entry in browse("_allspark-node._tcp") if entry[8] == str(port)], "withdrawn at shutdown"


def test_uplink_auto_finds_an_edge_server_published_with_avahi_publish(make_node):
    port = free_port()
    publisher = subprocess.Popen(["avahi-publish", "-s", "AllSpark Server", "_allspark._tcp", str(port)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def scenario():
        peer = EdgePeer(port)
        await peer.start()
        node = make_node("--uplink", "auto")
        await peer.wait_for(lambda: peer.client_names, timeout=40, what="the node found by mDNS")
        await peer.stop()
        return node

    try:
        node = asyncio.run(scenario())
        _, status = node.json("/api/status")
        assert status["uplink"]["url"].endswith(f":{port}/")
    finally:
        publisher.kill()
        publisher.wait()
