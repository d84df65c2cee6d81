"""Secure by default: the token the node makes, its rotation, the open opt-out, slowing
guessers, the metrics token, and TLS with a certificate the node makes. Real node binary."""
import asyncio
import hashlib
import http.client
import json
import re
import socket
import ssl
import stat
import subprocess

import aiohttp
from edge_peer import EdgePeer
from node_harness import NODE_BIN, free_port
from wsclient import Peer

DEFAULT = {"ALLSPARK_SERVER_AUTH": "token"}


def token_command(store, *extra):
    result = subprocess.run([str(NODE_BIN), "token", "--config", "/dev/null", "--store", str(store), *extra],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_a_fresh_node_makes_a_token_and_the_api_needs_it(make_node):
    node = make_node(env=DEFAULT)
    node.wait_healthy()
    token_file = node.store / ".allspark-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    assert len(token) >= 22, "at least 128 bits"
    assert token_command(node.store) == token
    log = node.log_path.read_text()
    assert str(token_file) in log and token not in log, "the log says where the token is, not what it is"

    assert node.request("/api/status")[0] == 401
    assert node.request("/api/chunks", headers=bearer("wrong"))[0] == 401
    assert node.request("/api/status", headers=bearer(token))[0] == 200
    assert node.request("/metrics")[0] == 401 and node.request("/metrics", headers=bearer(token))[0] == 200
    assert node.request("/api/health")[0] == 200, "health stays open"
    assert node.request("/")[0] == 200, "the dashboard's files stay open"
    missing, wrong = node.request("/api/config")[2], node.request("/api/config", headers=bearer("x" * 43))[2]
    assert missing == wrong, "a refusal does not say whether a token was offered"


def test_rotating_stops_the_old_token_and_closes_its_websocket(make_node):
    node = make_node(env=DEFAULT)
    node.wait_healthy()
    old = token_command(node.store)

    async def scenario():
        peer = await Peer.connect(node.ws_url(f"/?token={old}"))
        assert (await peer.receive())["type"] == "clientConfig"
        new = await asyncio.to_thread(token_command, node.store, "--rotate")
        # The node looks at the token file 4 times a second; a busy machine may take longer.
        # Events pushed before the close (a chunkSaved, on a slow box) are passed over.
        deadline = asyncio.get_running_loop().time() + 30
        while True:
            closed = await peer.socket.receive(timeout=max(0.1, deadline - asyncio.get_running_loop().time()))
            if closed.type != aiohttp.WSMsgType.TEXT or '"chunkSaved"' not in closed.data:
                break
        await peer.close()
        return new, closed

    new, closed = asyncio.run(scenario())
    assert new != old and token_command(node.store) == new
    assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING), closed
    assert node.request("/api/status", headers=bearer(old))[0] == 401
    assert node.request("/api/status", headers=bearer(new))[0] == 200

    async def reconnect_with(token):
        try:
            peer = await Peer.connect(node.ws_url(f"/?token={token}"))
        except aiohttp.WSServerHandshakeError as error:
            return error.status
        await peer.close()
        return 101

    # Hummingbird answers every refused upgrade 400 (no reason given, so nothing said about the token).
    assert asyncio.run(reconnect_with(old)) in (400, 401)
    assert asyncio.run(reconnect_with(new)) == 101
    assert "the access token was rotated; closed 1 WebSocket" in node.log_path.read_text()


def test_auth_none_serves_without_a_token_and_warns(make_node):
    node = make_node("--auth", "none")
    node.wait_healthy()
    assert node.request("/api/status")[0] == 200 and node.request("/metrics")[0] == 200
    assert "server.auth is none: anyone who can reach port" in node.log_path.read_text()
    assert not (node.store / ".allspark-token").exists()


def request_from(source, port, path, token):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=bearer(token))
        response = connection.getresponse()
        return response.status, response.getheader("Retry-After"), response.read()
    finally:
        connection.close()


