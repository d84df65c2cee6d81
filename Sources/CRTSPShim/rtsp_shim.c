#include "rtsp_shim.h"
#include "rtsp_replay_factory.h"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>
#include <stdio.h>
#include <string.h>

/* Threads RTSP clients are spread over. */
#define ALLSPARK_RTSP_CLIENT_THREADS 8

/* GStreamer's authentication with the node's failed-attempt limiter in front: an address
 * the limiter holds back is refused before its credentials are looked at, and credentials
 * that were given but matched no user count against it (a request with none, a Digest
 * client asking for its challenge, does not). */
typedef struct {
    GstRTSPAuth parent;
    allspark_rtsp_judge judge;
    void *judge_context;
} AllsparkAuth;

typedef struct {
    GstRTSPAuthClass parent_class;
} AllsparkAuthClass;

G_DEFINE_TYPE(AllsparkAuth, allspark_auth, GST_TYPE_RTSP_AUTH)

static gboolean allspark_auth_authenticate(GstRTSPAuth *auth, GstRTSPContext *ctx) {
    AllsparkAuth *self = (AllsparkAuth *)auth;
    GstRTSPConnection *connection = ctx->client ? gst_rtsp_client_get_connection(ctx->client) : NULL;
    const gchar *address = connection ? gst_rtsp_connection_get_ip(connection) : NULL;
    if (!address) address = "unknown";
    if (self->judge && self->judge(self->judge_context, address, 0)) return FALSE;
    gboolean authenticated = GST_RTSP_AUTH_CLASS(allspark_auth_parent_class)->authenticate(auth, ctx);
    gchar *given = NULL;
    gboolean offered = ctx->request && gst_rtsp_message_get_header(ctx->request, GST_RTSP_HDR_AUTHORIZATION, &given, 0) == GST_RTSP_OK;
    if (self->judge && offered && (!authenticated || ctx->token == NULL)) self->judge(self->judge_context, address, 1);
    return authenticated;
}

static void allspark_auth_class_init(AllsparkAuthClass *klass) {
    GST_RTSP_AUTH_CLASS(klass)->authenticate = allspark_auth_authenticate;
}

static void allspark_auth_init(AllsparkAuth *self) {
    (void)self;
}

/* One client's media: its appsrc and whether it waits for a keyframe to start (or restart
 * after its queue overflowed). */
typedef struct {
    GstElement *appsrc;
    gboolean awaiting_keyframe;
    /* Buffer times follow capture times, from the client's first frame on: frames the
     * privacy delay line releases together still play at the pace they were captured. */
    gboolean started;
    uint64_t first_capture_ns;
    GstClockTime first_running_time;
} client_feed;

/* Owned by the caller and by every media configured from it (a media may be finalised
 * after the caller stopped the server), so it is reference counted. */
struct allspark_rtsp_server {
    gint references;
    GMainContext *context;
    GMainLoop *loop;
    GThread *thread;
    GstRTSPServer *server;
    GstRTSPAuth *auth; /* NULL: open */
    gchar *users[2];   /* the node's RTSP user and the ONVIF user (NULL: none) */
    gchar *basics[2];  /* their Basic credentials accepted now */
    GMutex lock; /* guards feeds and counters */
    GPtrArray *feeds;
    size_t queue_bytes;
    uint64_t bytes_pushed;
    uint64_t skips;
    guint session_timeout; /* seconds; 0: the library's */
};

static void server_release(allspark_rtsp_server *server) {
    if (!g_atomic_int_dec_and_test(&server->references)) return;
    g_ptr_array_unref(server->feeds);
    g_mutex_clear(&server->lock);
    g_free(server);
}

static void media_released(gpointer data, GClosure *closure) {
    (void)closure;
    server_release(data);
}

static void feed_free(gpointer data) {
    client_feed *feed = data;
    gst_object_unref(feed->appsrc);
    g_free(feed);
}

