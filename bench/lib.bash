# shellcheck shell=bash disable=SC2034 # the variables it sets are for the scripts that source it
# The shared part of touchgate's benchmarks, sourced by each bench/run-* script (bench/run picks
# one by its flags): argument parsing, the set-up every touchgate row needs (the binary, a
# temporary directory, the pam_matrix test stacks and how they are reached), the statistics and
# timing loops, the flock barrier for parallel rows, a private system bus, and publish_table,
# the one place a table is written into bench/RESULTS.md (through bench/publish.py).
#
# Sourcing it sets: root (the checkout), bench_name (bench/run-MODE, for messages), started
# ($SECONDS at start) and publish (0; bench_arguments sets it).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_name=bench/$(basename "$0")
started=$SECONDS
publish=0

fail() { echo "$bench_name: $*" >&2; exit 1; }

# bench_arguments "$@": --publish sets publish=1; --help prints the calling script's header
# comment; anything else is a usage error (exit 64).
bench_arguments() {
    local argument
    for argument in "$@"; do
        case $argument in
            --publish) publish=1 ;;
            -h|--help) bench_help "$0"; exit 0 ;;
            *) echo "$bench_name: unknown argument '$argument' (see $bench_name --help)" >&2; exit 64 ;;
        esac
    done
}

# bench_help FILE: the comment block at the top of FILE (after the #! line), without the '#'.
bench_help() {
    local line
    { read -r _; while IFS= read -r line && [[ $line == '#'* ]]; do line=${line#\#}; echo "${line# }"; done; } < "$1"
}

# require TOOL...: each TOOL is a command on PATH (or an executable path), else fail.
require() {
    local tool
    for tool in "$@"; do command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup"; done
}

# bench_setup "$@": what every row of touchgate needs.
#
# As root, the calling script runs again in a private mount namespace with the test stacks
# bind-mounted on /etc/pam.d, so touchgate and pamtester both reach them through plain
# pam_start() and nothing else on the machine sees them. Otherwise both go through pam_wrapper
# (LD_PRELOAD), whose per-process set-up is then in both sides' times, and which gives out only 62
# configuration directories at once: the parallel rows' peers may then be cut short (noted in the
# table).
#
# Sets binary (TOUCHGATE_BINARY, else a release build by scripts/build in /tmp/build-bench), build
# (how it was built, for the table), dynamic_binary (with BENCH_DYNAMIC=1), work (a temporary
# directory removed on exit; HOME), pam (the rendered stacks, with the pam_faillock peer
# `touchgate-faillock`), faillock_module, exec_module, matrix_module, tally, pam_env and
# pam_route; the inputs $work/passcode, enroll, wrong-finger and wrong-password.
bench_setup() {
    if [ -z "${TOUCHGATE_BENCH_NAMESPACE:-}" ] && [ "$(id -u)" = 0 ] \
        && unshare --mount --propagation private true 2>/dev/null; then
        TOUCHGATE_BENCH_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
    fi
    require hyperfine sqlite3 pamtester jq faillock /usr/bin/time setsid strace
    [ -n "$(ls /usr/lib/*-linux-gnu/libpam_wrapper.so* 2>/dev/null)" ] || fail "libpam_wrapper is missing: run scripts/setup"

    if [ -n "${TOUCHGATE_BINARY:-}" ]; then
        binary=$(cd "$(dirname "$TOUCHGATE_BINARY")" && pwd)/$(basename "$TOUCHGATE_BINARY")
        build="\`$TOUCHGATE_BINARY\` (TOUCHGATE_BINARY)"
    else
        echo "$bench_name: building (scripts/build --scratch-path /tmp/build-bench)" >&2
        "$root"/scripts/build --scratch-path /tmp/build-bench >&2
        binary=/tmp/build-bench/release/touchgate
        build="release (scripts/build)"
    fi
    dynamic_binary=""
    if [ "${BENCH_DYNAMIC:-0}" = 1 ]; then
        echo "$bench_name: building the dynamic-runtime comparison (/tmp/build-bench-dynamic)" >&2
        (cd "$root" && swift build -c release --scratch-path /tmp/build-bench-dynamic --product touchgate >&2)
        dynamic_binary=/tmp/build-bench-dynamic/release/touchgate
    fi
    [ -x "$binary" ] || fail "no binary at $binary"

    work=$(mktemp -d "${TMPDIR:-/tmp}/touchgate-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    unset TOUCHGATE_STORE TOUCHGATE_USER TOUCHGATE_SESSION TOUCHGATE_PAM_CONFDIR TMUX
    export HOME=$work
    pam=$work/pam
    "$root"/scripts/render-pam-stacks "$pam"
    # The faillock peer: the strictest stack pam_faillock allows (requisite preauth: a locked user
    # never reaches the password module), with the same pam_exec counter and pam_matrix check as
    # touchgate's.
    faillock_module=$(find /usr/lib -path '*-linux-gnu/security/pam_faillock.so' -print -quit)
    exec_module=$(find /usr/lib -path '*-linux-gnu/security/pam_exec.so' -print -quit)
    matrix_module=$(find /usr/lib -path '*-linux-gnu/pam_wrapper/pam_matrix.so' -print -quit)
    tally=$work/faillock
    local faillock_options="deny=5 even_deny_root unlock_time=900 dir=$tally"
    cat > "$pam/touchgate-faillock" <<STACK
auth requisite $faillock_module preauth $faillock_options
auth optional $exec_module quiet $pam/count touchgate-faillock
auth [success=1 default=bad] $matrix_module passdb=$pam/faillock.db
auth [default=die] $faillock_module authfail $faillock_options
auth sufficient $faillock_module authsucc $faillock_options
STACK
    echo "root:root-bench-secret:touchgate-faillock" > "$pam/faillock.db"
    if [ "${TOUCHGATE_BENCH_NAMESPACE:-}" = 1 ]; then
        mount --bind "$pam" /etc/pam.d
        pam_env=()
        pam_route="the test stacks bind-mounted on /etc/pam.d in a private mount namespace"
    else
        pam_env=(LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 "PAM_WRAPPER_SERVICE_DIR=$pam")
        pam_route="pam_wrapper (at most 62 processes at once can use it)"
    fi
    printf 'alice-passcode\n' > "$work/passcode"
    printf 'alice-passcode\nalice-finger\n' > "$work/enroll"
    printf 'wrong-finger-1\nwrong-finger-2\nwrong-finger-3\n' > "$work/wrong-finger"
    printf 'wrong-password\n' > "$work/wrong-password"
}

# Exports the PAM routing (bench_setup's pam_env) into the calling (sub)shell.
use_pam() { if ((${#pam_env[@]})); then export "${pam_env[@]}"; fi; }

# The first half of a table's heading line: the binary's version, how it was built, the day, the
# machine and its kernel.
bench_machine() {
    echo "touchgate $("$binary" --version | awk '{ print $2 }'), $build; $(date -u +%Y-%m-%d); $(nproc) × $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), Linux $(uname -r)"
}

# How many lines the pam_exec counter of service $1 wrote (the calls that reached its module).
calls() { if [ -f "$pam/calls-$1" ]; then wc -l < "$pam/calls-$1" | tr -d ' '; else echo 0; fi; }
# The median of the numbers in file $1.
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Seconds $1 as milliseconds, two decimals.
ms() { awk -v s="$1" 'BEGIN { printf "%.2f ms", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "met" : "**missed**") }'; }

# time_pair NAME CMD_A CMD_B: hyperfine, BENCH_ROUNDS rounds (default 5) of BENCH_RUNS runs each
# (default 10), alternating which command goes first; the samples of A go to $work/NAME-a, of B to
# $work/NAME-b.
time_pair() {
    local name=$1 a=$2 b=$3 round first second rounds=${BENCH_ROUNDS:-5} runs=${BENCH_RUNS:-10}
    : > "$work/$name-a"; : > "$work/$name-b"
    for ((round = 0; round < rounds; round++)); do
        if ((round % 2)); then first=$b second=$a; else first=$a second=$b; fi
        hyperfine --shell=none --style=none --warmup 2 --runs "$runs" \
            --export-json "$work/$name.json" "$first" "$second" >/dev/null
        if ((round % 2)); then
            jq -r '.results[1].times[]' "$work/$name.json" >> "$work/$name-a"
            jq -r '.results[0].times[]' "$work/$name.json" >> "$work/$name-b"
        else
            jq -r '.results[0].times[]' "$work/$name.json" >> "$work/$name-a"
            jq -r '.results[1].times[]' "$work/$name.json" >> "$work/$name-b"
        fi
    done
}

# time_alternating NAME INPUT CMD_A CMD_B [COUNT]: for commands that read standard input, which
# hyperfine can only give them through a shell whose start it subtracts (unreliably on a busy
# machine): a loop of this shell that forks and execs each command with INPUT as standard input,
# A and B alternating, COUNT times each (default BENCH_ROUNDS × BENCH_RUNS). CMD_A and CMD_B are
# arrays' names.
time_alternating() {
    local name=$1 input=$2 count=${5:-$((${BENCH_ROUNDS:-5} * ${BENCH_RUNS:-10}))} i start end side
    local -n command_a=$3 command_b=$4
    : > "$work/$name-a"; : > "$work/$name-b"
    for ((i = 0; i < 3; i++)); do
        "${command_a[@]}" < "$input" > /dev/null 2>&1 || fail "${command_a[*]} failed"
        "${command_b[@]}" < "$input" > /dev/null 2>&1 || fail "${command_b[*]} failed"
    done
    for ((i = 0; i < count; i++)); do
        start=$EPOCHREALTIME; "${command_a[@]}" < "$input" > /dev/null 2>&1 || fail "${command_a[*]} failed"; end=$EPOCHREALTIME
        echo "$start $end" >> "$work/$name-a"
        start=$EPOCHREALTIME; "${command_b[@]}" < "$input" > /dev/null 2>&1 || fail "${command_b[*]} failed"; end=$EPOCHREALTIME
        echo "$start $end" >> "$work/$name-b"
    done
    for side in a b; do
        awk '{ printf "%.6f\n", $2 - $1 }' "$work/$name-$side" > "$work/$name-$side.s" && mv "$work/$name-$side.s" "$work/$name-$side"
    done
}

# A barrier for parallel rows: the script holds an exclusive flock; each job says it is ready and
# waits for a shared one; release_barrier N waits until N jobs are ready, then lets them all go.
make_barrier() {
    rm -rf "$work/ready"; mkdir "$work/ready"; : > "$work/barrier"
    exec 8>"$work/barrier"; flock -x 8
}
await_barrier() { exec 8>&-; : > "$work/ready/$BASHPID"; flock -s "$work/barrier" true; }
# How many jobs have reached the barrier.
barrier_ready() { find "$work/ready" -mindepth 1 -maxdepth 1 | wc -l; }
release_barrier() {
    until [ "$(barrier_ready)" -ge "$1" ]; do sleep 0.02; done
    flock -u 8; exec 8>&-
}

# start_system_bus DIR SOCKET: a private system bus for the rows that need one, its configuration
# in DIR/bus.conf, listening on SOCKET, DBUS_SYSTEM_BUS_ADDRESS exported; its pid in $bus_pid.
# Returns once the socket is there (or after 5 s).
start_system_bus() {
    cat > "$1/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=$2</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
CONF
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$2
    dbus-daemon --config-file="$1/bus.conf" --nofork & bus_pid=$!
    for _ in $(seq 100); do [ -S "$2" ] && break; sleep 0.05; done
}

# publish_table BEGIN END [TABLE] [HEADING]: puts the file TABLE (default $work/table.md) between
# the lines BEGIN and END of bench/RESULTS.md (appended, under "## HEADING" if given, when they
# are not there yet).
publish_table() {
    python3 "$root/bench/publish.py" "$root/bench/RESULTS.md" "$1" "$2" "${3:-$work/table.md}" "${4:-}" \
        || fail "cannot write bench/RESULTS.md"
    echo "$bench_name: table written to bench/RESULTS.md" >&2
}
