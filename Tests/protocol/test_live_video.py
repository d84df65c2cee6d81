"""Live video from a real node: the fMP4 stream, LL-HLS and RTSP (GStreamer's server), read
by real clients (ffprobe, ffmpeg, plain sockets), with and without the token."""
import hashlib
import json
import re
import socket
import subprocess
import time
import urllib.parse

import pytest
from node_harness import NODE_BIN, Node, free_port

# pytest-xdist (scripts/test.sh, --dist loadgroup): one node for the module (a module fixture) and RTSP/MSE viewers timed on it.
pytestmark = pytest.mark.xdist_group("live-video")

TOKEN = "live-s3cret"


@pytest.fixture(scope="module")
def live_node(tmp_path_factory):
    rtsp_port = free_port()
    node = Node(tmp_path_factory.mktemp("live") / "store", "--token", TOKEN, size="320x180", fps=10, chunk_ms=2000,
                env={"ALLSPARK_SERVER_RTSP_PORT": str(rtsp_port)})
    node.rtsp_port = rtsp_port
    try:
        node.wait_for_chunks(1, headers=bearer())
        yield node
    finally:
        node.stop()


def bearer():
    return {"Authorization": f"Bearer {TOKEN}"}


def rtsp_url(node, user="allspark", password=TOKEN):
    credentials = f"{user}:{urllib.parse.quote(password)}@" if user else ""
    return f"rtsp://{credentials}127.0.0.1:{node.rtsp_port}/live"


def run(arguments, timeout=60):
    return subprocess.run(arguments, capture_output=True, text=True, timeout=timeout)


def ffprobe_stream(url, *extra):
    return run(["ffprobe", "-v", "error", *extra, "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,width,height", "-of", "csv=p=0", url])


def test_hls_playlist_lists_parts_carrying_the_token(live_node):
    assert live_node.request("/live/index.m3u8")[0] == 401
    assert live_node.request("/live/index.m3u8?token=wrong")[0] == 401
    status, headers, body = live_node.request(f"/live/index.m3u8?token={TOKEN}")
    assert status == 200 and headers["Content-Type"] == "application/vnd.apple.mpegurl"
    playlist = body.decode()
    assert "#EXT-X-PART-INF:PART-TARGET=0.200" in playlist
    assert "CAN-BLOCK-RELOAD=YES" in playlist
    parts = re.findall(r'#EXT-X-PART:DURATION=([\d.]+),URI="([^"]+)"(,INDEPENDENT=YES)?', playlist)
    assert parts, playlist
    assert all(uri.endswith(f"?token={TOKEN}") for _, uri, _ in parts), "Safari cannot add a header: every URI carries it"
    assert all(float(duration) <= 0.2 + 1e-9 for duration, _, _ in parts)
    assert any(independent for _, _, independent in parts), "keyframe parts are marked INDEPENDENT"
    assert re.search(r'#EXT-X-MAP:URI="init-\d+\.mp4\?token=', playlist)
    assert re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-\d+\.mp4\?token=', playlist)
    # With the header instead, the URIs carry nothing.
    plain = live_node.request("/live/index.m3u8", headers=bearer())[2].decode()
    assert "token=" not in plain


def test_ffprobe_reads_the_hls_playlist_and_a_part(live_node, tmp_path):
    probed = ffprobe_stream(live_node.url(f"/live/index.m3u8?token={TOKEN}"))
    assert probed.returncode == 0, probed.stderr
    assert probed.stdout.split()[0] == "h264,320,180"

    playlist = live_node.request("/live/index.m3u8", headers=bearer())[2].decode()
    init_uri = re.search(r'#EXT-X-MAP:URI="([^"]+)"', playlist).group(1)
    part_uri = re.findall(r'#EXT-X-PART:[^\n]*URI="([^"]+)",INDEPENDENT=YES', playlist)[-1]
    init = live_node.request("/live/" + init_uri, headers=bearer())
    part = live_node.request("/live/" + part_uri, headers=bearer())
    assert init[0] == 200 and part[0] == 200
    joined = tmp_path / "part.mp4"
    joined.write_bytes(init[2] + part[2])
    frames = run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                  "stream=nb_read_frames", "-of", "csv=p=0", str(joined)])
    assert frames.returncode == 0, frames.stderr
    assert int(frames.stdout.strip()) >= 1, "an independent part decodes on its own"


