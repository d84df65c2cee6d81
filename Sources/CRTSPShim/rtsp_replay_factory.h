#ifndef ALLSPARK_RTSP_REPLAY_FACTORY_H
#define ALLSPARK_RTSP_REPLAY_FACTORY_H

#include <gst/rtsp-server/rtsp-server.h>

#include "rtsp_replay.h"

/* The replay mount's factory: one unshared ONVIF media per client, fed by `callbacks`. */
GstRTSPMediaFactory *allspark_replay_factory_new(const allspark_replay_callbacks *callbacks);

/* Whether `media` is a replay client's. */
gboolean allspark_replay_serves(GstRTSPMedia *media);

#endif
