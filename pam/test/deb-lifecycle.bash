#!/usr/bin/env bash
# The touchgate package's life on a machine, with real dpkg, pam-auth-update and pamtester, and
# PAM checked through common-auth after every step: install, enable the profile, upgrade, a
# removal refused while an account's login shell is touchgate-login-shell, one refused while a
# stack the administrator wrote still names the module, remove, purge, install again. The machine
# never changes: everything runs as root in a private mount namespace, chrooted into an overlay of
# / whose changes live on a tmpfs that goes with the namespace (dpkg's database, /etc/pam.d, /usr,
# /var/lib/touchgate, the test user).
#
#   deb-lifecycle.bash DEB [RUNTIME_DIRS]
#
#   DEB            the package (scripts/package, with pam_touchgate.so and its helper)
#   RUNTIME_DIRS   for a debug build packaged with --toolchain-runtime: the toolchain's runtime
#                  directories (colon-separated), bind-mounted into the overlay and named in its
#                  /etc/ld.so.conf.d, so the packaged helper starts as an installed one would
#
# Each step that passes prints "step NAME: ok" on standard output; the first that fails prints
# "deb-lifecycle: NAME: WHAT" on standard error and the script exits 1 (2: usage).
set -euo pipefail

if [ "${1:-}" != --inside ]; then
    if [ $# -lt 1 ] || [ ! -f "$1" ]; then
        echo "usage: deb-lifecycle.bash DEB [RUNTIME_DIRS]" >&2
        exit 2
    fi
    if [ -z "${TOUCHGATE_DEB_LIFECYCLE_NAMESPACE:-}" ]; then
        exec env TOUCHGATE_DEB_LIFECYCLE_NAMESPACE=1 unshare --mount --propagation private "$0" "$@"
    fi
    deb=$(realpath "$1"); runtime=${2:-}
    scratch=$(mktemp -d /tmp/touchgate-deb-lifecycle.XXXXXX)
    mount -t tmpfs tmpfs "$scratch"
    mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
    root=$scratch/root
    mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$root"
    mount --bind /proc "$root/proc"
    mount --bind /dev "$root/dev"
    mount -t tmpfs -o mode=755 tmpfs "$root/run"
    mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
    IFS=: read -r -a runtime_dirs <<<"$runtime"
    for dir in "${runtime_dirs[@]}"; do
        mkdir -p "$root$dir"
        mount --bind "$dir" "$root$dir"
    done
    cp "$deb" "$root/tmp/touchgate.deb"
    cp "$0" "$root/tmp/deb-lifecycle.bash"
    status=0
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        /bin/bash /tmp/deb-lifecycle.bash --inside "$runtime" || status=$?
    # The namespace ends with this process and takes its mounts along; the directory is the
    # machine's and goes now.
    umount -l "$scratch"
    rmdir "$scratch"
    exit "$status"
fi

# Inside the overlay, as its root.
runtime=${2:-}
export DEBIAN_FRONTEND=noninteractive
password=tgdebtest-password
module=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/security/pam_touchgate.so
step=setup

fail() { echo "deb-lifecycle: $step: $1" >&2; exit 1; }
ok() { echo "step $step: ok"; }
# run COMMAND...: the command, its output kept in /tmp/out (shown in a failure's line).
run() { "$@" >/tmp/out 2>&1; }
last_line() { grep -v '^$' /tmp/out | tail -n 1; }

# The names on PAM's auth lines of common-auth (comments left out).
common_auth_names_module() { grep -Eq '^[^#]*pam_touchgate\.so' /etc/pam.d/common-auth; }

# check: PAM works through common-auth: the test user's password is accepted, a wrong one refused.
check() {
    printf '%s\n' "$password" | run pamtester tgdeb-check "$user" authenticate \
        || fail "the right password is refused through common-auth: $(last_line)"
    if printf 'not-the-password\n' | run pamtester tgdeb-check "$user" authenticate; then
        fail "a wrong password is accepted through common-auth"
    fi
}

package_status() { dpkg-query -W -f='${db:Status-Status}' touchgate 2>/dev/null || echo not-installed; }

# man-db's trigger re-indexes every manual page at each dpkg run (seconds each): off in the overlay.
rm -f /var/lib/man-db/auto-update
if [ -n "$runtime" ]; then
    tr ':' '\n' <<<"$runtime" > /etc/ld.so.conf.d/zz-touchgate-test-toolchain.conf
    ldconfig
fi
# The machine's own touchgate, if it has one, leaves the overlay first: the life starts without it.
if dpkg-query -W touchgate >/dev/null 2>&1; then
    rm -f /var/lib/dpkg/info/touchgate.prerm
    run pam-auth-update --package --remove touchgate || fail "cannot take the machine's profile out: $(last_line)"
    run dpkg --purge touchgate || fail "cannot purge the machine's touchgate: $(last_line)"
fi
# The test user exists only in the overlay, under a name the machine does not use.
user=tgdebtest
for n in 1 2 3 4 5 6 7 8 9; do
    getent passwd "$user" >/dev/null || break
    user=tgdebtest$n
done
! getent passwd "$user" >/dev/null || fail "every test user name is taken"
useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
    --password "$(openssl passwd -6 "$password")" "$user"
printf '@include common-auth\n' > /etc/pam.d/tgdeb-check
[ ! -e /var/lib/touchgate ] || rm -rf /var/lib/touchgate   # the host's ledger, if any, is not the package's
version=$(dpkg-deb --field /tmp/touchgate.deb Version)

# The same package with a higher version, for the upgrade.
mkdir /tmp/next
dpkg-deb -R /tmp/touchgate.deb /tmp/next/tree
sed -i "s/^Version: .*/Version: $version+1/" /tmp/next/tree/DEBIAN/control
run dpkg-deb --root-owner-group -Zgzip -z1 -b /tmp/next/tree /tmp/touchgate-next.deb || fail "cannot build the next version: $(last_line)"

step=before-install
common_auth_names_module && fail "common-auth names pam_touchgate.so before the package is installed"
check; ok

step=install
run dpkg -i /tmp/touchgate.deb || fail "dpkg -i failed: $(last_line)"
[ -f "$module" ] || fail "no $module"
[ -f /usr/share/pam-configs/touchgate ] || fail "no pam-auth-update profile"
common_auth_names_module && fail "installing enabled the profile (its Default is no)"
check; ok

step=enable
run pam-auth-update --enable touchgate || fail "pam-auth-update --enable touchgate failed: $(last_line)"
common_auth_names_module || fail "common-auth does not name pam_touchgate.so"
[ ! -e /var/lib/touchgate ] || fail "/var/lib/touchgate exists before the module ran"
check
# The module ran: its helper counted the tries in the system ledger.
[ -f /var/lib/touchgate/touchgate.sqlite ] || fail "no system ledger: the module did not run"
ok

step=upgrade
run dpkg -i /tmp/touchgate-next.deb || fail "dpkg -i of $version+1 failed: $(last_line)"
[ "$(dpkg-query -W -f='${Version}' touchgate)" = "$version+1" ] || fail "the installed version is not $version+1"
common_auth_names_module || fail "the upgrade turned the profile off"
check; ok

step=reinstall
run dpkg -i /tmp/touchgate-next.deb || fail "dpkg -i of the same version failed: $(last_line)"
common_auth_names_module || fail "installing the same version again turned the profile off"
check; ok

step=remove-refused-login-shell
# An account whose login shell is touchgate-login-shell could not log in without the package.
run usermod --shell /usr/bin/touchgate-login-shell "$user" || fail "usermod failed: $(last_line)"
run dpkg -r touchgate && fail "dpkg -r succeeded while $user's login shell is touchgate-login-shell"
grep -q "the login shell of $user is touchgate's" /tmp/out || fail "no line naming $user: $(last_line)"
[ "$(package_status)" = installed ] || fail "the package is $(package_status), not installed"
[ -x /usr/bin/touchgate ] || fail "/usr/bin/touchgate is gone"
common_auth_names_module || fail "the refused removal took the profile out of common-auth"
run usermod --shell /usr/sbin/nologin "$user" || fail "usermod failed: $(last_line)"
check; ok

step=remove-refused
# A stack the administrator wrote by hand (pam_touchgate(8)'s sudo example): removing the module
# would break it, so the removal stops and the module stays.
printf 'auth [success=done authinfo_unavail=ignore default=die] pam_touchgate.so\n@include common-auth\n' \
    > /etc/pam.d/tgdeb-sudo
run dpkg -r touchgate && fail "dpkg -r succeeded while /etc/pam.d/tgdeb-sudo names pam_touchgate.so"
grep -q "pam_touchgate.so is still in /etc/pam.d/tgdeb-sudo" /tmp/out || fail "no line naming /etc/pam.d/tgdeb-sudo: $(last_line)"
[ "$(package_status)" = installed ] || fail "the package is $(package_status), not installed"
[ -f "$module" ] || fail "the module is gone"
printf '%s\n' "$password" | run pamtester tgdeb-sudo "$user" authenticate \
    || fail "the right password is refused through /etc/pam.d/tgdeb-sudo: $(last_line)"
check
rm /etc/pam.d/tgdeb-sudo
run pam-auth-update --enable touchgate || fail "pam-auth-update --enable touchgate failed: $(last_line)"
common_auth_names_module || fail "common-auth does not name pam_touchgate.so again"
ok

step=remove
run dpkg -r touchgate || fail "dpkg -r failed: $(last_line)"
[ ! -e "$module" ] || fail "$module is still there"
check   # before the profile left common-auth here, this was "Module is unknown"
common_auth_names_module && fail "common-auth still names pam_touchgate.so, whose file is gone"
[ -f /var/lib/touchgate/touchgate.sqlite ] || fail "remove (not purge) took the system ledger"
[ -f /etc/pam.d/touchgate ] || fail "remove (not purge) took the conffile /etc/pam.d/touchgate"
ok

step=purge
run dpkg -P touchgate || fail "dpkg -P failed: $(last_line)"
[ ! -e /var/lib/touchgate ] || fail "/var/lib/touchgate is still there"
[ ! -e /etc/pam.d/touchgate ] || fail "/etc/pam.d/touchgate is still there"
[ "$(package_status)" = not-installed ] || fail "the package is $(package_status), not gone"
check; ok

step=install-again
run dpkg -i /tmp/touchgate.deb || fail "dpkg -i failed: $(last_line)"
common_auth_names_module && fail "installing after a purge turned the profile on"
check
run dpkg -P touchgate || fail "dpkg -P failed: $(last_line)"
check; ok
