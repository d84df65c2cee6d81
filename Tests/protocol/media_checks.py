"""Durations and in-stream times of chunks and clips as readers nobody here wrote see them:
ffprobe, GStreamer (gstreamer_reader.py) and mediainfo (issue 31)."""
import json
import subprocess

import gstreamer_reader


def ffprobe_duration_and_frames(path):
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0",
         "-show_entries", "format=duration:stream=nb_read_packets", "-of", "json", str(path)],
        capture_output=True, text=True, check=True)
    found = json.loads(probe.stdout)
    return float(found["format"]["duration"]), int(found["streams"][0]["nb_read_packets"])


def mediainfo_duration_seconds(path):
    shown = subprocess.run(["mediainfo", "--Inform=General;%Duration%", str(path)],
                           capture_output=True, text=True, check=True).stdout.strip()
    return float(shown) / 1000


def assert_every_reader_agrees(path, frames, fps):
    """ffprobe, GStreamer's discoverer and mediainfo give `frames` frames' duration, within one frame."""
    expected = frames / fps
    duration, counted = ffprobe_duration_and_frames(path)
    assert counted == frames, f"{path}: ffprobe counts {counted} frames, not {frames}"
    readings = {"ffprobe": duration, "GStreamer": gstreamer_reader.discoverer_duration_seconds(path),
                "mediainfo": mediainfo_duration_seconds(path)}
    for reader, seconds in readings.items():
        assert abs(seconds - expected) <= 1 / fps + 0.002, f"{path}: {reader} says {seconds} s for {frames} frames ({expected} s)"


def stream_times_ms(path):
    """Each frame's time stamp SEI, in ms, as GStreamer's h264parse reads it (file order)."""
    return [None if stamp is None else round(stamp / 1000) for stamp in gstreamer_reader.precision_time_stamps_us(path)]
