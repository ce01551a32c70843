#!/usr/bin/env bash
# The part of bench/run-pam that runs inside pam/test/pam-host.bash's private mount namespace, as
# root, with bench/run-pam's stacks and test user bind-mounted over /etc:
#
#   pam-inside.bash WORK SUDO_RUNS ROUNDS
#
# Prints `sudo NS_TOUCHGATE NS_UNIX` (the medians of SUDO_RUNS real `sudo -S -k true` as alice
# through each stack, alternating) and, for N = 10, 50, 200, `parallel N OURS THEIRS` (how many of
# N wrong passwords at once reached pam_unix through pam_touchgate.so and through pam_faillock,
# ROUNDS rounds each, joined by /).
set -euo pipefail
# shellcheck source=bench/lib.bash
source "$(dirname "$0")/lib.bash"
work=$1 sudo_runs=$2 rounds=$3
now() { date +%s%N; }
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
echo "sudo $(median "$work/t-touchgate") $(median "$work/t-unix")"
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
