#include "process_settings.h"

#include <sys/prctl.h>

int allspark_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}