def test_many_wrong_tokens_from_one_address_are_slowed_not_another(make_node):
    node = make_node(env=DEFAULT)
    node.wait_healthy()
    token = token_command(node.store)
    answers = [request_from("127.0.0.1", node.port, "/api/status", f"guess-{n}")[0] for n in range(14)]
    assert answers[:10] == [401] * 10 and answers[10:] == [429] * 4, answers
    status, retry_after, body = request_from("127.0.0.1", node.port, "/api/status", token)
    assert status == 429 and 1 <= int(retry_after) <= 6, "even the right token waits on a throttled address"
    assert "too many failed attempts" in json.loads(body)["message"]
    assert request_from("127.0.0.2", node.port, "/api/status", token)[0] == 200, "another address is not slowed"
    assert request_from("127.0.0.2", node.port, "/api/health", "")[0] == 200


def test_a_metrics_token_opens_metrics_only(make_node):
    node = make_node(env={**DEFAULT, "ALLSPARK_SERVER_METRICS_TOKEN": "scrape-me"})
    node.wait_healthy()
    assert node.request("/metrics", headers=bearer("scrape-me"))[0] == 200
    assert node.request("/api/status", headers=bearer("scrape-me"))[0] == 401
    assert node.request("/metrics", headers=bearer(token_command(node.store)))[0] == 200


def served_fingerprint(port):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw) as tls:
            der = tls.getpeercert(binary_form=True)
    return ":".join(f"{byte:02X}" for byte in hashlib.sha256(der).digest())


def logged_fingerprint(node):
    found = re.findall(r"SHA-256 fingerprint ([0-9A-F:]{95})", node.log_path.read_text())
    assert found, node.log_path.read_text()[-2000:]
    return found[-1]


def test_tls_auto_serves_https_and_wss_with_the_logged_fingerprint_and_keeps_it(make_node, tmp_path):
    store = tmp_path / "tls-store"
    node = make_node("--tls", "auto", store=store, scheme="https", env=DEFAULT)
    pinned = ssl.create_default_context()
    pinned.check_hostname = False
    pinned.verify_mode = ssl.CERT_NONE
    node.wait_until(lambda: node.json("/api/health", context=pinned)[0] == 200, what="https health")
    fingerprint = logged_fingerprint(node)
    assert served_fingerprint(node.port) == fingerprint
    assert stat.S_IMODE((store / ".allspark-tls-key.pem").stat().st_mode) == 0o600
    token = token_command(store)
    assert node.request("/api/status", headers=bearer(token), context=pinned)[0] == 200

    async def over_wss():
        digest = bytes.fromhex(fingerprint.replace(":", ""))
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(node.ws_url(f"/?token={token}"), ssl=aiohttp.Fingerprint(digest)) as ws:
                return json.loads((await ws.receive(timeout=10)).data)

    assert asyncio.run(over_wss())["type"] == "clientConfig", "wss, pinned to the logged fingerprint"
    node.stop()

    again = make_node("--tls", "auto", store=store, scheme="https", env=DEFAULT)
    again.wait_until(lambda: again.json("/api/health", context=pinned)[0] == 200, what="https health after restart")
    assert logged_fingerprint(again) == fingerprint and served_fingerprint(again.port) == fingerprint, "the same certificate"


def test_the_uplink_still_dials_out_with_auth_on(make_node):
    port = free_port()

    async def scenario():
        peer = EdgePeer(port)
        await peer.start()
        make_node("--uplink", f"ws://127.0.0.1:{port}/", env=DEFAULT)
        await peer.wait_for(lambda: peer.chunk_saved, timeout=40, what="chunkSaved from a node with auth on")
        await peer.stop()
        return peer.client_names

    assert asyncio.run(scenario())


def test_token_command_refuses_to_rotate_a_configured_token(tmp_path):
    result = subprocess.run([str(NODE_BIN), "token", "--config", "/dev/null", "--store", str(tmp_path / "s"), "--rotate"],
                            capture_output=True, text=True, timeout=60, env={"ALLSPARK_SERVER_TOKEN": "fixed", "PATH": "/usr/bin:/bin"})
    assert result.returncode != 0 and "server.token" in result.stderr
