#!/usr/bin/env bash
# The 6th wrong passcode is a lockout: a test of touchgate's counting against real PAM, from a
# shell script (docs/testing.md). Needs `touchgate` on PATH and pam_matrix.so (libpam-wrapper).
set -euo pipefail

dir=$(mktemp -d)
eval "$(touchgate test-world create "$dir/world")"   # exports TOUCHGATE_PAM_CONFDIR, _STORE, _USER
trap 'touchgate test-world remove "$dir/world"; rmdir "$dir"' EXIT

# One passcode answer per evaluation, so each `auth` below is one counted try.
touchgate config set passcode-tries-per-evaluation 1 >/dev/null

fail() { echo "FAIL: $*" >&2; exit 1; }

# Five wrong passcodes: each is a failure (exit 1), and the default passcode-delays
# (0,0,0,0,0,60,...) let each through to PAM.
for try in 1 2 3 4 5; do
    status=0
    json=$(echo "wrong-$try" | touchgate -S --json auth 2>/dev/null) || status=$?
    [ "$status" -eq 1 ] || fail "try $try: exit $status, expected 1: $json"
    [ "$(jq -r .outcome <<<"$json")" = authenticationFailed ] || fail "try $try: $json"
    [ "$(jq .retryAfterSeconds <<<"$json")" = null ] || fail "try $try was throttled: $json"
done
[ "$(jq .attemptsLeft.passcode <<<"$json")" = 0 ] || fail "attempts left after 5: $json"

# The 6th is refused before PAM sees it: throttled for 60 s, even with the right passcode.
status=0
json=$(echo alice-passcode | touchgate -S --json auth 2>/dev/null) || status=$?
[ "$status" -eq 1 ] || fail "6th try: exit $status, expected 1: $json"
[ "$(jq .retryAfterSeconds <<<"$json")" = 60 ] || fail "6th try not throttled: $json"
[ "$(jq -r .message <<<"$json")" = "Authentication failed: too many wrong passcodes. Try again in 60 s." ] \
    || fail "6th try's message: $json"
[ "$(touchgate --json status | jq .passcodeFailures)" = 5 ] || fail "the 6th try was counted"
echo "ok: the 6th wrong try is a lockout"
