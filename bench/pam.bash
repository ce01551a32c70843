#!/usr/bin/env bash
# pam_touchgate.so against its peers, in one run, as root (run it as CI runs the tests): every
# command runs in the private mount namespace of pam/test/pam-host.bash, with a test user `alice`
# (password alice-password) and test stacks bind-mounted over /etc; the machine's files never change.
#
#   bench/pam.bash              build (scripts/build) and measure
#   bench/pam.bash --publish    also rewrite the "The PAM module" table in bench/RESULTS.md
#
# Rows:
#   1. real `sudo -S -k true` as alice with /etc/pam.d/sudo = pam_touchgate.so (its passcode stack
#      /etc/pam.d/touchgate = pam_unix.so nodelay) against the same sudo with /etc/pam.d/sudo =
#      pam_unix.so nodelay alone: median wall time of BENCH_PAM_SUDO_RUNS (default 40) each,
#      alternating run by run.
#   2. N = 10, 50, 200 pamtester processes at once, one wrong password each, released together by
#      a flock barrier: how many reached the password module (a pam_exec counter line in front of
#      it) through pam_touchgate.so (a fresh ledger each round; passcode-delays' default lets 5
#      failures through) against pam_faillock deny=5 (preauth / authfail / authsucc around the
#      same pam_unix check), BENCH_PAM_ROUNDS rounds (default 3) each.
#   3. with fprintd installed: a good scan (libfprint's virtual device) to pamtester's exit through
#      pam_touchgate.so factor=biometric against pam_fprintd alone, BENCH_PAM_SCANS (default 10) each.
# TOUCHGATE_BIN=DIR measures the helper and module in DIR instead of building them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
publish=0
case "${1:-}" in
    --publish) publish=1 ;;
    "") ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "bench/pam.bash: unknown argument '$1' (see bench/pam.bash --help)" >&2; exit 64 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "bench/pam.bash: run it as root (it uses a private mount namespace)" >&2; exit 1; }
for tool in sudo pamtester setpriv openssl flock unshare; do
    command -v "$tool" >/dev/null || { echo "bench/pam.bash: $tool is missing (scripts/setup installs it)" >&2; exit 1; }
done
bin=${TOUCHGATE_BIN:-}
if [ -z "$bin" ]; then
    "$root/scripts/build" >&2
    bin=$root/.build/release
fi
bin=$(cd "$bin" && pwd)
sudo_runs=${BENCH_PAM_SUDO_RUNS:-40}
rounds=${BENCH_PAM_ROUNDS:-3}

