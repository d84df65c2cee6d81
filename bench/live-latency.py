#!/usr/bin/env python3
"""Capture-to-display latency of live video, for each way of watching, from real clients.

The node records the test pattern (every frame is stamped with its wall-clock capture time
as it leaves the capture stage, before the privacy pass), with privacy on. Clients on the
same machine (same clock):
- dashboard: headless Chromium plays the page's MSE stream; requestVideoFrameCallback
  gives each frame's media time (mapped to its capture time by the page's own
  X-Live-Start-Capture-Ms) and its expected display time;
- rtsp: ffmpeg reads rtsp://.../live (TCP) and decodes; each decoded frame's MD5 is
  printed as it comes out (framemd5, flushed per frame) and stamped on arrival;
- rtsp-low-delay: the same, set up as a low-latency viewer is (`-fflags nobuffer -flags
  low_delay -threads 1`): ffmpeg's default decoder holds a frame per extra frame thread;
- hls: ffmpeg's HLS demuxer (no LL-HLS: whole segments) from the newest segment;
- node: the node's own share, capture to the socket: a Python client of the dashboard's
  fMP4 stream stamps each fragment as it arrives and maps its `tfdt` to capture time by
  X-Live-Start-Capture-Ms (no decoding or display);
- ll-hls: a Python client fetching each part as an LL-HLS player does, by its preload
  hint (the request is held until the part is complete; parts are numbered in order);
  a frame counts as received when its part arrived (no decoding or display).
For ffmpeg and ll-hls the capture time of a frame is found by decoding the recorded chunks
afterwards: the same MD5 in a chunk gives the time in its timestamps file.

Usage: bench/live-latency.py [--node BIN] [--size 1280x720] [--fps 30] [--privacy face]
                             [--seconds 30] [--ways node,dashboard,rtsp,rtsp-low-delay,hls,ll-hls]
"""
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from live_node import REPO, LiveNode, bench_arguments, frame_md5s, percentile

sys.path.insert(0, str(REPO / "Tests/web"))


