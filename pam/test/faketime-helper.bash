#!/bin/bash -p
# Installed as /run/touchgate/touchgate-pam-helper in pam-host.bash's namespace (PAMHost's
# `shiftsTheHelpersClock`): runs the real helper, /run/touchgate/touchgate-pam-helper.real, with
# its clock shifted by libfaketime, so the passcode rules meet a later time under real sudo.
#
#   /run/touchgate/faketime    libfaketime's FAKETIME for this run (e.g. "+47h"); none: "+0"
#
# pam_touchgate.so spawns the helper from sudo's process: real uid the user, effective uid root,
# an empty environment. The loader ignores LD_PRELOAD in such a secure exec, so the wrapper
# (bash -p: its privileges kept) first makes every id root with setpriv, then preloads
# libfaketime into the helper. A test file only: nothing installs it.
set -euo pipefail
here=/run/touchgate
offset=+0
if [ -r "$here/faketime" ]; then read -r offset < "$here/faketime"; fi
library=""
for candidate in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
    if [ -e "$candidate" ]; then library=$candidate; break; fi
done
[ -n "$library" ] || { echo "faketime-helper.bash: libfaketime is missing (apt-get install faketime)" >&2; exit 69; }
exec /usr/bin/setpriv --reuid=0 --regid=0 --clear-groups \
    /usr/bin/env -i LD_PRELOAD="$library" FAKETIME="$offset" "$here/touchgate-pam-helper.real"