static void media_unprepared(GstRTSPMedia *media, gpointer user_data) {
    allspark_rtsp_server *server = user_data;
    GstElement *element = gst_rtsp_media_get_element(media);
    GstElement *appsrc = gst_bin_get_by_name_recurse_up(GST_BIN(element), "src");
    g_mutex_lock(&server->lock);
    for (guint i = 0; i < server->feeds->len; i++) {
        client_feed *feed = g_ptr_array_index(server->feeds, i);
        if (feed->appsrc == appsrc) {
            g_ptr_array_remove_index_fast(server->feeds, i);
            break;
        }
    }
    g_mutex_unlock(&server->lock);
    if (appsrc) gst_object_unref(appsrc);
    gst_object_unref(element);
}

static void media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer user_data) {
    (void)factory;
    allspark_rtsp_server *server = user_data;
    GstElement *element = gst_rtsp_media_get_element(media);
    GstElement *appsrc = gst_bin_get_by_name_recurse_up(GST_BIN(element), "src");
    gst_object_unref(element);
    if (!appsrc) return;
    GstCaps *caps = gst_caps_from_string("video/x-h264,stream-format=byte-stream,alignment=au");
    g_object_set(appsrc, "caps", caps, "is-live", TRUE, "format", GST_FORMAT_TIME, "do-timestamp", FALSE, "block", FALSE,
                 "max-bytes", (guint64)server->queue_bytes, NULL);
    gst_caps_unref(caps);
    client_feed *feed = g_new0(client_feed, 1);
    feed->appsrc = appsrc; /* the reference gst_bin_get_by_name took */
    feed->awaiting_keyframe = TRUE;
    g_mutex_lock(&server->lock);
    g_ptr_array_add(server->feeds, feed);
    g_mutex_unlock(&server->lock);
    g_atomic_int_inc(&server->references);
    g_signal_connect_data(media, "unprepared", G_CALLBACK(media_unprepared), server, media_released, 0);
}

static gboolean cleanup_sessions(gpointer user_data) {
    GstRTSPServer *server = user_data;
    GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(server);
    gst_rtsp_session_pool_cleanup(pool);
    g_object_unref(pool);
    return G_SOURCE_CONTINUE;
}

static void accept_password(allspark_rtsp_server *server, const char *password) {
    GstRTSPToken *token = gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, "viewer", NULL);
    for (int i = 0; i < 2; i++) {
        if (!server->users[i]) continue;
        server->basics[i] = gst_rtsp_auth_make_basic(server->users[i], password);
        gst_rtsp_auth_add_basic(server->auth, server->basics[i], token);
        gst_rtsp_auth_add_digest(server->auth, server->users[i], password, token);
    }
    gst_rtsp_token_unref(token);
}

static GstRTSPFilterResult close_client(GstRTSPServer *server, GstRTSPClient *client, gpointer user_data) {
    (void)server;
    (void)client;
    (void)user_data;
    return GST_RTSP_FILTER_REMOVE;
}

void allspark_rtsp_set_password(allspark_rtsp_server *server, const char *password) {
    if (!server->auth) return;
    for (int i = 0; i < 2; i++) {
        if (!server->users[i]) continue;
        gst_rtsp_auth_remove_basic(server->auth, server->basics[i]);
        g_free(server->basics[i]);
        server->basics[i] = NULL;
        gst_rtsp_auth_remove_digest(server->auth, server->users[i]);
    }
    accept_password(server, password);
    gst_rtsp_server_client_filter(server->server, close_client, NULL);
}

static void session_created(GstRTSPClient *client, GstRTSPSession *session, gpointer user_data) {
    (void)client;
    allspark_rtsp_server *server = user_data;
    guint timeout = g_atomic_int_get(&server->session_timeout);
    if (timeout > 0) gst_rtsp_session_set_timeout(session, timeout);
}

/* A PLAY with a Range that moves a replay while it plays (ONVIF's Immediate: yes) pauses it
 * first, as a PAUSE would: the library seeks and waits for the new range's first frames
 * before it answers, and a playing pipeline would send them ahead of the answer, where a
 * client that drops what comes before it (GStreamer's does) loses the key frame. Paused,
 * they wait in the pipeline until the answer is sent. */
