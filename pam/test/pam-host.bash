#!/usr/bin/env bash
# Runs COMMAND as root in a private mount namespace set up as a machine with pam_touchgate.so:
# the files a test wrote in DIR are bind-mounted over the machine's, which never change.
#
#   pam-host.bash DIR COMMAND [ARGUMENTS...]
#
#   DIR/pam.d                  over /etc/pam.d (the test's copy, with its stacks)
#   DIR/passwd, group, shadow, shells, sudoers   over the files of /etc, each when it exists
#   DIR/touchgate.conf         copied with its owner and mode to /etc/touchgate.conf, the system
#                              policy, on an overlay of /etc whose changes live in a private
#                              tmpfs (the machine has no such file to bind-mount over)
#   DIR/ledger                 over /var/lib/touchgate (on an overlay of /var/lib whose changes
#                              live in the private /run: the machine's /var/lib is never written)
#   DIR/touchgate-pam-helper   copied to /run/touchgate/touchgate-pam-helper (root-owned, 0755,
#                              in root-owned directories, as the module requires); /run is a
#                              private tmpfs
#   DIR/touchgate-pam-helper.real   copied beside it, when it exists (the helper itself, when
#                              DIR/touchgate-pam-helper is faketime-helper.bash, which runs it)
#   BUS_SOCKET (environment)   a private system bus's socket, bind-mounted at
#                              /run/dbus/system_bus_socket, where the helper's biometric stack
#                              (pam_fprintd, with a cleared environment) looks for the system bus
# The exit status is COMMAND's.
set -euo pipefail
if [ -z "${TOUCHGATE_PAM_HOST_NAMESPACE:-}" ]; then
    exec env TOUCHGATE_PAM_HOST_NAMESPACE=1 unshare --mount --propagation private "$0" "$@"
fi
unset TOUCHGATE_PAM_HOST_NAMESPACE
dir=${1:?usage: pam-host.bash DIR COMMAND...}
shift
if [ -e "$dir/touchgate.conf" ]; then
    mkdir -p "$dir/.etc-overlay"
    mount -t tmpfs -o mode=700 tmpfs "$dir/.etc-overlay"
    mkdir "$dir/.etc-overlay/upper" "$dir/.etc-overlay/work"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$dir/.etc-overlay/upper,workdir=$dir/.etc-overlay/work" /etc
    rm -rf /etc/touchgate.conf
    cp -a "$dir/touchgate.conf" /etc/touchgate.conf
fi
mount --bind "$dir/pam.d" /etc/pam.d
for file in passwd group shadow shells sudoers; do
    if [ -e "$dir/$file" ]; then mount --bind "$dir/$file" "/etc/$file"; fi
done
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -m 755 /run/touchgate /run/dbus /run/sudo
if [ -e "$dir/touchgate-pam-helper" ]; then
    install -m 755 -o root -g root "$dir/touchgate-pam-helper" /run/touchgate/touchgate-pam-helper
fi
if [ -e "$dir/touchgate-pam-helper.real" ]; then
    install -m 755 -o root -g root "$dir/touchgate-pam-helper.real" /run/touchgate/touchgate-pam-helper.real
fi
if [ -n "${BUS_SOCKET:-}" ]; then
    touch /run/dbus/system_bus_socket
    mount --bind "$BUS_SOCKET" /run/dbus/system_bus_socket
fi
unset BUS_SOCKET
# The overlay's changes live in the private /run, so nothing of it outlives the namespace.
mkdir -m 700 /run/.var-lib
mkdir /run/.var-lib/upper /run/.var-lib/work
mount -t overlay overlay -o "lowerdir=/var/lib,upperdir=/run/.var-lib/upper,workdir=/run/.var-lib/work" /var/lib
[ -d /var/lib/touchgate ] || mkdir -m 755 /var/lib/touchgate
if [ -d "$dir/ledger" ]; then mount --bind "$dir/ledger" /var/lib/touchgate; fi
status=0
"$@" || status=$?
exit "$status"
