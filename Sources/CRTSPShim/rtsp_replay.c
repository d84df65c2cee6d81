#include "rtsp_replay_factory.h"

#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasesrc.h>
#include <gst/rtsp-server/rtsp-onvif-media-factory.h>
#include <gst/rtsp-server/rtsp-onvif-media.h>

/* One client's media. Freed with its appsrc (the callbacks' destroy notify); the caller's
 * source is closed earlier, when the media is unprepared, and is never called after. */
struct allspark_replay_output {
    GstElement *appsrc; /* not referenced: the pipeline owns it, and it owns this */
    allspark_replay_callbacks callbacks;
    GMutex lock; /* guards source: calls into it come from the streaming and the seeking thread */
    void *source;
    uint64_t section_start; /* the segment last pushed; ALLSPARK_REPLAY_NO_TIME after a seek */
};

#define OUTPUT_KEY "allspark-replay-output"

gboolean allspark_replay_serves(GstRTSPMedia *media) {
    return g_object_get_data(G_OBJECT(media), OUTPUT_KEY) != NULL;
}

static void output_free(gpointer data) {
    allspark_replay_output *output = data;
    g_mutex_clear(&output->lock);
    g_free(output);
}

static void need_data(GstAppSrc *appsrc, guint length, gpointer user_data) {
    (void)appsrc;
    (void)length;
    allspark_replay_output *output = user_data;
    g_mutex_lock(&output->lock);
    if (output->source) output->callbacks.fill(output->source, output);
    g_mutex_unlock(&output->lock);
}

static gboolean seek_data(GstAppSrc *appsrc, guint64 offset, gpointer user_data) {
    (void)appsrc;
    allspark_replay_output *output = user_data;
    g_mutex_lock(&output->lock);
    if (output->source) output->callbacks.seek(output->source, offset);
    output->section_start = ALLSPARK_REPLAY_NO_TIME;
    g_mutex_unlock(&output->lock);
    return TRUE;
}

/* A PLAY's seek on its way up to the appsrc: it is made to start where footage can be
 * decoded from (a key frame), so the segment, the RTP times and the Range answered agree
 * with what is sent. */
static GstPadProbeReturn seek_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data) {
    (void)pad;
    allspark_replay_output *output = user_data;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (GST_EVENT_TYPE(event) != GST_EVENT_SEEK) return GST_PAD_PROBE_OK;
    gdouble rate;
    GstFormat format;
    GstSeekFlags flags;
    GstSeekType start_type, stop_type;
    gint64 start, stop;
    gst_event_parse_seek(event, &rate, &format, &flags, &start_type, &start, &stop_type, &stop);
    if (format != GST_FORMAT_TIME || start_type != GST_SEEK_TYPE_SET || start < 0) return GST_PAD_PROBE_OK;
    uint64_t wanted_stop = (stop_type == GST_SEEK_TYPE_SET && stop >= 0) ? (uint64_t)stop : ALLSPARK_REPLAY_NO_TIME;
    int key_frames_only = (flags & GST_SEEK_FLAG_TRICKMODE_KEY_UNITS) != 0;
    uint64_t resolved = ALLSPARK_REPLAY_NO_TIME;
    g_mutex_lock(&output->lock);
    if (output->source) resolved = output->callbacks.resolve(output->source, (uint64_t)start, wanted_stop, rate, key_frames_only);
    g_mutex_unlock(&output->lock);
    if (resolved == ALLSPARK_REPLAY_NO_TIME || resolved == (uint64_t)start || resolved > (uint64_t)G_MAXINT64) return GST_PAD_PROBE_OK;
    GstEvent *replacement = gst_event_new_seek(rate, format, flags, start_type, (gint64)resolved, stop_type, stop);
    GstClockTime interval = 0;
    gst_event_parse_seek_trickmode_interval(event, &interval);
    gst_event_set_seek_trickmode_interval(replacement, interval);
    gst_event_set_seqnum(replacement, gst_event_get_seqnum(event));
    gst_event_unref(event);
    GST_PAD_PROBE_INFO_DATA(info) = replacement;
    return GST_PAD_PROBE_OK;
}

static void media_unprepared(GstRTSPMedia *media, gpointer user_data) {
    allspark_replay_output *output = user_data;
    g_object_set_data(G_OBJECT(media), OUTPUT_KEY, NULL);
    g_mutex_lock(&output->lock);
    if (output->source) output->callbacks.close(output->source);
    output->source = NULL;
    g_mutex_unlock(&output->lock);
}

static void media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer user_data) {
    (void)factory;
    const allspark_replay_callbacks *callbacks = user_data;
    GstElement *element = gst_rtsp_media_get_element(media);
    GstElement *appsrc = gst_bin_get_by_name_recurse_up(GST_BIN(element), "src");
    gst_object_unref(element);
    if (!appsrc) return;
    allspark_replay_output *output = g_new0(allspark_replay_output, 1);
    g_mutex_init(&output->lock);
    output->appsrc = appsrc;
    output->callbacks = *callbacks;
    output->section_start = ALLSPARK_REPLAY_NO_TIME;
    output->source = callbacks->open(callbacks->context);

    GstCaps *caps = gst_caps_from_string("video/x-h264,stream-format=byte-stream,alignment=au");
    /* Seekable and not live: the server turns a PLAY's Range into a seek and, with
     * Rate-Control: no, sends as fast as the client's connection takes. Pushed only from
     * need-data, one access unit at a time, so the queue stays small. */
    g_object_set(appsrc, "caps", caps, "format", GST_FORMAT_TIME, "is-live", FALSE, "stream-type", GST_APP_STREAM_TYPE_SEEKABLE,
                 "handle-segment-change", TRUE, "block", FALSE, NULL);
    gst_caps_unref(caps);
    GstAppSrcCallbacks app_callbacks = {0};
    app_callbacks.need_data = need_data;
    app_callbacks.seek_data = seek_data;
    gst_app_src_set_callbacks(GST_APP_SRC(appsrc), &app_callbacks, output, output_free);
    GstPad *pad = gst_element_get_static_pad(appsrc, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, seek_probe, output, NULL);
    gst_object_unref(pad);
    g_signal_connect(media, "unprepared", G_CALLBACK(media_unprepared), output);
    g_object_set_data(G_OBJECT(media), OUTPUT_KEY, output);
    gst_object_unref(appsrc);
}

