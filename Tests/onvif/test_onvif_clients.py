"""The node as an ONVIF camera, judged by clients no one here wrote: onvif-zeep-async (Home
Assistant's pin in the tests' venv, and the newest in a venv of its own) running Home
Assistant's own set-up sequence, ffprobe playing the stream URI it was handed with the
Digest credentials, across a veth pair between two network namespaces."""
import datetime
import json
import re
import subprocess
import sys
import time

import pytest
from node_harness import NODE_BIN, Node, free_port, timestamps_name
from onvif_harness import HERE, MEDIA2_PYTHON, TOKEN, USER, NamespacedNode, client_pythons

pytestmark = pytest.mark.xdist_group("onvif")


def home_assistant(network, node, python, password=TOKEN):
    done = network.inside(network.clients, python, str(HERE / "ha_client.py"), node.host, str(node.port), USER, password,
                          check=False, timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("label,python", client_pythons())
def test_home_assistant_adds_the_node(network, onvif_node, label, python):
    found = home_assistant(network, onvif_node, python)
    assert "fault" not in found, found
    assert found["library"] == ("4.3.0" if label == "latest" else "4.0.4") or label == "tests-venv", found["library"]
    base = f"http://{onvif_node.host}:{onvif_node.port}"
    # Every address handed out is the one the client reached the node on.
    assert found["xaddrs"]["http://www.onvif.org/ver10/media/wsdl"] == f"{base}/onvif/media_service"
    assert found["media_xaddr"] == f"{base}/onvif/media_service"
    # Home Assistant's unique id: the first enabled interface's MAC, the instance's own
    # (locally administered, made from the store's identity).
    assert found["macs"] and found["macs"][0].count(":") == 5 and int(found["macs"][0][:2], 16) & 3 == 2
    assert len(found["serial"]) == 36
    h264 = [p for p in found["profiles"] if p["encoding"] == "H264"]
    assert h264 and (h264[0]["width"], h264[0]["height"], h264[0]["fps"]) == (640, 360, 15)
    assert h264[0]["gop"] == 15 and h264[0]["bitrate"] > 0
    assert abs(found["clock_offset_s"]) <= 5
    assert found["clock_type"] in ("NTP", "Manual")
    assert found["manufacturer"] == "AllSpark" and found["firmware"]
    assert found["snapshot_capable"]
    assert found["stream_uri"] == f"rtsp://{onvif_node.host}:{onvif_node.rtsp_port}/live"
    assert found["snapshot_uri"] == f"{base}/onvif/snapshot.jpg"
    assert found["snapshot_is_jpeg"] and found["snapshot_bytes"] > 1000


@pytest.mark.parametrize("label,python", client_pythons())
def test_a_wrong_password_is_what_home_assistant_reads_as_an_auth_error(network, onvif_node, label, python):
    found = home_assistant(network, onvif_node, python, password="not-the-token")
    assert found.get("auth_error") is True, found
    assert any("NotAuthorized" in code for code in found["fault_subcodes"]), found


def test_ffprobe_plays_the_stream_uri_with_digest_credentials(network, onvif_node):
    uri = f"rtsp://{USER}:{TOKEN}@{onvif_node.host}:{onvif_node.rtsp_port}/live"
    probe = network.inside(
        network.clients, "ffprobe", "-v", "error", "-rtsp_transport", "tcp", "-select_streams", "v:0", "-count_frames",
        "-read_intervals", "%+3", "-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of", "json", uri,
        check=False, timeout=60)
    assert probe.returncode == 0, probe.stderr
    stream = json.loads(probe.stdout)["streams"][0]
    assert (stream["codec_name"], stream["width"], stream["height"]) == ("h264", 640, 360)
    assert int(stream["nb_read_frames"]) >= 15
    refused = network.inside(
        network.clients, "ffprobe", "-v", "error", "-rtsp_transport", "tcp", f"rtsp://{USER}:wrong@{onvif_node.host}:{onvif_node.rtsp_port}/live",
        check=False, timeout=60)
    assert refused.returncode != 0


def media2_client(network, node, password=TOKEN):
    assert MEDIA2_PYTHON.exists(), "onvif-python's venv is missing: run scripts/setup.sh --test"
    done = network.inside(network.clients, str(MEDIA2_PYTHON), str(HERE / "media2_client.py"), node.host, str(node.port), USER,
                          password, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_media2_client_gets_the_profile_and_plays_its_stream(network, onvif_node, tmp_path):
    found = media2_client(network, onvif_node)
    assert "fault" not in found, found
    assert found["snapshot_capable"] and found["rtp_rtsp_tcp"] and found["maximum_profiles"] == 1
    # Media2: without a type, the profile comes without its configurations.
    assert found["bare_profiles"] == [{"token": "main", "configurations": False}], found["bare_profiles"]
    [profile] = found["profiles"]
    assert (profile["encoding"], profile["width"], profile["height"], profile["fps"]) == ("H264", 640, 360, 15.0), profile
    assert profile["gop"] == 15 and profile["profile"] == "High" and profile["bitrate"] > 0
    assert found["options"][0]["gov_length_range"] == [15, 15] and found["options"][0]["resolutions"] == [[640, 360]]
    # ONVIF Media Signing: the profile says its stream is signed (the stream itself is checked below).
    assert profile["signed"] is True and found["options"][0]["signing"] is True, (profile, found["options"])
    live = f"rtsp://{onvif_node.host}:{onvif_node.rtsp_port}/live"
    assert found["stream_uri"] == found["stream_uri_udp"] == live
    assert found["snapshot_uri"] == f"http://{onvif_node.host}:{onvif_node.port}/onvif/snapshot.jpg"
    assert any("InvalidStreamSetup" in code for code in found["multicast_fault"]["subcodes"]), found["multicast_fault"]
    # The URI it was handed plays: frames decoded, at the profile's size.
    uri = found["stream_uri"].replace("rtsp://", f"rtsp://{USER}:{TOKEN}@", 1)
    decoded = network.inside(
        network.clients, "ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", uri, "-t", "2", "-f", "rawvideo",
        "-pix_fmt", "gray", "-", check=False, timeout=60, text=False)
    assert decoded.returncode == 0, decoded.stderr[-2000:].decode(errors="replace")
    assert len(decoded.stdout) >= 10 * 640 * 360 and len(decoded.stdout) % (640 * 360) == 0
    # Signed, as the profile said: 3 s of it as sent, and every signed GOP in it verifies.
    kept = tmp_path / "media2-live.mp4"
    copied = network.inside(network.clients, "ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", uri, "-t", "3", "-c", "copy",
                            str(kept), check=False, timeout=60)
    assert copied.returncode == 0, copied.stderr[-2000:]
    verified = subprocess.run([str(NODE_BIN), "verify", str(kept)], capture_output=True, text=True, timeout=60)
    signed_gops = re.search(r"signed GOPs: (\d+) valid of (\d+)", verified.stdout)
    assert verified.returncode == 0 and signed_gops and int(signed_gops[1]) == int(signed_gops[2]) >= 1, verified.stdout + verified.stderr
    refused = media2_client(network, onvif_node, password="not-the-token")
    assert any("NotAuthorized" in code for code in refused["fault"]["subcodes"]), refused


def test_the_snapshot_takes_digest_and_basic_and_refuses_without(onvif_node):
    url = onvif_node.url("/onvif/snapshot.jpg")
    for flag in ("--digest", "--basic"):
        fetched = onvif_node.curl(flag, "-u", f"{USER}:{TOKEN}", "-o", "/dev/null", "-w", "%{http_code} %{content_type}", url)
        assert fetched.stdout == "200 image/jpeg", (flag, fetched.stdout)
    digest = subprocess.run(["ip", "netns", "exec", onvif_node.network.clients, "curl", "-s", "--digest", "-u", f"{USER}:{TOKEN}", url],
                            capture_output=True, timeout=30)
    assert digest.stdout[:3] == b"\xff\xd8\xff"
    assert onvif_node.curl("-o", "/dev/null", "-w", "%{http_code}", url).stdout == "401"
    assert onvif_node.curl("--digest", "-u", f"{USER}:nope", "-o", "/dev/null", "-w", "%{http_code}", url).stdout in ("401", "429")


def test_ws_discovery_finds_the_node_as_home_assistant_looks(network, onvif_node):
    done = network.inside(network.clients, __import__("sys").executable, str(HERE / "discovery_client.py"), "4", check=False, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    found = [service for service in json.loads(done.stdout.strip().splitlines()[-1])
             if f"http://{onvif_node.host}:{onvif_node.port}/onvif/device_service" in service["xaddrs"]]
    assert len(found) == 1, done.stdout
    service = found[0]
    assert service["epr"].startswith("urn:uuid:") and len(service["epr"]) == 45
    assert "http://www.onvif.org/ver10/network/wsdl NetworkVideoTransmitter" in service["types"]
    for scope in ("onvif://www.onvif.org/Profile/Streaming", "onvif://www.onvif.org/Profile/S"):
        assert scope in service["scopes"]
    # XAddrs[0] is reachable from the clients.
    assert onvif_node.curl("-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", service["xaddrs"][0]).stdout == "400"


@pytest.mark.parametrize("label,python", client_pythons())
def test_home_assistant_takes_the_events_through_a_pull_point(network, onvif_node, label, python):
    """Home Assistant's event manager: a PullPoint subscription at an address from the Host,
    every property's state after the synchronization point (the test pattern moves, the
    recorder records, the store takes chunks, the source gives frames), a Renew, and no
    pull after Unsubscribe."""
    done = network.inside(network.clients, python, str(HERE / "events_client.py"), onvif_node.host, str(onvif_node.port),
                          USER, TOKEN, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "fault" not in found, found
    base = f"http://{onvif_node.host}:{onvif_node.port}"
    assert found["events_xaddr"] == f"{base}/onvif/event_service" and found["pullpoint_support"], found
    assert found["subscription"].startswith(f"{base}/onvif/subscription/"), found
    # Asked for 600 s; what is left at the pull depends on how fast the client got there.
    assert 300 < found["lifetime_s"] <= 600, found
    states = {}
    for message in found["messages"]:
        assert message["operation"] in ("Initialized", "Changed"), message
        states[message["topic"]] = (message["source"], message["data"])
    assert states["tns1:RuleEngine/CellMotionDetector/Motion"][1] == {"IsMotion": "true"}, states
    assert states["tns1:RuleEngine/CellMotionDetector/Motion"][0]["VideoSourceConfigurationToken"]
    assert states["tns1:RecordingConfig/JobState"][1] == {"State": "Active"}, states
    assert states["tns1:Device/HardwareFailure/StorageFailure"][1] == {"Failed": "false"}, states
    assert states["tns1:VideoSource/SignalLoss"][1] == {"State": "false"}, states
    assert found["renewed_s"] == 120, found
    assert found["pull_after_unsubscribe"].startswith("fault"), found


def test_two_instances_on_one_box_are_two_cameras_to_home_assistant(network, onvif_node, tmp_path):
    """One instance per camera on one box: Home Assistant keys a camera by the first enabled
    interface's MAC (else the serial number), so each instance must give its own."""
    second = NamespacedNode(network, tmp_path / "store", port=8091, rtsp_port=8555)
    try:
        first_found, second_found = home_assistant(network, onvif_node, sys.executable), home_assistant(network, second, sys.executable)
    finally:
        second.stop()
    for found in (first_found, second_found):
        assert "fault" not in found and found["macs"], found
    assert first_found["macs"][0] != second_found["macs"][0], (first_found["macs"], second_found["macs"])
    assert first_found["serial"] != second_found["serial"]
    assert second_found["stream_uri"] == f"rtsp://{second.host}:8555/live"


@pytest.mark.parametrize("label,python", client_pythons())
def test_a_vms_finds_the_recording_and_its_span_through_profile_g_search(network, onvif_node, label, python):
    """Profile G's search as a VMS uses it: one recording covering the store's footage, the
    same as /api/chunks lists it, found by FindRecordings; FindEvents from a minute before it
    gives the state then (no footage) and footage beginning at its first chunk; the
    recording service's one recording and its job, active while the node records."""
    # The store's first chunk before the client asks (a node just started has none yet).
    assert onvif_node.chunks(), "the node recorded no chunk"
    done = network.inside(network.clients, python, str(HERE / "search_client.py"), onvif_node.host, str(onvif_node.port),
                          USER, TOKEN, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "fault" not in found, found
    base = f"http://{onvif_node.host}:{onvif_node.port}"
    assert found["search_xaddr"] == f"{base}/onvif/search_service", found
    assert found["recording_xaddr"] == f"{base}/onvif/recording_service", found
    assert found["capabilities_search"] == found["search_xaddr"], found
    chunks = onvif_node.chunks()
    first = datetime.datetime.fromtimestamp(chunks[0]["startMs"] / 1000, datetime.timezone.utc)
    summary = found["summary"]
    assert summary["recordings"] == 1, found
    assert abs(datetime.datetime.fromisoformat(summary["from"]) - first) < datetime.timedelta(milliseconds=2), (summary, chunks[0])
    assert summary["from"] < summary["until"], summary
    assert found["recordings_state"] == "Completed" and len(found["found"]) == 1, found
    recording = found["found"][0]
    assert recording["status"] == "Recording", recording
    assert [track["type"] for track in recording["tracks"]] == ["Video"], recording
    assert recording["tracks"][0]["from"] == summary["from"], (recording, summary)
    assert found["earliest"] == summary["from"], found
    events = found["events"]
    assert events[0]["start_state"] is True and events[0]["data"] == {"IsDataPresent": "false"}, events
    assert events[0]["time"] == found["events_start"], events
    assert events[1]["start_state"] is False and events[1]["data"] == {"IsDataPresent": "true"}, events
    assert events[1]["time"] == summary["from"], (events, summary)
    for event in events:
        assert event["topic"] == "tns1:RecordingHistory/Track/State", event
        assert event["source"]["RecordingToken"] == recording["token"], event
    assert found["recordings"] == [recording["token"]], found
    assert found["dynamic_recordings"] is False and found["job_state"] == "Active", found
    assert found["replay_xaddr"] == f"{base}/onvif/replay_service", found
    assert found["replay_uri"] == f"rtsp://{onvif_node.host}:{onvif_node.rtsp_port}/replay", found
    assert found["reverse_playback"] is False and found["replay_session_timeout_s"] == 90, found


def footage_until(node, end_ms, timeout=60):
    """Waits until the store's chunks reach `end_ms`."""
    deadline = time.time() + timeout
    while (chunks := node.chunks())[-1]["endMs"] < end_ms and time.time() < deadline:
        time.sleep(1)
    assert chunks[-1]["endMs"] >= end_ms, chunks


def replay_viewers(node):
    status = json.loads(node.curl("-H", f"Authorization: Bearer {TOKEN}", node.url("/api/status")).stdout)
    return status["live"]["viewers"]["replay"]


def test_gstreamers_onvif_client_replays_a_time_range_of_the_store(network, onvif_node):
    """Profile G's replay as GStreamer's ONVIF client (rtspsrc onvif-mode) plays it: a range
    of footage from the store, asked as clock time with Rate-Control: no. Every frame's
    0xABAC extension carries its capture time, which is the time stamp SEI the recorder put
    in the frame itself; the first is the key frame at or before the range's start, within
    one GOP (a second here), and the last is inside the range; the server ends the stream."""
    start_ms = onvif_node.chunks()[0]["startMs"] + 1500
    end_ms = start_ms + 3000
    footage_until(onvif_node, end_ms + 1000)
    uri = f"rtsp://{USER}:{TOKEN}@{onvif_node.host}:{onvif_node.rtsp_port}/replay"
    sent_before = replay_viewers(onvif_node)["bytesSent"]
    done = network.inside(network.clients, sys.executable, str(HERE / "replay_client.py"), uri, str(start_ms), str(end_ms),
                          check=False, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["ended"], "the server did not end the replay"
    # /api/status and /metrics count replay's clients and what they were sent; the client
    # gone, its media goes too.
    deadline = time.time() + 20
    while (counted := replay_viewers(onvif_node))["viewers"] and time.time() < deadline:
        time.sleep(0.5)
    assert counted["viewers"] == 0 and counted["bytesSent"] - sent_before >= 3 * 15 * 200, (sent_before, counted)
    metrics = onvif_node.curl("-H", f"Authorization: Bearer {TOKEN}", onvif_node.url("/metrics")).stdout
    assert f'allspark_live_sent_bytes_total{{kind="replay"}} {counted["bytesSent"]}' in metrics
    extensions = [packet for packet in found["packets"] if packet is not None]
    assert extensions, found
    first_ms, clean_point = extensions[0][0], extensions[0][1]
    assert clean_point, "the replay does not start at a key frame"
    assert start_ms - 1000 - 1 <= first_ms <= start_ms + 1, (first_ms, start_ms)
    assert all(first_ms - 1 <= packet[0] <= end_ms + 1 for packet in extensions), (extensions[0], extensions[-1], start_ms, end_ms)
    frame_times = sorted({round(packet[0]) for packet in extensions})
    # Every frame the store holds from the key frame to the range's end (the last one may
    # fall a fraction of a millisecond past the end as the chunk's clock counts it).
    held = onvif_node.frames_recorded(frame_times[0] - 1, end_ms)
    assert held - 1 <= len(frame_times) <= held and held >= 2 * (end_ms - start_ms) // 1000, (len(frame_times), held)
    assert extensions[-1][4], "the last packet does not carry the T (terminal) bit"
    stamps_ms = [stamp / 1000 for stamp in found["frames"] if stamp is not None]
    assert len(stamps_ms) >= len(frame_times) - 1, (len(stamps_ms), len(frame_times))
    # The frames' own time stamps are the times the extension gave them.
    assert all(any(abs(stamp - time_ms) <= 2 for time_ms in frame_times) for stamp in stamps_ms), (stamps_ms[:5], frame_times[:5])


def test_a_replay_reaches_into_the_chunk_being_written(tmp_path):
    """Chunks of 10 s: two seconds of footage a few seconds old are only in the chunk the
    recorder is writing, and GStreamer's ONVIF client replays them from its complete
    fragments; once that chunk is finished, its timestamps file holds exactly the frames
    the replay sent."""
    rtsp_port = free_port()
    node = Node(tmp_path / "store", "--token", TOKEN, chunk_ms=10_000, env={"ALLSPARK_SERVER_RTSP_PORT": str(rtsp_port)})
    try:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        node.wait_healthy(headers=headers)
        last_end = node.wait_for_chunks(1, timeout=60, headers=headers)[-1]["endMs"]
        start_ms, end_ms = last_end + 1000, last_end + 3000
        # Past the range by several fragments (a key frame a second: a loaded box writes them
        # late), before the chunk's end (10 s after it began).
        while time.time() * 1000 < end_ms + 5000:
            time.sleep(0.2)
        assert node.chunks(headers)[-1]["endMs"] < start_ms, "the range is in a finished chunk already: no test"
        done = subprocess.run([sys.executable, str(HERE / "replay_client.py"), f"rtsp://{USER}:{TOKEN}@127.0.0.1:{rtsp_port}/replay",
                               str(start_ms), str(end_ms)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        found = json.loads(done.stdout.strip().splitlines()[-1])
        assert found["ended"], "the server did not end the replay"
        frame_times = sorted({round(packet[0]) for packet in found["packets"] if packet is not None})
        assert frame_times and start_ms - 1000 - 1 <= frame_times[0] <= start_ms + 1 and frame_times[-1] <= end_ms + 1, frame_times
        finished = node.wait_until(lambda: (c := node.chunks(headers)) and c[-1]["endMs"] >= end_ms and c, timeout=60,
                                   what="the chunk finished")
        held = [int(line) for chunk in finished for line in (node.store / timestamps_name(chunk["file"])).read_text().split()]
        expected = sorted(time_ms for time_ms in held if frame_times[0] <= time_ms <= end_ms)
        assert len(frame_times) in (len(expected), len(expected) - 1) and len(expected) >= 25, (len(frame_times), len(expected))
    finally:
        node.stop()


def test_a_play_with_immediate_moves_a_running_replay(network, onvif_node):
    """ONVIF Streaming's Immediate: yes: a second PLAY on a replay that is playing (at the
    recorded pace) moves it at once, without a PAUSE. Each PLAY's answer names the key frame
    it starts from; after the second answer, every packet is the new range's, from its key
    frame."""
    a_ms = onvif_node.chunks()[0]["startMs"] + 1500
    b_ms = a_ms + 4000
    footage_until(onvif_node, b_ms + 5000)
    client = subprocess.Popen(["ip", "netns", "exec", network.clients, sys.executable, str(HERE / "immediate_client.py"), onvif_node.host,
                               str(onvif_node.rtsp_port), USER, TOKEN, str(a_ms), str(b_ms)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # While it plays at the recorded pace (seconds), /api/status counts it as replay's one viewer.
    viewers_seen = set()
    while client.poll() is None:
        viewers_seen.add(replay_viewers(onvif_node)["viewers"])
        time.sleep(0.2)
    stdout, stderr = client.communicate(timeout=120)
    assert client.returncode == 0, stderr[-3000:]
    assert 1 in viewers_seen and max(viewers_seen) == 1, viewers_seen
    found = json.loads(stdout.strip().splitlines()[-1])
    assert found["first"]["status"] == 200 and found["second"]["status"] == 200, found
    first, second = found["first_frames"], found["second_frames"]
    assert first[0][1] and a_ms - 1001 <= first[0][0] <= a_ms, first[:3]
    assert all(packet[0] < b_ms - 1000 for packet in first), first[-3:]
    assert second[0][1] and b_ms - 1001 <= second[0][0] <= b_ms, (found["in_flight"][-3:], second[:3])
    assert all(packet[0] >= second[0][0] for packet in second), second
