"""ONVIF replay as a VMS plays it, with GStreamer's own ONVIF client (rtspsrc onvif-mode,
from Debian's gstreamer1.0-plugins-good), through its C libraries with ctypes (python3-gi
serves only the system python): a seek to [START, END] in clock time (ns since 1900),
which rtspsrc sends as `Range: clock=...` with `Require: onvif-replay` and `Rate-Control:
no`, then everything the server sends until its end (rtponvifparse ends the stream at the
packet with the T bit). Its jitter buffer takes the RTP times as they are (buffer-mode
none), as a recording client does: in its default mode GStreamer 1.22 discards the first
frame of a TCP stream whose packets arrive before the pipeline's clock runs, which a
replay at full speed always does. Prints one JSON object:
- `packets`: each RTP packet's ONVIF header extension (0xABAC), as [unix ms, C, E, D, T], or
  null for a packet without one;
- `frames`: each depayloaded access unit's MISB ST 0604 time (µs since 1970, as h264parse
  reads the node's SEI), or null.

usage: replay_client.py URI START_MS END_MS
"""
import ctypes
import json
import pathlib
import sys

from onvif_rtp import NTP_UNIX_OFFSET_S, onvif_extension

# The protocol tests' GStreamer bindings (ctypes) and their reader of the time stamp SEI.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "protocol"))
from gstreamer_reader import _app, _gst, _precision_time_stamp, _video  # noqa: E402

_gst.gst_element_get_state.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
_gst.gst_event_new_seek.restype = ctypes.c_void_p
_gst.gst_event_new_seek.argtypes = [ctypes.c_double, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int, ctypes.c_int64]
_gst.gst_element_send_event.restype = ctypes.c_int
_gst.gst_element_send_event.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_gst.gst_buffer_get_size.restype = ctypes.c_size_t
_gst.gst_buffer_get_size.argtypes = [ctypes.c_void_p]
_gst.gst_buffer_extract.restype = ctypes.c_size_t
_gst.gst_buffer_extract.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
_app.gst_app_sink_try_pull_sample.restype = ctypes.c_void_p
_app.gst_app_sink_try_pull_sample.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
_app.gst_app_sink_is_eos.argtypes = [ctypes.c_void_p]

PLAYING, NULL = 4, 1
FORMAT_TIME, SEEK_SET, SEEK_FLUSH = 3, 1, 1
SECOND = 1_000_000_000
WAIT = 60 * SECOND


def buffer_bytes(buffer):
    size = _gst.gst_buffer_get_size(buffer)
    data = ctypes.create_string_buffer(size)
    _gst.gst_buffer_extract(buffer, 0, data, size)
    return data.raw


def drain(sink, read):
    """Every sample `sink` gets until its end of stream (or a minute with none)."""
    values = []
    while sample := _app.gst_app_sink_try_pull_sample(sink, WAIT):
        values.append(read(_gst.gst_sample_get_buffer(sample)))
        _gst.gst_mini_object_unref(sample)
    return values, bool(_app.gst_app_sink_is_eos(sink))


def replay(uri, start_ms, end_ms):
    description = (f'rtspsrc name=src location="{uri}" onvif-mode=true onvif-rate-control=false protocols=tcp buffer-mode=none '
                   "! rtponvifparse ! tee name=t ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! appsink name=rtp sync=false "
                   "t. ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! rtph264depay ! h264parse "
                   "! appsink name=frames sync=false")
    pipeline = _gst.gst_parse_launch(description.encode(), None)
    assert pipeline, "cannot build the replay pipeline"
    source = _gst.gst_bin_get_by_name(pipeline, b"src")
    rtp, frames = _gst.gst_bin_get_by_name(pipeline, b"rtp"), _gst.gst_bin_get_by_name(pipeline, b"frames")
    api = _video.gst_video_sei_user_data_unregistered_meta_api_get_type()
    try:
        # As GStreamer's own ONVIF client does: the seek goes to rtspsrc before it plays, and
        # its first PLAY carries the range.
        start_ns = (start_ms // 1000 + NTP_UNIX_OFFSET_S) * SECOND + (start_ms % 1000) * 1_000_000
        end_ns = (end_ms // 1000 + NTP_UNIX_OFFSET_S) * SECOND + (end_ms % 1000) * 1_000_000
        seek = _gst.gst_event_new_seek(1.0, FORMAT_TIME, SEEK_FLUSH, SEEK_SET, start_ns, SEEK_SET, end_ns)
        assert _gst.gst_element_send_event(source, seek), "rtspsrc refused the seek"
        _gst.gst_element_set_state(pipeline, PLAYING)
        packets, packets_ended = drain(rtp, lambda buffer: onvif_extension(buffer_bytes(buffer)))
        stamps, frames_ended = drain(frames, lambda buffer: _precision_time_stamp(buffer, api))
        return {"packets": packets, "frames": stamps, "ended": packets_ended and frames_ended}
    finally:
        _gst.gst_element_set_state(pipeline, NULL)
        _gst.gst_object_unref(source)
        _gst.gst_object_unref(rtp)
        _gst.gst_object_unref(frames)
        _gst.gst_object_unref(pipeline)


if __name__ == "__main__":
    print(json.dumps(replay(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