work=$(mktemp -d /tmp/touchgate-bench-pam.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -m 700 "$work/ledger"
cp -a /etc/pam.d "$work/pam.d"
cp -p /etc/passwd /etc/group /etc/shadow "$work/"
echo "alice:x:4242:4242::/nonexistent:/bin/sh" >> "$work/passwd"
echo "alice:x:4242:" >> "$work/group"
echo "alice:$(openssl passwd -6 alice-password):19000:0:99999:7:::" >> "$work/shadow"
printf 'Defaults !lecture, timestamp_timeout=0, !use_pty\nroot ALL=(ALL) ALL\nalice ALL=(ALL) ALL\n' > "$work/sudoers"
chmod 440 "$work/sudoers"
cp "$bin/touchgate-pam-helper" "$work/touchgate-pam-helper"
module=$bin/pam_touchgate.so
helper=/run/touchgate/touchgate-pam-helper
faillock_module=$(find /usr/lib /lib -path '*-linux-gnu/security/pam_faillock.so' -print -quit 2>/dev/null)
printf '#!/bin/sh\necho x >> "%s/calls"\n' "$work" > "$work/count"
chmod 755 "$work/count"
rm -f "$work/pam.d/touchgate-biometric"
printf 'auth required pam_unix.so nodelay\n' > "$work/pam.d/touchgate"
printf 'auth required %s helper=%s\naccount required pam_permit.so\nsession required pam_permit.so\n' "$module" "$helper" \
    > "$work/sudo-touchgate"
printf 'auth required pam_unix.so nodelay\naccount required pam_permit.so\nsession required pam_permit.so\n' > "$work/sudo-unix"
printf 'auth optional pam_exec.so quiet %s/count\nauth required pam_unix.so nodelay\n' "$work" > "$work/touchgate-counted"
printf 'auth required %s helper=%s\naccount required pam_permit.so\n' "$module" "$helper" > "$work/pam.d/tgbench"
faillock_options="deny=5 even_deny_root unlock_time=900 dir=$work/tally"
cat > "$work/pam.d/faillockbench" <<STACK
auth requisite $faillock_module preauth $faillock_options
auth optional pam_exec.so quiet $work/count
auth [success=1 default=bad] pam_unix.so nodelay
auth [default=die] $faillock_module authfail $faillock_options
auth sufficient $faillock_module authsucc $faillock_options
account required pam_permit.so
STACK

# Everything below runs inside the namespace, as one script (bench/pam-inside.bash's body).
cat > "$work/inside.bash" <<'INSIDE'
set -euo pipefail
work=$1 sudo_runs=$2 rounds=$3
now() { date +%s%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sudo_once() { # sudo_once STACK: the wall time of one sudo -S -k true as alice, in ns
    cp "$work/$1" /etc/pam.d/sudo
    local start end
    start=$(now)
    printf 'alice-password\n' | setpriv --reuid=4242 --regid=4242 --clear-groups sudo -S -k -p '' true 2>/dev/null \
        || { echo "sudo with $1 failed" >&2; exit 1; }
    end=$(now)
    echo $((end - start))
}
sudo_once sudo-touchgate >/dev/null; sudo_once sudo-unix >/dev/null
: > "$work/t-touchgate"; : > "$work/t-unix"
for _ in $(seq "$sudo_runs"); do
    sudo_once sudo-touchgate >> "$work/t-touchgate"
    sudo_once sudo-unix >> "$work/t-unix"
done
echo "sudo $(median < "$work/t-touchgate") $(median < "$work/t-unix")"
cp "$work/touchgate-counted" /etc/pam.d/touchgate
parallel() { # parallel SERVICE N: how many of N wrong passwords at once reached pam_unix
    local service=$1 n=$2 i
    : > "$work/calls"
    exec 9> "$work/barrier"
    flock -x 9
    for i in $(seq "$n"); do
        (exec 9>&-; flock -s "$work/barrier" true; printf 'wrong-%s\n' "$i" | pamtester "$service" alice authenticate >/dev/null 2>&1) &
    done
    sleep 0.5
    exec 9>&-
    wait
    wc -l < "$work/calls" | tr -d ' '
}
for n in 10 50 200; do
    ours=() theirs=()
    for _ in $(seq "$rounds"); do
        rm -f /var/lib/touchgate/touchgate.sqlite*
        ours+=("$(parallel tgbench "$n")")
        rm -rf "$work/tally"; mkdir -p "$work/tally"
        theirs+=("$(parallel faillockbench "$n")")
    done
    echo "parallel $n $(IFS=/; echo "${ours[*]}") $(IFS=/; echo "${theirs[*]}")"
done
INSIDE

results=$(bash "$root/pam/test/pam-host.bash" "$work" bash "$work/inside.bash" "$work" "$sudo_runs" "$rounds")
ms() { awk -v ns="$1" 'BEGIN { printf "%.2f ms", ns / 1000000 }'; }
rows=()

# 3. Scan to exit: fprintd with libfprint's virtual device on a private system bus (outside the
# namespace; its socket bind-mounted at /run/dbus/system_bus_socket inside), the finger `good`
# enrolled for alice; pamtester waits for the reader, the scan is sent once the reader's line is
# out, and the time runs from the scan to pamtester's exit: through pam_touchgate.so (the helper's
# touchgate-biometric stack = pam_fprintd max-tries=1) against pam_fprintd alone as the stack.
scan_row=
if command -v fprintd-enroll >/dev/null && [ -x /usr/libexec/fprintd ] && command -v socat >/dev/null; then
    fp=$work/fp
    mkdir -p "$fp/state"
    cat > "$fp/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=$fp/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
CONF
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$fp/bus
    pids=()
    dbus-daemon --config-file="$fp/bus.conf" --nofork & pids+=($!)
    trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
    for _ in $(seq 100); do [ -S "$fp/bus" ] && break; sleep 0.05; done
    /usr/bin/python3 -m dbusmock --system --template polkitd > "$fp/polkit.log" 2>&1 & pids+=($!)
    for _ in $(seq 100); do
        gdbus call --system -d org.freedesktop.PolicyKit1 -o /org/freedesktop/PolicyKit1/Authority \
            -m org.freedesktop.DBus.Mock.AllowUnknown true >/dev/null 2>&1 && break
        sleep 0.1
    done
    FP_DRIVERS_WHITELIST=virtual_device FP_VIRTUAL_DEVICE=$fp/vd.sock STATE_DIRECTORY=$fp/state \
        /usr/libexec/fprintd -t > "$fp/fprintd.log" 2>&1 & pids+=($!)
    for _ in $(seq 100); do
        gdbus call --system -d net.reactivated.Fprint -o /net/reactivated/Fprint/Manager \
            -m net.reactivated.Fprint.Manager.GetDevices >/dev/null 2>&1 && break
        sleep 0.1
    done
    send() { for _ in $(seq 400); do printf '%s' "$1" | socat - UNIX-CONNECT:"$fp/vd.sock" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
    fprintd-enroll -f right-index-finger alice > "$fp/enroll.log" 2>&1 & enroll=$!
    for _ in 1 2 3 4 5; do send "SCAN good"; sleep 0.7; done
    wait "$enroll"
    printf 'auth optional pam_exec.so quiet %s/count\nauth [success=done default=die] pam_fprintd.so max-tries=1 timeout=10\nauth requisite pam_deny.so\n' "$work" \
        > "$work/pam.d/touchgate-biometric"
    printf 'auth required pam_fprintd.so max-tries=1 timeout=10\naccount required pam_permit.so\n' > "$work/pam.d/fprintdbench"
    printf 'auth required %s helper=%s factor=biometric\naccount required pam_permit.so\n' "$module" "$helper" > "$work/pam.d/tgfpbench"
    scan_once() { # scan_once SERVICE: ns from the scan to pamtester's exit
        local out=$work/scan.out start end job
        : > "$out"
        BUS_SOCKET=$fp/bus bash "$root/pam/test/pam-host.bash" "$work" stdbuf -o0 pamtester "$1" alice authenticate > "$out" 2>&1 < /dev/null &
        job=$!
        for _ in $(seq 400); do grep -q "Swipe your" "$out" && break; sleep 0.01; done
        start=$(date +%s%N)
        send "SCAN good"
        wait "$job" || { echo "bench/pam.bash: $1 did not unlock: $(cat "$out")" >&2; exit 1; }
        end=$(date +%s%N)
        echo $((end - start))
        sleep 0.3
    }
    : > "$work/s-touchgate"; : > "$work/s-fprintd"
    for _ in $(seq "${BENCH_PAM_SCANS:-10}"); do
        scan_once tgfpbench >> "$work/s-touchgate"
        scan_once fprintdbench >> "$work/s-fprintd"
    done
    median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    a=$(median "$work/s-touchgate"); b=$(median "$work/s-fprintd")
    scan_row="| a good scan to pamtester's exit through pam_touchgate.so factor=biometric (median of ${BENCH_PAM_SCANS:-10}, alternating) | $(ms "$a") | pam_fprintd.so max-tries=1 alone as the stack: $(ms "$b") | **$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')×** |"
    kill "${pids[@]}" 2>/dev/null || true
fi
read -r _ ours theirs <<<"$(grep '^sudo ' <<<"$results")"
ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')
rows+=("| real \`sudo -S -k true\` as a user, right password, /etc/pam.d/sudo = pam_touchgate.so (helper, ledger, pam_unix) (median of $sudo_runs, alternating) | $(ms "$ours") | the same sudo, /etc/pam.d/sudo = pam_unix.so alone: $(ms "$theirs") | **${ratio}×** |")
while read -r _ n ours theirs; do
    rows+=("| N = $n wrong passwords at once through pamtester, calls that reached pam_unix ($rounds rounds) | **$ours** (passcode-delays: 5 free) | pam_faillock deny=5 around the same pam_unix: **$theirs** | exactly 5 |")
done < <(grep '^parallel ' <<<"$results")
[ -z "$scan_row" ] || rows+=("$scan_row")
table=$(printf '| benchmark | pam_touchgate | peer, same run | ratio or target |\n| --- | --- | --- | --- |\n'; printf '%s\n' "${rows[@]}")
echo "$table"
if [ "$publish" = 1 ]; then
    results_file=$root/bench/RESULTS.md
    python3 - "$results_file" "$table" "$(date -u +%Y-%m-%d)" <<'PY'
import sys
path, table, day = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
start = "<!-- pam-table -->"
end = "<!-- /pam-table -->"
block = f"{start}\n_Last run: {day}, `bench/pam.bash --publish`._\n\n{table}\n{end}"
if start in text:
    text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
else:
    text += "\n## The PAM module\n\n" + block + "\n"
open(path, "w").write(text)
PY
fi