static GstRTSPStatusCode play_requested(GstRTSPClient *client, GstRTSPContext *context, gpointer user_data) {
    (void)client;
    (void)user_data;
    gchar *range = NULL;
    if (context->media && context->sessmedia && allspark_replay_serves(context->media) && context->request &&
        gst_rtsp_message_get_header(context->request, GST_RTSP_HDR_RANGE, &range, 0) == GST_RTSP_OK &&
        gst_rtsp_session_media_get_rtsp_state(context->sessmedia) == GST_RTSP_STATE_PLAYING)
        gst_rtsp_session_media_set_state(context->sessmedia, GST_STATE_PAUSED);
    return GST_RTSP_STS_OK;
}

static void client_connected(GstRTSPServer *rtsp, GstRTSPClient *client, gpointer user_data) {
    (void)rtsp;
    g_signal_connect(client, "new-session", G_CALLBACK(session_created), user_data);
    g_signal_connect(client, "pre-play-request", G_CALLBACK(play_requested), NULL);
}

void allspark_rtsp_set_session_timeout(allspark_rtsp_server *server, unsigned seconds) {
    g_atomic_int_set(&server->session_timeout, seconds);
}

static gpointer run_loop(gpointer user_data) {
    allspark_rtsp_server *server = user_data;
    g_main_context_push_thread_default(server->context);
    g_main_loop_run(server->loop);
    g_main_context_pop_thread_default(server->context);
    return NULL;
}

