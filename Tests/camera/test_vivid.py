"""The camera path on a real V4L2 driver (vivid, in a VM): devices, recording, formats,
faults (disconnect, streaming errors, a 10 s unplug) and a camera that comes back under
another /dev/videoN. One boot runs guest.sh; each test judges part of what it left."""
import json
import re
import subprocess
from pathlib import Path

FPS = 10
FRAME_MS = 1000 // FPS
CHUNK_MS = 2000
CHUNK_FRAMES = CHUNK_MS // FRAME_MS


def chunk_files(store):
    return sorted(Path(store).glob("chunk_*.mp4"), key=lambda path: stamp_ms(path))


def stamp_ms(path):
    seconds, milliseconds = path.stem.split("_", 1)[1].split(".")
    return int(seconds) * 1000 + int(milliseconds)


def timestamps(chunk):
    return [int(line) for line in chunk.with_name(chunk.name.replace("chunk_", "timestamps_").replace(".mp4", ".txt")).read_text().split()]


def decoded_frames(chunk):
    """Frames ffprobe decodes, and whether the first is a keyframe."""
    result = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", str(chunk)],
        capture_output=True, text=True, timeout=120)
    flags = [line.split(",")[0] for line in result.stdout.split() if line.strip()]
    return len(flags), bool(flags) and flags[0] == "1"


def capturing_lines(guest, name):
    return re.findall(r"capturing from (.+?) at (\d+x\d+)(.*)", guest.text(name, "node.log"))


def test_devices_lists_the_capture_nodes_with_formats_and_skips_the_others(guest):
    cameras = guest.json("devices.json")
    assert sorted(camera["busInfo"] for camera in cameras) == ["platform:vivid-000", "platform:vivid-001"], cameras
    listed = guest.text("v4l2-list-devices.txt")
    all_nodes = set(re.findall(r"/dev/video\d+", listed))
    assert len(all_nodes) > len(cameras), f"vivid also makes output, VBI and metadata nodes: {listed}"
    for camera in cameras:
        assert camera["driver"] == "vivid" and camera["source"] == "v4l2:" + camera["busInfo"]
        formats = {format["fourcc"]: format for format in camera["formats"]}
        assert {"YUYV", "NV12"} <= set(formats), formats.keys()
        sizes = formats["YUYV"]["sizes"]
        assert any(size["maxWidth"] == 320 and size["maxHeight"] == 180 for size in sizes), sizes
        assert all(size["maxFrameRate"] for size in sizes)
    text = guest.text("devices.txt")
    assert "source v4l2:platform:vivid-000" in text and "YUYV" in text


def test_recording_from_the_camera_chunks_frames_and_driver_timestamps(guest):
    steps = guest.steps()
    first_fault_ms = steps["fault disconnect"] * 1000
    chunks = [chunk for chunk in chunk_files(guest.path("record", "store")) if timestamps(chunk)[-1] < first_fault_ms]
    assert len(chunks) >= 3, guest.text("record", "node.log")[-3000:]
    for chunk in chunks:
        stamps = timestamps(chunk)
        assert stamp_ms(chunk) == stamps[0], "named after its first frame"
        assert all(later > earlier for earlier, later in zip(stamps, stamps[1:])), "strictly increasing"
        frames, keyframe_first = decoded_frames(chunk)
        assert frames == len(stamps) and keyframe_first
        # vivid stamps a frame when its thread gets to it (a few ms either way; a loaded box
        # makes it skip frames), so a 2 s chunk holds at most about 20.
        assert len(stamps) <= CHUNK_FRAMES + 2, f"{chunk.name}: {len(stamps)} frames in a 2 s chunk at {FPS} fps"
    # Wall-clock times: after vivid was loaded, before the third chunk was seen on disk.
    assert steps["vivid loaded"] * 1000 < timestamps(chunks[0])[0] < timestamps(chunks[2])[-1] < steps["record three-chunks"] * 1000
    # Cut by the frames' time: a chunk ends before its 2 s are up, and the next starts with
    # the first frame at or past them (the first chunk starts while the camera warms up).
    for chunk, following in zip(chunks, chunks[1:]):
        stamps, next_first = timestamps(chunk), timestamps(following)[0]
        assert stamps[-1] < stamps[0] + CHUNK_MS <= next_first, f"{chunk.name} then {following.name}"
    # The times are the driver's (read on the monotonic clock, mapped to wall clock), not
    # when the node got to each frame.
    assert "camera timestamps: the driver's, on the monotonic clock" in guest.text("record", "node.log")
    offered = {format["fourcc"] for camera in guest.json("devices.json") for format in camera["formats"]}
    source, size, format_text = capturing_lines(guest, "record")[0]
    assert size == "320x180"
    chosen = re.search(r"camera format (\w+)", format_text)
    assert chosen and chosen.group(1) in offered, format_text


def test_an_explicit_camera_format_is_honoured(guest):
    lines = capturing_lines(guest, "format")
    assert lines and "camera format nv12 (configured)" in lines[0][2], guest.text("format", "node.log")[-2000:]
    assert len(chunk_files(guest.path("format", "store"))) >= 2


def test_a_size_the_camera_cannot_give_is_refused_naming_what_it_can(guest):
    log = guest.text("badsize", "node.log")
    assert "cannot give 334x222; it offers" in log and "320x180" in log, log[-2000:]
    health = guest.json("badsize", "health.json")
    assert health["status"] == "error" and any("334x222" in problem for problem in health["problems"]), health
    assert guest.text("badsize", "exit-status").strip() == "0", "the node kept serving until told to stop"


