#ifndef ALLSPARK_KERNEL_CLOCK_H
#define ALLSPARK_KERNEL_CLOCK_H

/* The kernel's view of its wall clock, read with adjtimex(2) in read-only mode (modes = 0):
 * what an NTP or PTP daemon last told it, so no daemon needs to be asked. */
struct allspark_kernel_clock {
    int state;              /* adjtimex's return value: TIME_OK (0) ... TIME_ERROR (5) */
    int unsynchronized;     /* 1 when STA_UNSYNC is set */
    long estimated_error_us;
    long maximum_error_us;
};

/* Returns 0 on success and -1 (errno set) otherwise. */
int allspark_read_kernel_clock(struct allspark_kernel_clock *clock);

#endif
