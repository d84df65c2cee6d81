"""Fixtures for the protocol and API tests (helpers live in node_harness.py: a second
conftest module of the same name in Tests/web must not shadow them)."""
import pytest

from node_harness import Node
from radosgw import serve_for_tests


@pytest.fixture
def make_node(tmp_path):
    nodes = []

    def start(*extra, store=None, **kwargs):
        node = Node(store or tmp_path / f"store{len(nodes)}", *extra, **kwargs)
        nodes.append(node)
        return node

    yield start
    for node in nodes:
        node.stop()


@pytest.fixture
def node(make_node):
    running = make_node()
    running.wait_healthy()
    return running


@pytest.fixture(scope="session")
def radosgw():
    """A real S3 service (radosgw.py), started once for the session: ~12 s."""
    yield from serve_for_tests()
