#!/usr/bin/env bash
# Runs a system D-Bus and an avahi-daemon limited to the loopback interface, so mDNS tests
# work on a bare machine (CI, containers) without any packet leaving on a real interface.
#
#   start-avahi.sh [start]   start what is not running (idempotent), wait until avahi answers
#   start-avahi.sh restart   stop avahi-daemon, then start it again (D-Bus stays up)
#   start-avahi.sh stop      stop avahi-daemon (D-Bus stays up)
#   start-avahi.sh stop-all  stop avahi-daemon and the D-Bus this script started
#
# Needs root. An avahi-daemon running with another configuration is replaced, because it
# would publish test services on the machine's real interfaces.
set -euo pipefail

state_dir=/run/allspark-avahi
config="$state_dir/avahi-daemon-lo.conf"
started_pid_file="$state_dir/avahi-daemon.pid" # the avahi-daemon this script started
started_dbus_pid_file="$state_dir/dbus-daemon.pid" # the D-Bus this script started
dbus_pid_file=/run/dbus/pid
avahi_pid_file=/run/avahi-daemon/pid

daemon_log="$state_dir/daemons.log"

say() { echo "start-avahi: $*"; }

# Runs a daemon without the caller's descriptors. A daemon holding them would keep the
# caller from seeing this script end (a pipe never reaches EOF; Foundation's Process
# watches a descriptor it passes to the child).
without_inherited_fds() {
    mkdir -p "$state_dir"
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] && eval "exec $fd>&-"
        done
        exec "$@" </dev/null >>"$daemon_log" 2>&1
    )
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

pid_from() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }

avahi_pid() {
    local pid
    pid=$(pid_from "$avahi_pid_file")
    if pid_alive "$pid"; then echo "$pid"; return; fi
    pgrep -x avahi-daemon | head -n1 || true
}

dbus_running() {
    [ -S /run/dbus/system_bus_socket ] && dbus-send --system --print-reply \
        --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId >/dev/null 2>&1
}

write_config() {
    mkdir -p "$state_dir"
    cat >"$config" <<'EOF'
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000

[wide-area]
enable-wide-area=no

[publish]
publish-workstation=no
publish-hinfo=no
publish-addresses=yes

[reflector]
enable-reflector=no
EOF
}

# avahi-daemon rewrites its command line, so the config it runs with is known only from
# the pid this script recorded when it started it.
running_with_our_config() {
    [ "$1" = "$(pid_from "$started_pid_file")" ]
}

start_dbus() {
    if dbus_running; then
        say "system D-Bus already running"
        return
    fi
    mkdir -p /run/dbus
    rm -f "$dbus_pid_file" # a stale pid file stops dbus-daemon from starting
    without_inherited_fds dbus-daemon --system --fork
    for _ in $(seq 50); do
        if dbus_running; then
            cp "$dbus_pid_file" "$started_dbus_pid_file"
            say "started system D-Bus (pid $(pid_from "$dbus_pid_file"))"
            return
        fi
        sleep 0.1
    done
    say "system D-Bus did not come up; $daemon_log ends with:"
    tail -n 20 "$daemon_log" >&2 || true
    exit 1
}

stop_avahi() {
    local pid
    pid=$(avahi_pid)
    if ! pid_alive "$pid"; then
        say "avahi-daemon not running"
        return
    fi
    kill "$pid"
    # SIGKILL after 3 s: a daemon started with SIGTERM blocked (inherited) never stops otherwise.
    for _ in $(seq 30); do
        pid_alive "$pid" || { say "stopped avahi-daemon (pid $pid)"; return; }
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    say "killed avahi-daemon (pid $pid)"
}

# Only a D-Bus this script started: the machine's own system bus is left alone.
stop_dbus() {
    local pid
    pid=$(pid_from "$started_dbus_pid_file")
    if ! pid_alive "$pid"; then
        say "no system D-Bus started by this script is running"
        return
    fi
    kill "$pid"
    for _ in $(seq 30); do
        pid_alive "$pid" || break
        sleep 0.1
    done
    pid_alive "$pid" && kill -9 "$pid"
    rm -f "$dbus_pid_file" "$started_dbus_pid_file"
    say "stopped system D-Bus (pid $pid)"
}

avahi_answers() {
    avahi-daemon --check 2>/dev/null && timeout 5 avahi-browse -a -t -p >/dev/null 2>&1
}

start_avahi() {
    local pid
    pid=$(avahi_pid)
    if pid_alive "$pid"; then
        if running_with_our_config "$pid" && avahi_answers; then
            say "avahi-daemon already running on loopback (pid $pid)"
            return
        fi
        say "replacing avahi-daemon pid $pid (not started here, or not answering)"
        if command -v systemctl >/dev/null && systemctl is-active --quiet avahi-daemon 2>/dev/null; then
            systemctl stop avahi-daemon.socket avahi-daemon.service || true
        fi
        stop_avahi
    fi
    write_config
    # Loopback needs no MULTICAST flag: avahi accepts a loopback interface without it
    # (tested), so the interface is left as it is.
    mkdir -p /run/avahi-daemon
    rm -f "$avahi_pid_file"
    without_inherited_fds avahi-daemon -f "$config" --no-drop-root --no-rlimits -D
    for _ in $(seq 100); do
        if avahi_answers; then
            avahi_pid >"$started_pid_file"
            say "started avahi-daemon on loopback (pid $(avahi_pid), config $config)"
            return
        fi
        sleep 0.1
    done
    say "avahi-daemon did not answer within 10 s; $daemon_log ends with:"
    tail -n 20 "$daemon_log" >&2 || true
    exit 1
}

if [ "$(id -u)" -ne 0 ]; then
    say "must run as root"
    exit 1
fi

case "${1:-start}" in
    start) start_dbus; start_avahi ;;
    restart) start_dbus; stop_avahi; start_avahi ;;
    stop) stop_avahi ;;
    stop-all) stop_avahi; stop_dbus ;;
    *) echo "usage: $0 [start|restart|stop|stop-all]" >&2; exit 2 ;;
esac
