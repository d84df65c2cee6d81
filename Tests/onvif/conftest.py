"""Fixtures for the ONVIF suite (its helpers are in onvif_harness.py)."""
import pytest
from onvif_harness import TOKEN, NamespacedNode, NetworkPair, Node, can_make_namespaces


@pytest.fixture(scope="module")
def network():
    if not can_make_namespaces():
        pytest.skip("network namespaces need root and iproute2")
    pair = NetworkPair()
    yield pair
    pair.close()


@pytest.fixture(scope="module")
def onvif_node(network, tmp_path_factory):
    # Discovery on: the node is alone in its namespace, so no other node answers on 3702.
    node = NamespacedNode(network, tmp_path_factory.mktemp("onvif") / "store", discovery=True)
    yield node
    node.stop()


@pytest.fixture
def loopback_node(tmp_path):
    """A node on loopback with a token, for the raw SOAP requests."""
    node = Node(tmp_path / "store", "--token", TOKEN)
    node.wait_healthy(headers={"Authorization": f"Bearer {TOKEN}"})
    yield node
    node.stop()


def pytest_configure(config):
    # pytest-xdist's own mark, for runs with -n: the suite's tests share one node and one
    # pair of namespaces, so they go to one worker.
    config.addinivalue_line("markers", "xdist_group(name): run these tests in one xdist worker")