allspark_rtsp_server *allspark_rtsp_start(const char *address, int port, const char *user, const char *second_user,
                                          const char *password, allspark_rtsp_judge judge, void *judge_context,
                                          size_t queue_bytes, const allspark_replay_callbacks *replay, char *error,
                                          size_t error_size) {
    gst_init(NULL, NULL);
    allspark_rtsp_server *server = g_new0(allspark_rtsp_server, 1);
    server->references = 1;
    g_mutex_init(&server->lock);
    server->feeds = g_ptr_array_new_with_free_func(feed_free);
    server->queue_bytes = queue_bytes;
    server->context = g_main_context_new();
    server->loop = g_main_loop_new(server->context, FALSE);
    /* ONVIF's server: the same for /live, and it takes Require: onvif-replay, Frames and
     * Rate-Control for the replay mount. */
    server->server = gst_rtsp_onvif_server_new();
    g_signal_connect(server->server, "client-connected", G_CALLBACK(client_connected), server);
    /* Clients' requests and their TCP-interleaved media are handled on a few threads, not on
     * one (GStreamer's default): a PLAY that waits (a replay fetching archived footage from
     * the bucket) holds up only the clients that share its thread. */
    GstRTSPThreadPool *pool = gst_rtsp_server_get_thread_pool(server->server);
    gst_rtsp_thread_pool_set_max_threads(pool, ALLSPARK_RTSP_CLIENT_THREADS);
    g_object_unref(pool);
    gchar *service = g_strdup_printf("%d", port);
    gst_rtsp_server_set_address(server->server, address);
    gst_rtsp_server_set_service(server->server, service);
    g_free(service);

    GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
    /* The caller puts SPS/PPS in front of every keyframe, so a client can start at any of
     * them; the payloader must not add its own: it would put them before every slice of a
     * multi-slice IDR, and a depacketiser then splits that frame in two. The access units
     * arrive whole and in Annex B, which the payloader takes as they are (it reads SPS/PPS
     * from them for the SDP): no parser per client. */
    gst_rtsp_media_factory_set_launch(factory, "( appsrc name=src ! rtph264pay name=pay0 pt=96 config-interval=0 )");
    gst_rtsp_media_factory_set_shared(factory, FALSE);
    g_signal_connect(factory, "media-configure", G_CALLBACK(media_configure), server);
    GstRTSPMediaFactory *replay_factory = replay ? allspark_replay_factory_new(replay) : NULL;

    if (password) {
        AllsparkAuth *auth = g_object_new(allspark_auth_get_type(), NULL);
        auth->judge = judge;
        auth->judge_context = judge_context;
        server->auth = GST_RTSP_AUTH(auth);
        server->users[0] = g_strdup(user);
        if (second_user && g_strcmp0(second_user, user) != 0) server->users[1] = g_strdup(second_user);
        gst_rtsp_auth_set_supported_methods(server->auth, GST_RTSP_AUTH_BASIC | GST_RTSP_AUTH_DIGEST);
        accept_password(server, password);
        gst_rtsp_server_set_auth(server->server, server->auth);
        gst_rtsp_media_factory_add_role(factory, "viewer", GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                        GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
        if (replay_factory)
            gst_rtsp_media_factory_add_role(replay_factory, "viewer", GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                            GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
    }
    GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(server->server);
    gst_rtsp_mount_points_add_factory(mounts, "/live", factory);
    if (replay_factory) gst_rtsp_mount_points_add_factory(mounts, "/replay", replay_factory);
    g_object_unref(mounts);

    GError *attach_error = NULL;
    GSource *listener = gst_rtsp_server_create_source(server->server, NULL, &attach_error);
    if (!listener) {
        snprintf(error, error_size, "cannot listen on %s:%d: %s", address, port,
                 attach_error ? attach_error->message : "unknown error");
        if (attach_error) g_error_free(attach_error);
        allspark_rtsp_stop(server);
        return NULL;
    }
    g_source_attach(listener, server->context);
    g_source_unref(listener);
    GSource *cleanup = g_timeout_source_new_seconds(2);
    g_source_set_callback(cleanup, cleanup_sessions, server->server, NULL);
    g_source_attach(cleanup, server->context);
    g_source_unref(cleanup);
    server->thread = g_thread_new("allspark-rtsp", run_loop, server);
    return server;
}

void allspark_rtsp_push(allspark_rtsp_server *server, const uint8_t *data, size_t size, uint64_t capture_ns, int keyframe) {
    /* One copy of the access unit for all clients; each gets a buffer of its own (its own
     * times and flags) over the same memory. */
    GstBuffer *access_unit = NULL;
    g_mutex_lock(&server->lock);
    for (guint i = 0; i < server->feeds->len; i++) {
        client_feed *feed = g_ptr_array_index(server->feeds, i);
        if (feed->awaiting_keyframe && !keyframe) continue;
        GstAppSrc *appsrc = GST_APP_SRC(feed->appsrc);
        if (gst_app_src_get_current_level_bytes(appsrc) + size > server->queue_bytes) {
            /* The client is not keeping up: drop to its next keyframe rather than queue more. */
            if (!feed->awaiting_keyframe) server->skips++;
            feed->awaiting_keyframe = TRUE;
            continue;
        }
        feed->awaiting_keyframe = FALSE;
        if (!feed->started) {
            GstClockTime now = gst_element_get_current_running_time(feed->appsrc);
            feed->first_running_time = GST_CLOCK_TIME_IS_VALID(now) ? now : 0;
            feed->first_capture_ns = capture_ns;
            feed->started = TRUE;
        }
        if (!access_unit) access_unit = gst_buffer_new_memdup(data, size);
        GstBuffer *buffer = gst_buffer_copy(access_unit);
        if (capture_ns >= feed->first_capture_ns)
            GST_BUFFER_PTS(buffer) = feed->first_running_time + (capture_ns - feed->first_capture_ns);
        if (!keyframe) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
        if (gst_app_src_push_buffer(appsrc, buffer) == GST_FLOW_OK) server->bytes_pushed += size;
    }
    g_mutex_unlock(&server->lock);
    if (access_unit) gst_buffer_unref(access_unit);
}

void allspark_rtsp_read_counters(allspark_rtsp_server *server, allspark_rtsp_counters *counters) {
    g_mutex_lock(&server->lock);
    counters->viewers = (int)server->feeds->len;
    counters->bytes_pushed = server->bytes_pushed;
    counters->skips = server->skips;
    g_mutex_unlock(&server->lock);
}

void allspark_rtsp_stop(allspark_rtsp_server *server) {
    if (!server) return;
    if (server->server) gst_rtsp_server_client_filter(server->server, close_client, NULL);
    if (server->thread) {
        g_main_loop_quit(server->loop);
        g_thread_join(server->thread);
    }
    if (server->server) g_object_unref(server->server);
    if (server->auth) g_object_unref(server->auth);
    for (int i = 0; i < 2; i++) {
        g_free(server->users[i]);
        g_free(server->basics[i]);
    }
    g_main_loop_unref(server->loop);
    g_main_context_unref(server->context);
    g_mutex_lock(&server->lock);
    g_ptr_array_set_size(server->feeds, 0);
    g_mutex_unlock(&server->lock);
    server_release(server);
}