def chunk_cut_by_the_first_failure(log):
    """The chunk the node finished as its source first failed: the last one logged before."""
    before_failure = log.split(" failed: ", 1)[0]
    finished = re.findall(r"chunk (chunk_[\d.]+\.mp4): (\d+) frames", before_failure)
    return finished[-1] if finished else (None, None)


def test_disconnect_mid_chunk_keeps_the_chunk_and_recording_resumes(guest):
    steps = guest.steps()
    # The disconnect was asked at at_ms and had happened by done_ms (v4l2-ctl's start in a
    # software-emulated guest takes a while).
    at_ms, done_ms = steps["fault disconnect"] * 1000, steps["fault disconnect done"] * 1000
    log = guest.text("record", "node.log")
    store = guest.path("record", "store")
    name, logged_frames = chunk_cut_by_the_first_failure(log)
    assert name and (store / name).exists(), f"the chunk in progress at the disconnect was kept: {log[-3000:]}"
    interrupted = store / name
    stamps = timestamps(interrupted)
    # It began before the camera went, and the store's next chunk began after the disconnect
    # was asked: it was the one open when the camera went (a loaded guest's camera may give
    # no frame for seconds before, so its last frame need not be near the disconnect).
    later = sorted(first for first in (timestamps(chunk)[0] for chunk in chunk_files(store)) if first > stamps[0])
    assert stamps[0] < done_ms and later and later[0] > at_ms, \
        f"it was the chunk in progress when the camera went: {stamps[0]}..{stamps[-1]}, next {later[:1]}, asked {at_ms}, done {done_ms}"
    frames, keyframe_first = decoded_frames(interrupted)
    assert frames == len(stamps) == int(logged_frames) and keyframe_first, "every frame it had, readable"
    assert "fault disconnect recovered" in steps, log[-3000:]
    assert any(timestamps(chunk)[0] > at_ms for chunk in chunk_files(store)), "recording resumed by itself"


def test_streaming_errors_are_come_through(guest):
    steps = guest.steps()
    chunks = chunk_files(guest.path("record", "store"))
    for fault in ("fatal-streaming", "streamon"):
        assert f"fault {fault} recovered" in steps, f"{fault}: {guest.text('record', 'node.log')[-3000:]}"
        at_ms = steps[f"fault {fault}"] * 1000
        assert any(timestamps(chunk)[0] > at_ms for chunk in chunks), f"recording after {fault}"
    log = guest.text("record", "node.log")
    assert log.count("failed:") >= 2 and "retrying in" in log


def test_a_10_s_unplug_turns_health_red_within_5_s_and_recording_resumes(guest):
    steps = guest.steps()
    unplugged = steps["fault unplug"]
    samples = guest.health_samples("record", "health-unplugged.txt")
    red = [(moment, body) for moment, code, body in samples if code == 503]
    # Each sample's time is when its request started; a loaded box spaces them out, so the
    # claim is judged on every request that started 5 s or more after the unplug.
    later = [(moment, code) for moment, code, _ in samples if unplugged + 5 <= moment < steps["fault plugged-back"]]
    assert later and all(code == 503 for _, code in later), f"red within 5 s: {samples[:12]}"
    assert any(body and any("no frame" in problem or "source" in problem for problem in body["problems"]) for _, body in red)
    status = guest.json("record", "status.json")
    assert status["recorder"]["recording"] is True
    assert "fault unplug recovered" in steps
    chunks = chunk_files(guest.path("record", "store"))
    assert any(timestamps(chunk)[0] > steps["fault plugged-back"] * 1000 for chunk in chunks), "recording resumed with no restart"
    assert guest.text("record", "exit-status").strip() == "0"
    for chunk in chunks:
        frames, keyframe_first = decoded_frames(chunk)
        assert frames == len(timestamps(chunk)) and keyframe_first, chunk.name


def test_source_auto_finds_a_capture_node_that_is_not_video0(guest):
    cameras = guest.json("devices-renumbered.json")
    assert cameras and all(camera["device"] != "/dev/video0" for camera in cameras), cameras
    source, _, _ = capturing_lines(guest, "auto")[0]
    assert source == f"camera v4l2:{cameras[0]['busInfo']} ({cameras[0]['device']})", source
    assert len(chunk_files(guest.path("auto", "store"))) >= 2


def test_a_camera_named_by_bus_info_is_followed_to_its_new_node_number(guest):
    def device_of(name):
        return next(camera["device"] for camera in guest.json("renumber", name) if camera["busInfo"] == "platform:vivid-000")

    before, after = device_of("devices-before.json"), device_of("devices-after.json")
    assert before != after, "the camera came back as another /dev/videoN"
    sources = [line[0] for line in capturing_lines(guest, "renumber")]
    assert sources[0] == f"camera v4l2:platform:vivid-000 ({before})"
    assert sources[-1] == f"camera v4l2:platform:vivid-000 ({after})", sources
    steps = guest.steps()
    assert "renumber recovered" in steps
    chunks = chunk_files(guest.path("renumber", "store"))
    assert any(timestamps(chunk)[0] > steps["renumber rebound"] * 1000 for chunk in chunks)
