#ifndef ALLSPARK_CFFMPEG_SHIM_H
#define ALLSPARK_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Swift cannot see function-like macros; these wrap the ones the node needs. */
static inline int allspark_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int allspark_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int allspark_averror_eof(void) { return AVERROR_EOF; }
static inline int allspark_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int allspark_averror(int posixError) { return AVERROR(posixError); }
static inline int64_t allspark_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational allspark_time_base_q(void) { return AV_TIME_BASE_Q; }

/* libav's own messages as journald lines: "<priority>libav: message", one per line.
 * av_log's callback takes a va_list, which Swift cannot receive. */
static void allspark_av_log_journal_line(void *context, int level, const char *format, va_list arguments) {
    if (level > av_log_get_level()) return;
    char line[1024];
    int printPrefix = 1;
    av_log_format_line2(context, level, format, arguments, line, (int)sizeof line, &printPrefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = '\0';
    if (length == 0) return;
    int priority = level <= AV_LOG_FATAL ? 2 : level <= AV_LOG_ERROR ? 3 : level <= AV_LOG_WARNING ? 4 : level <= AV_LOG_INFO ? 6 : 7;
    dprintf(2, "<%d>libav: %s\n", priority, line);
}
static inline void allspark_av_log_to_journal(void) { av_log_set_callback(allspark_av_log_journal_line); }

#endif
