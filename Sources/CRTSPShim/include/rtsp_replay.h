#ifndef ALLSPARK_RTSP_REPLAY_H
#define ALLSPARK_RTSP_REPLAY_H

/* ONVIF replay (ONVIF Streaming, "onvif-replay") on GStreamer's ONVIF RTSP server: a mount
 * whose media is, per client, an appsrc fed by the caller's source with recorded access
 * units, then rtph264pay and rtponviftimestamp (the RTP header extension 0xABAC, each
 * frame's capture time as NTP). The library parses Range (clock=), Rate-Control, Frames and
 * Scale and turns a PLAY into a seek; the caller decides where footage starts and what to
 * send. Times are nanoseconds since 1900-01-01 (NTP's epoch), as GStreamer gives clock ranges. */

#include <stddef.h>
#include <stdint.h>

/* One client's appsrc, handed to `fill`. */
typedef struct allspark_replay_output allspark_replay_output;

#define ALLSPARK_REPLAY_NO_TIME UINT64_MAX

typedef struct {
    void *context;
    /* A new client's source (never NULL). */
    void *(*open)(void *context);
    /* A PLAY asks for [start, stop] (stop ALLSPARK_REPLAY_NO_TIME: open ended) at `rate`,
     * key frames only or not: returns where playback really starts (the key frame at or
     * before `start`, or the next footage), or ALLSPARK_REPLAY_NO_TIME when none follows.
     * Called on the thread that seeks, while `fill` may still run. */
    uint64_t (*resolve)(void *source, uint64_t start, uint64_t stop, double rate, int key_frames_only);
    /* The seek has flushed the pipeline: the next `fill` starts at `position`. */
    void (*seek)(void *source, uint64_t position);
    /* The client's queue is empty: push an access unit (or end the stream). */
    void (*fill)(void *source, allspark_replay_output *output);
    /* The client's media is gone; `source` is not called again. */
    void (*close)(void *source);
} allspark_replay_callbacks;

/* Pushes one access unit (Annex B) shown at `pts`. Frames of one continuous section of
 * footage share `section_start` (its first frame's time) and `section_base` (the running
 * time it starts at): a gap between sections is not waited out when the client asks for
 * real-time pace. Returns 0 when the client's pipeline is flushing or gone. */
int allspark_replay_push(allspark_replay_output *output, const uint8_t *data, size_t size, uint64_t pts, uint64_t section_start,
                         uint64_t section_base, int keyframe, int discont);

/* No more footage for this PLAY. */
void allspark_replay_end(allspark_replay_output *output);

#endif