int allspark_replay_push(allspark_replay_output *output, const uint8_t *data, size_t size, uint64_t pts, uint64_t section_start,
                         uint64_t section_base, int keyframe, int discont) {
    GstBuffer *buffer = gst_buffer_new_memdup(data, size);
    GST_BUFFER_PTS(buffer) = pts;
    if (!keyframe) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    if (discont) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
    GstAppSrc *appsrc = GST_APP_SRC(output->appsrc);
    GstFlowReturn result;
    if (section_start != output->section_start) {
        /* A new section: the seek's segment (its rate and stop) moved on to it. */
        GstSegment segment;
        GST_OBJECT_LOCK(output->appsrc);
        gst_segment_copy_into(&GST_BASE_SRC(output->appsrc)->segment, &segment);
        GST_OBJECT_UNLOCK(output->appsrc);
        segment.start = segment.time = segment.position = section_start;
        segment.base = section_base;
        if (segment.stop != GST_CLOCK_TIME_NONE && segment.stop < section_start) segment.stop = section_start;
        GstSample *sample = gst_sample_new(buffer, NULL, &segment, NULL);
        result = gst_app_src_push_sample(appsrc, sample);
        gst_sample_unref(sample);
        gst_buffer_unref(buffer);
        if (result == GST_FLOW_OK) output->section_start = section_start;
    } else {
        result = gst_app_src_push_buffer(appsrc, buffer);
    }
    return result == GST_FLOW_OK;
}

void allspark_replay_end(allspark_replay_output *output) {
    gst_app_src_end_of_stream(GST_APP_SRC(output->appsrc));
}

/* ONVIF's media factory, whose media is an appsrc and a bin `pay0` of the payloader and
 * rtponviftimestamp: the server finds the payloader inside the bin (it reads its payload
 * type and sequence numbers) and sends what leaves the bin. */
typedef struct {
    GstRTSPOnvifMediaFactory parent;
} AllsparkReplayFactory;

typedef struct {
    GstRTSPOnvifMediaFactoryClass parent_class;
} AllsparkReplayFactoryClass;

G_DEFINE_TYPE(AllsparkReplayFactory, allspark_replay_factory, GST_TYPE_RTSP_ONVIF_MEDIA_FACTORY)

static GstElement *replay_create_element(GstRTSPMediaFactory *factory, const GstRTSPUrl *url) {
    (void)factory;
    (void)url;
    /* The access units carry their SPS/PPS in front of each key frame (the source converts
     * the chunks' avcC), so the payloader adds none. rtponviftimestamp writes each frame's
     * stream time, which is its capture time since 1900 (ntp-offset 0), and the T bit on
     * the last packet of a PLAY's range. */
    GError *error = NULL;
    GstElement *payload = gst_parse_bin_from_description(
        "rtph264pay name=pay pt=96 config-interval=0 ! rtponviftimestamp ntp-offset=0 set-t-bit=true drop-out-of-segment=false", TRUE,
        &error);
    if (!payload) {
        GST_ERROR("replay: cannot make the payloader (%s)", error ? error->message : "unknown error");
        g_clear_error(&error);
        return NULL;
    }
    gst_object_set_name(GST_OBJECT(payload), "pay0");
    GstElement *source = gst_element_factory_make("appsrc", "src");
    GstElement *media = gst_bin_new(NULL);
    if (!source) {
        gst_object_unref(payload);
        gst_object_unref(media);
        return NULL;
    }
    gst_bin_add_many(GST_BIN(media), source, payload, NULL);
    if (!gst_element_link(source, payload)) {
        gst_object_unref(media);
        return NULL;
    }
    return media;
}

static void allspark_replay_factory_class_init(AllsparkReplayFactoryClass *klass) {
    GST_RTSP_MEDIA_FACTORY_CLASS(klass)->create_element = replay_create_element;
}

static void allspark_replay_factory_init(AllsparkReplayFactory *self) {
    (void)self;
}

static void callbacks_free(gpointer data, GClosure *closure) {
    (void)closure;
    g_free(data);
}

GstRTSPMediaFactory *allspark_replay_factory_new(const allspark_replay_callbacks *callbacks) {
    GstRTSPMediaFactory *factory = g_object_new(allspark_replay_factory_get_type(), NULL);
    gst_rtsp_onvif_media_factory_set_replay_support(GST_RTSP_ONVIF_MEDIA_FACTORY(factory), TRUE);
    gst_rtsp_media_factory_set_media_gtype(factory, GST_TYPE_RTSP_ONVIF_MEDIA);
    gst_rtsp_media_factory_set_shared(factory, FALSE);
    allspark_replay_callbacks *kept = g_new(allspark_replay_callbacks, 1);
    *kept = *callbacks;
    g_signal_connect_data(factory, "media-configure", G_CALLBACK(media_configure), kept, callbacks_free, 0);
    return factory;
}