def test_blocking_playlist_reload_waits_for_the_next_part(live_node):
    """A reload asking for the part after the last listed one is answered once that part
    exists: the hinted part is then listed. Judged by the part numbers, not by time: when a
    loaded box held this test so long between its two requests that the reload's playlist
    no longer lists parts as old as the hinted one (it slid past), the pair proves nothing
    and is asked again; a node that answered before the part existed lists parts that all
    come before it, every time."""
    part_numbers = re.compile(r'#EXT-X-PART:[^\n]*URI="part-(\d+)\.mp4')
    for attempt in range(5):
        playlist = live_node.request("/live/index.m3u8", headers=bearer())[2].decode()
        # The open segment: its number, and how many of its parts are listed.
        msn = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", playlist).group(1)) + playlist.count("#EXTINF")
        listed = playlist.split("#EXTINF")[-1].count("#EXT-X-PART:")
        hinted = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="(part-(\d+)\.mp4)"', playlist)
        assert hinted.group(1) not in playlist.split("#EXT-X-PRELOAD-HINT")[0]
        status, _, body = live_node.request(f"/live/index.m3u8?_HLS_msn={msn}&_HLS_part={listed}", headers=bearer())
        assert status == 200
        reloaded = body.decode()
        listed_numbers = [int(number) for number in part_numbers.findall(reloaded)]
        assert listed_numbers, reloaded
        assert int(hinted.group(2)) <= max(listed_numbers), \
            f"the reload answered before the part it waited for existed ({hinted.group(1)}):\n{reloaded}"
        if int(hinted.group(2)) >= min(listed_numbers):
            break
        print(f"attempt {attempt}: the playlist slid past {hinted.group(1)} between the two requests; again")
    else:
        pytest.fail("five reloads in a row came after the playlist had slid past the part they asked for")
    assert re.search(rf'#EXT-X-PART:[^\n]*URI="{hinted.group(1)}', reloaded), \
        "the reload answered before the part it waited for existed"
    # The part hinted now is held until it is complete, then served.
    next_hint = re.search(r'PRELOAD-HINT:TYPE=PART,URI="([^"]+)"', reloaded).group(1)
    assert live_node.request(f"/live/{next_hint}", headers=bearer())[0] == 200
    reloaded_msn = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", reloaded).group(1)) + reloaded.count("#EXTINF")
    assert live_node.request(f"/live/index.m3u8?_HLS_msn={reloaded_msn + 10}", headers=bearer())[0] == 400


def read_stream(node, seconds, headers):
    """Reads /live/stream.mp4 over a plain socket for `seconds`; returns status line, headers, body."""
    connection = socket.create_connection(("127.0.0.1", node.port), timeout=10)
    request = "GET /live/stream.mp4 HTTP/1.1\r\nHost: x\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    connection.sendall(request.encode())
    data = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            piece = connection.recv(65536)
        except socket.timeout:
            break
        if not piece:
            break
        data += piece
    connection.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode(errors="replace"), body


def dechunk(body):
    """The payload of a chunked HTTP body (the last chunk may be cut off)."""
    payload = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line, 16) if size_line else 0
        if size == 0:
            break
        payload += rest[:size]
        body = rest[size + 2:]
    return payload


def test_the_fmp4_stream_needs_the_token_and_starts_at_a_keyframe(live_node, tmp_path):
    head, _ = read_stream(live_node, 2, {})
    assert head.startswith("HTTP/1.1 401")
    head, body = read_stream(live_node, 3, bearer())
    assert head.startswith("HTTP/1.1 200"), head
    assert "x-live-start-capture-ms" in head.lower()
    stream = tmp_path / "live.mp4"
    stream.write_bytes(dechunk(body))
    frames = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame",
                  "-of", "csv=p=0", str(stream)])
    keys = [line.strip(",") for line in frames.stdout.split()]
    assert len(keys) >= 5, frames.stderr
    assert keys[0] == "1", "a viewer joins at a keyframe"


def verify_live_recording(node, path, tmp_path):
    """`allspark-node verify` and `probe` on a recording of the live stream: every GOP in it
    signed (issue 32) and its frames' capture times in it (issue 31)."""
    status, _, certificate = node.request("/api/signing/certificate", headers=bearer())
    assert status == 200
    (tmp_path / "node.pem").write_bytes(certificate)
    verified = run([str(NODE_BIN), "verify", str(path), "--certificate", str(tmp_path / "node.pem"), "--json"])
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads(verified.stdout)[0]
    assert report["status"] == "valid" and not report["problems"], report
    # 6 s at 1 s GOPs and 2 s chunks: GOPs signed inside a chunk and at its end alike.
    assert report["validGOPs"] >= 4 and report["validGOPs"] == report["signedGOPs"], report
    probed = run([str(NODE_BIN), "probe", str(path), "--json"])
    assert probed.returncode == 0, probed.stdout + probed.stderr
    times = json.loads(probed.stdout)
    assert times["lastFrameMs"] - times["firstFrameMs"] >= 4000, times


def test_the_live_streams_carry_the_signing_and_time_stamp_seis(live_node, tmp_path):
    head, body = read_stream(live_node, 7, bearer())
    assert head.startswith("HTTP/1.1 200"), head
    stream = tmp_path / "live.mp4"
    stream.write_bytes(dechunk(body))
    verify_live_recording(live_node, stream, tmp_path)
    saved = tmp_path / "rtsp.mp4"
    copied = run(["ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", rtsp_url(live_node), "-t", "7", "-c", "copy",
                  str(saved)], timeout=90)
    assert copied.returncode == 0, copied.stderr
    verify_live_recording(live_node, saved, tmp_path)