def dashboard_latencies(node, seconds):
    from browser import start_chromium  # noqa: E402 - the web tests' Chromium setup

    driver = start_chromium(Path(tempfile.mkdtemp()))
    try:
        driver.get(node.url("/"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not driver.execute_script(
                "return document.getElementById('live-video').dataset.mediaStart"):
            time.sleep(0.2)
        # The first seconds are the player's start (it then catches up with live gently).
        time.sleep(3)
        driver.execute_script("""
            window.benchFrames = [];
            const video = document.getElementById('live-video');
            const onFrame = (now, metadata) => {
                const start = Number(video.dataset.startCaptureMs), mediaStart = Number(video.dataset.mediaStart);
                const captureMs = start + (metadata.mediaTime - mediaStart) * 1000;
                window.benchFrames.push(performance.timeOrigin + metadata.expectedDisplayTime - captureMs);
                video.requestVideoFrameCallback(onFrame);
            };
            video.requestVideoFrameCallback(onFrame);
        """)
        time.sleep(seconds)
        return driver.execute_script("return window.benchFrames")
    finally:
        driver.quit()


def stamped_md5s(arguments, seconds, warm_up_seconds=3):
    """Runs ffmpeg printing a framemd5 line per decoded frame; returns [(arrival ms, md5)]
    for the frames after the first `warm_up_seconds` (ffmpeg probes the stream first, then
    decodes what piled up meanwhile in a burst: start-up, not steady latency)."""
    process = subprocess.Popen(
        ["ffmpeg", "-v", "error", *arguments, "-fps_mode", "passthrough", "-flush_packets", "1", "-f", "framemd5", "-"],
        stdout=subprocess.PIPE, text=True, bufsize=1)
    arrivals = []
    timer = threading.Timer(seconds, process.terminate)
    timer.start()
    for line in process.stdout:
        if line and not line.startswith("#"):
            arrivals.append((time.time() * 1000, line.split(",")[-1].strip()))
    process.wait()
    timer.cancel()
    return [(arrived, md5) for arrived, md5 in arrivals if arrived > arrivals[0][0] + warm_up_seconds * 1000]


def boxes(data, start=0, end=None):
    """(type, payload start, box end) of the ISO boxes in data[start:end]."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = int.from_bytes(data[start:start + 4], "big"), data[start + 4:start + 8]
        if size < 8:
            return
        yield kind, start + 8, start + size
        start += size


def fragment_latencies(node, seconds, warm_up_seconds=3):
    """Stamps each fMP4 fragment of /live/stream.mp4 as its last byte arrives; returns the
    capture-to-arrival time of each fragment's frame (one frame a fragment)."""
    response = urllib.request.urlopen(node.url("/live/stream.mp4"), timeout=30)
    start_capture_ms = int(response.headers["X-Live-Start-Capture-Ms"])
    timescale, first_decode_time, latencies, buffer = None, None, [], b""
    began = time.monotonic()
    while time.monotonic() < began + warm_up_seconds + seconds:
        buffer += response.read1(65536)
        while len(buffer) >= 8 and len(buffer) >= int.from_bytes(buffer[:4], "big") >= 8:
            size, kind = int.from_bytes(buffer[:4], "big"), buffer[4:8]
            box, buffer = buffer[:size], buffer[size:]
            if kind == b"moov":
                mdhd = box[box.index(b"mdhd") + 4:]
                timescale = int.from_bytes(mdhd[12:16] if mdhd[0] == 0 else mdhd[20:24], "big")
            elif kind == b"moof":
                arrived = time.time() * 1000
                traf = next(b for b in boxes(box, 8) if b[0] == b"traf")
                _, at, _ = next(b for b in boxes(box, traf[1], traf[2]) if b[0] == b"tfdt")
                decode_time = int.from_bytes(box[at + 4:at + (12 if box[at] == 1 else 8)], "big")
                first_decode_time = decode_time if first_decode_time is None else first_decode_time
                if time.monotonic() > began + warm_up_seconds:
                    latencies.append(arrived - (start_capture_ms + (decode_time - first_decode_time) * 1000 / timescale))
    response.close()
    return latencies


def ll_hls_frames(node, seconds, folder, warm_up_seconds=3):
    """Follows the parts as an LL-HLS player does; returns [(arrival ms, md5)] per frame."""
    def get(path):
        with urllib.request.urlopen(node.url("/live/" + path), timeout=30) as response:
            return response.read()

    playlist = get("index.m3u8").decode()
    init = get(re.search(r'#EXT-X-MAP:URI="([^"]+)"', playlist).group(1))
    # From the newest independent part, so that every part after it decodes.
    part = int(re.findall(r'URI="part-(\d+)\.mp4",INDEPENDENT=YES', playlist)[-1])
    received = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        # Parts are numbered in order; asking for the next one blocks until it is complete.
        data = get(f"part-{part}.mp4")
        received.append((time.time() * 1000, data))
        part += 1
    stream = folder / "ll-hls.mp4"
    stream.write_bytes(init + b"".join(data for _, data in received))
    md5s = iter(frame_md5s(["-i", str(stream)]))
    # One moof per frame: each decoded frame belongs to the part it came in.
    frames = [(arrived, next(md5s)) for arrived, data in received for _ in range(data.count(b"moof"))]
    return [(arrived, md5) for arrived, md5 in frames if arrived > received[0][0] + warm_up_seconds * 1000]


def summary(name, latencies):
    if not latencies:
        return f"| {name} | 0 | – | – |"
    return (f"| {name} | {len(latencies)} | {percentile(latencies, 0.5):.0f} | {percentile(latencies, 0.95):.0f} |")


def main():
    parser = bench_arguments(__doc__, seconds=30)
    parser.add_argument("--ways", default="node,dashboard,rtsp,rtsp-low-delay,hls,ll-hls")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="live-latency-"))
    node = LiveNode(options.node, work, options.size, options.fps, options.privacy)
    results = {}
    pending = {}
    try:
        for way in options.ways.split(","):
            print(f"{way}: {options.seconds} s", file=sys.stderr)
            if way == "node":
                results[way] = fragment_latencies(node, options.seconds)
            elif way == "dashboard":
                results[way] = dashboard_latencies(node, options.seconds)
            elif way == "rtsp":
                pending[way] = stamped_md5s(["-rtsp_transport", "tcp", "-i", node.rtsp_url()], options.seconds)
            elif way == "rtsp-low-delay":
                pending[way] = stamped_md5s(
                    ["-fflags", "nobuffer", "-flags", "low_delay", "-threads", "1", "-rtsp_transport", "tcp",
                     "-i", node.rtsp_url()], options.seconds)
            elif way == "hls":
                pending[way] = stamped_md5s(["-live_start_index", "-1", "-i", node.url("/live/index.m3u8")], options.seconds)
            elif way == "ll-hls":
                pending[way] = ll_hls_frames(node, options.seconds, work)
        status = node.status()
    finally:
        node.stop()
    captured = node.capture_times_by_picture()
    for way, arrivals in pending.items():
        matched = [arrived - captured[md5] for arrived, md5 in arrivals if md5 in captured]
        if len(matched) < len(arrivals):
            print(f"{way}: {len(arrivals) - len(matched)} of {len(arrivals)} frames not found in the recording",
                  file=sys.stderr)
        results[way] = matched
    privacy = status["privacy"]
    print(f"{options.size} at {options.fps} fps, privacy {options.privacy} ({privacy['detector']}, "
          f"{privacy['searchesPerSecond']:.1f} searches/s, mean search {privacy['meanDetectionMs']:.0f} ms); "
          f"frames dropped by the recorder: {status['recorder']['framesDropped']}")
    print("| way | frames | median ms | p95 ms |")
    print("|---|---|---|---|")
    for way, latencies in results.items():
        print(summary(way, latencies))


if __name__ == "__main__":
    main()
