import sys
from pathlib import Path

import pytest

from browser import start_chromium
from node_process import RunningNode

# The S3 service the archive tests use lives with the protocol tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from radosgw import serve_for_tests  # noqa: E402


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    running = RunningNode(tmp_path_factory.mktemp("node"))
    try:
        running.wait_for_chunks(2)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def token_node(tmp_path_factory):
    running = RunningNode(tmp_path_factory.mktemp("token-node"), token="s3cret-token")
    try:
        running.wait_for_chunks(2)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def cascades_node(tmp_path_factory):
    """Face masking with no DNN model where it was asked for: the cascades run, degraded."""
    work = tmp_path_factory.mktemp("cascades-node")
    running = RunningNode(work, privacy=("--privacy", "face", "--privacy-model", str(work / "missing.onnx")))
    try:
        running.wait_for_chunks(1)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def radosgw():
    """A real S3 service for the archive card (see Tests/protocol/radosgw.py)."""
    yield from serve_for_tests()


@pytest.fixture
def downloads(tmp_path):
    folder = tmp_path / "downloads"
    folder.mkdir()
    return folder


@pytest.fixture
def driver(downloads):
    chromium = start_chromium(downloads)
    try:
        yield chromium
    finally:
        chromium.quit()