def test_rtsp_refuses_without_the_password(live_node):
    for url in (rtsp_url(live_node, user=None), rtsp_url(live_node, password="wrong")):
        refused = ffprobe_stream(url, "-rtsp_transport", "tcp")
        assert refused.returncode != 0
        assert "401" in refused.stderr, refused.stderr


def test_ffprobe_reads_the_rtsp_stream(live_node):
    probed = ffprobe_stream(rtsp_url(live_node), "-rtsp_transport", "tcp")
    assert probed.returncode == 0, probed.stderr
    assert probed.stdout.split()[0] == "h264,320,180"


def frame_md5s(arguments):
    result = run(["ffmpeg", "-v", "error", *arguments, "-f", "framemd5", "-"], timeout=90)
    assert result.returncode == 0, result.stderr
    return [line.split(",")[-1].strip() for line in result.stdout.splitlines() if line and not line.startswith("#")]


def test_rtsp_frames_are_the_recorded_frames(live_node):
    pulled = frame_md5s(["-rtsp_transport", "tcp", "-i", rtsp_url(live_node), "-frames:v", "15"])
    assert len(pulled) == 15 and len(set(pulled)) > 1, "the test pattern moves: frames differ"
    # Wait until the chunks hold those frames, then decode what was recorded.
    time.sleep(3)
    live_node.wait_for_chunks(3, headers=bearer())
    recorded = []
    for chunk in sorted(live_node.store.glob("chunk_*.mp4")):
        recorded += frame_md5s(["-i", str(chunk)])
    joined = ",".join(recorded)
    assert ",".join(pulled) in joined, "RTSP frames are a run of the recording's own frames"


def test_status_and_metrics_count_viewers_by_kind(live_node):
    live = live_node.json("/api/status", headers=bearer())[1]["live"]["viewers"]
    assert set(live) == {"mse", "hls", "rtsp", "replay"}
    assert live["hls"]["bytesSent"] > 0 and live["mse"]["bytesSent"] > 0 and live["rtsp"]["bytesSent"] > 0
    # Nobody replays the store here (Tests/onvif replays it and checks the counts).
    assert live["replay"]["viewers"] == 0 and live["replay"]["bytesSent"] == 0
    metrics = live_node.request("/metrics", headers=bearer())[2].decode()
    assert re.search(r'allspark_live_sent_bytes_total\{kind="rtsp"\} [1-9]', metrics), metrics
    assert 'allspark_live_viewers{kind="mse"}' in metrics


def test_a_stalled_viewer_does_not_hold_back_the_recording(live_node):
    before = live_node.json("/api/status", headers=bearer())[1]
    # A viewer that asks for the stream and then never reads: its socket fills up.
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", live_node.port))
    stalled.sendall(f"GET /live/stream.mp4 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode())
    try:
        chunks_before = before["recorder"]["chunksWritten"]
        live_node.wait_until(
            lambda: live_node.json("/api/status", headers=bearer())[1]["recorder"]["chunksWritten"] >= chunks_before + 6,
            timeout=90, what="six more chunks while a viewer is stalled")
        after = live_node.json("/api/status", headers=bearer())[1]
        assert after["recorder"]["framesDropped"] == before["recorder"]["framesDropped"]
        # Reading again, the viewer finds it fell behind and skipped to a keyframe.
        stalled.settimeout(5)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            stalled.recv(1 << 20)
            if live_node.json("/api/status", headers=bearer())[1]["live"]["viewers"]["mse"]["skips"] > before["live"]["viewers"]["mse"]["skips"]:
                break
        assert live_node.json("/api/status", headers=bearer())[1]["live"]["viewers"]["mse"]["skips"] > before["live"]["viewers"]["mse"]["skips"]
    finally:
        stalled.close()


def test_a_rotated_token_is_the_new_rtsp_password(make_node):
    rtsp_port = free_port()
    node = make_node(env={"ALLSPARK_SERVER_AUTH": "token", "ALLSPARK_SERVER_RTSP_PORT": str(rtsp_port)})
    node.rtsp_port = rtsp_port
    node.wait_healthy()

    def token(*extra):
        result = run([str(NODE_BIN), "token", "--config", "/dev/null", "--store", str(node.store), *extra])
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    old = token()
    node.wait_until(lambda: ffprobe_stream(rtsp_url(node, password=old), "-rtsp_transport", "tcp").returncode == 0,
                    what="RTSP playing with the token")
    new = token("--rotate")
    node.wait_until(lambda: "401" in ffprobe_stream(rtsp_url(node, password=old), "-rtsp_transport", "tcp").stderr,
                    what="the old token refused over RTSP")
    probed = ffprobe_stream(rtsp_url(node, password=new), "-rtsp_transport", "tcp")
    assert probed.returncode == 0, probed.stderr
