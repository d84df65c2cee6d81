#ifndef ALLSPARK_QUIET_STDERR_H
#define ALLSPARK_QUIET_STDERR_H

#include <pthread.h>

// Standard error pointed at a pipe for the length of one call, then written back without
// the lines that start with a given prefix. A thread drains the pipe meanwhile, so a
// writer never blocks on it; output other threads write meanwhile is delayed, not lost.
// Calls from several threads take turns. Where no pipe or thread can be made, nothing is
// redirected.
typedef struct {
    int saved;  // the real standard error, or -1 when nothing was redirected
    pthread_t drain;
    struct allspark_captured *captured;
} allspark_quiet_stderr;

allspark_quiet_stderr allspark_quiet_stderr_begin(void);
void allspark_quiet_stderr_end(allspark_quiet_stderr quiet, const char *dropped_prefix);

#endif
