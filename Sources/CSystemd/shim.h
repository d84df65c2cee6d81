#ifndef ALLSPARK_CSYSTEMD_SHIM_H
#define ALLSPARK_CSYSTEMD_SHIM_H

// sd_notify(3) and sd_watchdog_enabled(3): the service's side of Type=notify and WatchdogSec=.
#include <systemd/sd-daemon.h>

#endif
