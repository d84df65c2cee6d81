#ifndef ALLSPARK_QUIET_STDERR_H
#define ALLSPARK_QUIET_STDERR_H

// Standard error pointed at a memory file for the length of one call, then written back
// without the lines that start with a given prefix. Output other threads write meanwhile
// is delayed, not lost. Where no memory file can be made, nothing is redirected.
typedef struct {
    int saved;   // the real standard error, or -1 when nothing was redirected
    int memory;  // the memory file that took its place
} allspark_quiet_stderr;

allspark_quiet_stderr allspark_quiet_stderr_begin(void);
void allspark_quiet_stderr_end(allspark_quiet_stderr quiet, const char *dropped_prefix);

#endif
