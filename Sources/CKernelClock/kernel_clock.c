#include "kernel_clock.h"

#include <string.h>
#include <sys/timex.h>

int allspark_read_kernel_clock(struct allspark_kernel_clock *clock) {
    struct timex query;
    memset(&query, 0, sizeof query);
    int state = adjtimex(&query);
    if (state < 0) return -1;
    clock->state = state;
    clock->unsynchronized = (query.status & STA_UNSYNC) != 0;
    clock->estimated_error_us = query.esterror;
    clock->maximum_error_us = query.maxerror;
    return 0;
}
