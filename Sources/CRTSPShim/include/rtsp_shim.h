#ifndef ALLSPARK_RTSP_SHIM_H
#define ALLSPARK_RTSP_SHIM_H

/* A small C API over GStreamer's RTSP server (libgstrtspserver, its ONVIF flavour): the
 * mount /live, whose media is an appsrc per client fed with H.264 access units by the
 * caller, and ONVIF replay (rtsp_replay.h). No RTSP or RTP
 * is written here: parsing, packetising, sessions and authentication are the library's. */

#include <stddef.h>
#include <stdint.h>

#include "rtsp_replay.h"

typedef struct allspark_rtsp_server allspark_rtsp_server;

typedef struct {
    int viewers;               /* clients whose media is prepared now */
    uint64_t bytes_pushed;     /* access-unit bytes handed to the clients' pipelines */
    uint64_t skips;            /* access units a full client queue refused (it resumes at a keyframe) */
} allspark_rtsp_counters;

/* The caller's failed-attempt limiter, called on the server's thread: with `failed` 0,
 * whether `address` is held back now (non-zero: refuse it unheard); with `failed` 1, that
 * credentials `address` gave matched no user (the return value is then ignored). */
typedef int (*allspark_rtsp_judge)(void *context, const char *address, int failed);

/* Starts serving rtsp://address:port/live on a thread of its own, and ONVIF replay at
 * /replay when `replay` is given (NULL: none). `password` NULL: no
 * authentication; otherwise Basic and Digest with `user` or `second_user` (the ONVIF user;
 * NULL: none) and `password`, behind `judge` (NULL: none). `queue_bytes` bounds each
 * client's queue. Returns NULL with a message in `error` when it cannot listen. */
allspark_rtsp_server *allspark_rtsp_start(const char *address, int port, const char *user, const char *second_user,
                                          const char *password, allspark_rtsp_judge judge, void *judge_context,
                                          size_t queue_bytes, const allspark_replay_callbacks *replay, char *error,
                                          size_t error_size);

/* The RTSP session timeout given to new sessions (ONVIF's replay configuration); 0: the
 * library's own (60 s). */
void allspark_rtsp_set_session_timeout(allspark_rtsp_server *server, unsigned seconds);

/* Hands one access unit (Annex B, SPS/PPS in front of keyframes), captured at `capture_ns`
 * (any epoch, increasing), to every client; a new client starts at its first keyframe.
 * Never blocks. */
void allspark_rtsp_push(allspark_rtsp_server *server, const uint8_t *data, size_t size, uint64_t capture_ns, int keyframe);

/* Accepts `password` instead of the old one (a rotated token) and closes every client, so
 * none keeps watching on the old one. No effect on a server started without a password. */
void allspark_rtsp_set_password(allspark_rtsp_server *server, const char *password);

void allspark_rtsp_read_counters(allspark_rtsp_server *server, allspark_rtsp_counters *counters);

/* Closes every client and the listening socket, and frees the server. */
void allspark_rtsp_stop(allspark_rtsp_server *server);

#endif
