"""What GStreamer (1.22 on Debian 12, 1.26 on 13) makes of a file, through its C libraries with ctypes (no python3-gi:
it serves only the system python, and the tests may run under another):
- the duration `GstPbutils.Discoverer` (as every GStreamer player) reports,
- each frame's MISB ST 0604 precision time stamp as h264parse attaches and
  gst_video_sei_user_data_unregistered_parse_precision_time_stamp reads it."""
import ctypes
import pathlib

_gst = ctypes.CDLL("libgstreamer-1.0.so.0")
_pbutils = ctypes.CDLL("libgstpbutils-1.0.so.0")
_app = ctypes.CDLL("libgstapp-1.0.so.0")
_video = ctypes.CDLL("libgstvideo-1.0.so.0")
_glib = ctypes.CDLL("libglib-2.0.so.0")
_gobject = ctypes.CDLL("libgobject-2.0.so.0")

_gst.gst_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_gst.gst_parse_launch.restype = ctypes.c_void_p
_gst.gst_parse_launch.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
_gst.gst_bin_get_by_name.restype = ctypes.c_void_p
_gst.gst_bin_get_by_name.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_gst.gst_element_set_state.argtypes = [ctypes.c_void_p, ctypes.c_int]
_gst.gst_object_unref.argtypes = [ctypes.c_void_p]
_gst.gst_sample_get_buffer.restype = ctypes.c_void_p
_gst.gst_sample_get_buffer.argtypes = [ctypes.c_void_p]
_gst.gst_mini_object_unref.argtypes = [ctypes.c_void_p]
_gst.gst_buffer_iterate_meta_filtered.restype = ctypes.c_void_p
_gst.gst_buffer_iterate_meta_filtered.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
_gst.gst_filename_to_uri.restype = ctypes.c_void_p
_gst.gst_filename_to_uri.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
_app.gst_app_sink_pull_sample.restype = ctypes.c_void_p
_app.gst_app_sink_pull_sample.argtypes = [ctypes.c_void_p]
_video.gst_video_sei_user_data_unregistered_meta_api_get_type.restype = ctypes.c_size_t
_video.gst_video_sei_user_data_unregistered_parse_precision_time_stamp.restype = ctypes.c_int
_video.gst_video_sei_user_data_unregistered_parse_precision_time_stamp.argtypes = [
    ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8), ctypes.POINTER(ctypes.c_uint64)]
_pbutils.gst_discoverer_new.restype = ctypes.c_void_p
_pbutils.gst_discoverer_new.argtypes = [ctypes.c_uint64, ctypes.c_void_p]
_pbutils.gst_discoverer_discover_uri.restype = ctypes.c_void_p
_pbutils.gst_discoverer_discover_uri.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
_pbutils.gst_discoverer_info_get_duration.restype = ctypes.c_uint64
_pbutils.gst_discoverer_info_get_duration.argtypes = [ctypes.c_void_p]
_glib.g_free.argtypes = [ctypes.c_void_p]
_gobject.g_object_unref.argtypes = [ctypes.c_void_p]

_gst.gst_init(None, None)
_PLAYING, _NULL = 4, 1


def discoverer_duration_seconds(path):
    """GstPbutils.Discoverer's duration, as GStreamer players show it."""
    discoverer = _pbutils.gst_discoverer_new(10 * 1_000_000_000, None)
    assert discoverer, "gst_discoverer_new failed"
    uri = _gst.gst_filename_to_uri(str(pathlib.Path(path).resolve()).encode(), None)
    try:
        info = _pbutils.gst_discoverer_discover_uri(discoverer, ctypes.cast(uri, ctypes.c_char_p), None)
        assert info, f"GStreamer's discoverer cannot read {path}"
        duration = _pbutils.gst_discoverer_info_get_duration(info)
        _gobject.g_object_unref(info)
        return duration / 1e9
    finally:
        _glib.g_free(uri)
        _gobject.g_object_unref(discoverer)


def _precision_time_stamp(buffer, api):
    """The first of a buffer's unregistered user data SEIs that holds a precision time stamp.
    An access unit may carry several such SEIs (the signing SEIs too), and GStreamer 1.26
    attaches each as a meta of its own, so every one is tried, as a reader would."""
    state = ctypes.c_void_p()
    while meta := _gst.gst_buffer_iterate_meta_filtered(buffer, ctypes.byref(state), api):
        status, stamp = ctypes.c_uint8(), ctypes.c_uint64()
        if _video.gst_video_sei_user_data_unregistered_parse_precision_time_stamp(
                meta, ctypes.byref(status), ctypes.byref(stamp)):
            return stamp.value
    return None


def precision_time_stamps_us(path):
    """Each access unit's MISB ST 0604 time (µs since 1970, None where it has none), in file order."""
    location = str(pathlib.Path(path).resolve()).replace('"', '\\"')
    pipeline = _gst.gst_parse_launch(
        f'filesrc location="{location}" ! qtdemux ! h264parse ! appsink name=sink sync=false'.encode(), None)
    assert pipeline, f"cannot build a GStreamer pipeline for {path}"
    sink = _gst.gst_bin_get_by_name(pipeline, b"sink")
    api = _video.gst_video_sei_user_data_unregistered_meta_api_get_type()
    times = []
    try:
        _gst.gst_element_set_state(pipeline, _PLAYING)
        while sample := _app.gst_app_sink_pull_sample(sink):
            times.append(_precision_time_stamp(_gst.gst_sample_get_buffer(sample), api))
            _gst.gst_mini_object_unref(sample)
    finally:
        _gst.gst_element_set_state(pipeline, _NULL)
        _gst.gst_object_unref(sink)
        _gst.gst_object_unref(pipeline)
    return times


if __name__ == "__main__":
    # For the Swift tests (Support/FinishedChunkCheck.swift): one file's readings as JSON.
    import json
    import sys

    print(json.dumps({"durationSeconds": discoverer_duration_seconds(sys.argv[1]),
                      "timeStampsUs": precision_time_stamps_us(sys.argv[1])}))
