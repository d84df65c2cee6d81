#ifndef ALLSPARK_CFFMPEG_SHIM_H
#define ALLSPARK_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libswscale/swscale.h>
#include <errno.h>

/* Swift cannot see function-like macros; these wrap the ones the node needs. */
static inline int allspark_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int allspark_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int allspark_averror_eof(void) { return AVERROR_EOF; }
static inline int allspark_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int allspark_averror(int posixError) { return AVERROR(posixError); }
static inline int64_t allspark_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational allspark_time_base_q(void) { return AV_TIME_BASE_Q; }

#endif
