#!/usr/bin/env python3
"""ONVIF replay (Profile G) against the issue's goals: the first frame after PLAY, 10 min of
720p at `Rate-Control: no`, what serving a client costs the node, and whether four replays
at once cost the recording frames.

The store: 30 s of the test pattern recorded at 720p30 in 10 s chunks, copied back in time
(files and timestamps shifted, as the node itself would have named them) to hold 10 min
and more before the node starts again and records on. (The copies' frames keep their first
capture times in their SEIs, so frames are counted by the 0xABAC extension's times.) Clients on the same 2-core machine:
- GStreamer's ONVIF client (Tests/onvif/replay_client.py: rtspsrc onvif-mode,
  rtponvifparse, depayloader and parser) for the 10 min at full speed, and four at once;
- a raw RTSP client (Tests/onvif/immediate_client.py's) for the time from PLAY to the
  first packet of the key frame, 10 times at different starts.
The node's CPU is read from /proc; the recorder's frames dropped from /metrics.

Usage: bench/replay-bench.py [--node BIN]
"""
import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from live_node import REPO, LiveNode

sys.path.insert(0, str(REPO / "Tests/onvif"))
import immediate_client  # noqa: E402
from onvif_rtp import onvif_extension  # noqa: E402

CHUNK_MS = 10_000


def stamp(ms):
    return f"{ms // 1000}.{ms % 1000:03d}"


def fill_back(store, minutes):
    """Copies the recorded chunks back in time until the store holds `minutes` before them."""
    chunks = sorted(store.glob("chunk_*.mp4"))
    firsts = [int((store / f"timestamps_{chunk.name[6:-4]}.txt").read_text().split()[0]) for chunk in chunks]
    span = (max(firsts) - min(firsts)) + CHUNK_MS
    copies = 0
    for back in range(1, minutes * 60_000 // span + 2):
        for chunk in chunks:
            name = chunk.name[6:-4]
            times = [int(line) - back * span for line in (store / f"timestamps_{name}.txt").read_text().split()]
            new = stamp(times[0])
            shutil.copyfile(chunk, store / f"chunk_{new}.mp4")
            (store / f"timestamps_{new}.txt").write_text("".join(f"{t}\n" for t in times))
            copies += 1
    return min(firsts) - (minutes * 60_000 // span + 1) * span


def frames_held(store, start_ms, end_ms):
    """Frames the store's timestamps files put in [start, end]."""
    return sum(start_ms <= int(line) <= end_ms for path in store.glob("timestamps_*.txt") for line in path.read_text().split())


def frames_dropped(node):
    with urllib.request.urlopen(node.url("/metrics"), timeout=10) as response:
        text = response.read().decode()
    return int(re.search(r"^allspark_frames_dropped_total (\d+)", text, re.M).group(1))


def gstreamer_replay(node, start_ms, end_ms):
    """Runs the GStreamer client over [start, end]; returns its wall time and what it read."""
    uri = f"rtsp://127.0.0.1:{node.rtsp_port}/replay"
    begun = time.monotonic()
    done = subprocess.run([sys.executable, str(REPO / "Tests/onvif/replay_client.py"), uri, str(start_ms), str(end_ms)],
                          capture_output=True, text=True, timeout=600)
    took = time.monotonic() - begun
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return took, found


def first_packet_ms(node, start_ms):
    """From sending PLAY to the first packet of its range (a key frame), over a fresh session."""
    connection = immediate_client.Connection("127.0.0.1", node.rtsp_port, "admin", "none")
    url = f"rtsp://127.0.0.1:{node.rtsp_port}/replay"
    described = connection.request("DESCRIBE", url, {"Accept": "application/sdp"})
    base = described[2].get("content-base", url + "/")
    control = next(line[len("a=control:"):] for line in described[3].decode().splitlines()
                   if line.startswith("a=control:") and line != "a=control:*")
    track = control if control.startswith("rtsp://") else base.rstrip("/") + "/" + control
    session = connection.request("SETUP", track, {"Transport": "RTP/AVP/TCP;unicast;interleaved=0-1"})[2]["session"].split(";")[0]
    sent = time.monotonic()
    connection.request("PLAY", url, {"Session": session, "Range": f"clock={immediate_client.clock(start_ms)}-", "Rate-Control": "no"})
    while True:
        message = connection.next_message()
        if message[0] == "rtp" and message[1] == 0 and (ext := onvif_extension(message[2])) and ext[1]:
            took = (time.monotonic() - sent) * 1000
            break
    connection.socket.close()
    return took


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", default=str(REPO / ".build-package-deb12/release/allspark-node"))
    parser.add_argument("--minutes", type=int, default=10)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="replay-bench-"))
    recording = LiveNode(arguments.node, work, "1280x720", 30, "none", chunk_ms=CHUNK_MS)
    time.sleep(30)
    recording.stop()
    oldest = fill_back(recording.store, arguments.minutes)
    node = LiveNode(arguments.node, work, "1280x720", 30, "none", chunk_ms=CHUNK_MS)
    try:
        start_ms = oldest + 2_000
        end_ms = start_ms + arguments.minutes * 60_000
        cpu, wall = node.cpu_seconds(), time.monotonic()
        time.sleep(10)
        idle_share = (node.cpu_seconds() - cpu) / (time.monotonic() - wall)

        dropped = frames_dropped(node)
        cpu = node.cpu_seconds()
        took, found = gstreamer_replay(node, start_ms, end_ms)
        served_share = (node.cpu_seconds() - cpu) / took - idle_share
        # The extension's times: the copied chunks' frames still carry their first capture
        # times in their SEIs, the store's times are the shifted ones.
        stamps = sorted({round(packet[0]) for packet in found["packets"] if packet is not None})
        one = {"seconds": round(took, 2), "frames": len(stamps), "store_frames_from_first": frames_held(node.store, stamps[0], end_ms),
               "first_frame_before_start_ms": start_ms - stamps[0], "last_frame_before_end_ms": end_ms - stamps[-1], "realtime_multiple": round(arguments.minutes * 60 / took, 1),
               "ended": found["ended"], "node_cpu_share_serving": round(served_share, 3),
               "node_cpu_per_replayed_minute_s": round(served_share * took / arguments.minutes, 2),
               "recording_frames_dropped": frames_dropped(node) - dropped}

        latencies = [first_packet_ms(node, start_ms + index * 37_000) for index in range(10)]

        dropped = frames_dropped(node)
        begun = time.monotonic()
        four = [subprocess.Popen([sys.executable, str(REPO / "Tests/onvif/replay_client.py"),
                                  f"rtsp://127.0.0.1:{node.rtsp_port}/replay", str(start_ms + index * 60_000),
                                  str(start_ms + index * 60_000 + 120_000)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for index in range(4)]
        for process in four:
            process.communicate(timeout=600)
        four_result = {"seconds": round(time.monotonic() - begun, 2), "all_ended": all(p.returncode == 0 for p in four),
                       "recording_frames_dropped": frames_dropped(node) - dropped}
        print(json.dumps({"node_idle_cpu_share": round(idle_share, 3), "one_client_full_speed": one,
                          "first_key_frame_after_play_ms": {"median": round(statistics.median(latencies), 1),
                                                            "max": round(max(latencies), 1)},
                          "four_clients_2_min_each": four_result}, indent=2))
    finally:
        node.stop()


if __name__ == "__main__":
    main()
