#!/usr/bin/env bash
# Runs a command in a Debian build root of the given release, made once from Debian's
# registry with mmdebstrap and kept in /var/cache/allspark-node/roots/debian<N> (root).
#   debian-root.sh 12|13 [--private-network] COMMAND...
# The checkout and ../shared appear at their own paths, the machine's Swift toolchain at
# its own (read-only), so a build folder made inside stays valid for the next run. The
# root shares the host's network (apt inside it reaches Debian's registry), but with
# --private-network COMMAND gets a network of its own with loopback alone (tests whose
# daemons, avahi's say, must not meet the host's). Each run first brings the root's
# packages up to `scripts/setup.sh ${ALLSPARK_ROOT_SETUP:---package}`.
# ALLSPARK_ROOTS sets another cache folder.
set -euo pipefail
usage="usage: debian-root.sh 12|13 [--private-network] COMMAND..."
release=${1:?$usage}
shift
network=()
[ "${1:-}" = "--private-network" ] && { network=(--private-network); shift; }
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
case $release in
    12) suite=bookworm; toolchain_deps=libcurl4 ;;
    13) suite=trixie; toolchain_deps=libcurl4t64 ;;
    *) echo "debian-root.sh: Debian 12 or 13, not '$release'" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "debian-root.sh: needs root (mmdebstrap, systemd-nspawn)" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/.." && pwd)/shared
swift_driver=$(readlink -f "$(command -v swift)")
toolchain=${swift_driver%/usr/bin/*}
roots=${ALLSPARK_ROOTS:-/var/cache/allspark-node/roots}
root=$roots/debian$release
mkdir -p "$roots"

# One run at a time per root: apt and the build folders inside are not shared safely.
exec 9>"$roots/debian$release.lock"
flock 9

if [ ! -f "$root/etc/os-release" ]; then
    rm -rf "$root.partial"
    # What the Swift toolchain itself runs with (its compiler, SwiftPM and linker); the
    # node's own build dependencies come from setup.sh below, as on a fresh machine.
    mmdebstrap --variant=minbase --quiet \
        --include="ca-certificates,git,gcc,g++,libc6-dev,binutils,pkg-config,$toolchain_deps,libxml2,libsqlite3-0,libncurses6,libedit2,zlib1g-dev,python3,tzdata" \
        "$suite" "$root.partial"
    mv "$root.partial" "$root"
fi

# The toolchain is built for Debian 12: SwiftPM and its linker open ICU 72 and OpenLDAP
# 2.5, which Debian 13 replaced (ICU 76, OpenLDAP 2.6). Those few libraries are copied from
# the host into a folder of their own that only the toolchain's processes are pointed at.
compat=/opt/allspark-toolchain-compat
if [ "$release" = 13 ]; then
    mkdir -p "$root$compat"
    for library in libicuuc.so.72 libicudata.so.72 libicui18n.so.72 libldap-2.5.so.0 liblber-2.5.so.0; do
        [ -e "$root$compat/$library" ] && continue
        # awk reads to the end: an early exit would end ldconfig with SIGPIPE, and pipefail the script.
        found=$(ldconfig -p | awk -v name="$library" '$1 == name && !found { print $NF; found = 1 }')
        [ -n "$found" ] || { echo "debian-root.sh: the host has no $library (libicu72, libldap-2.5-0)" >&2; exit 1; }
        cp -L "$found" "$root$compat/"
    done
fi

# The root trusts what the host trusts (a machine behind a TLS-inspecting proxy adds its
# authority there), so pip inside it reaches PyPI as the host does.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    if ! diff -rq /usr/local/share/ca-certificates "$root/usr/local/share/ca-certificates" >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
        chroot "$root" update-ca-certificates >/dev/null
    fi
fi

binds=(--bind-ro="$toolchain" --bind="$repo")
# Where the host's git fetches Swift packages from a local mirror (url.<dir>.insteadOf in
# its /etc/gitconfig), the root does the same, from the same folders.
if [ -f /etc/gitconfig ]; then
    cp /etc/gitconfig "$root/etc/gitconfig"
    while read -r mirror; do
        [ -d "$mirror" ] && binds+=(--bind-ro="$mirror")
    done < <(git config --system --get-regexp '^url\..*\.insteadof$' | sed -E 's/^url\.(.*)\.insteadof .*/\1/' | sort -u)
fi
[ -d "$shared" ] && binds+=(--bind="$shared")
setup=${ALLSPARK_ROOT_SETUP:---package}
in_root() {
    systemd-nspawn -q -D "$root" --register=no --keep-unit --as-pid2 "${binds[@]}" --chdir="$repo" \
        --setenv=PATH="$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        --setenv=DEBIAN_FRONTEND=noninteractive --setenv=HOME=/root --setenv=LANG=C.UTF-8 "$@"
}
echo "debian-root.sh: Debian $release root, packages of setup.sh $setup" >&2
in_root bash -c 'set -e
    git config --global --get-all safe.directory | grep -qx "$1" || git config --global --add safe.directory "$1"
    bash scripts/setup.sh "$2" >/dev/null' debian-root "$repo" "$setup"
# LD_LIBRARY_PATH reaches the toolchain's compat libraries; nothing else asks for those sonames.
compat_path=()
[ -d "$root$compat" ] && compat_path=(--setenv=LD_LIBRARY_PATH="$compat")
# @clock: adjtimex may read the kernel clock's state, as the node does at start (setting
# the clock still needs CAP_SYS_TIME, which the root does not get).
in_root "${network[@]}" "${compat_path[@]}" --system-call-filter=@clock "$@"
