# The fingerprint rows of bench/run (`bench/run --fingerprint`), sourced by it after the build and
# the PAM stacks: it uses $binary, $pam, $work, $root, $build, $started, use_pam, median, ms, ratio,
# verdict, time_alternating, publish_table and fail from there. A real fingerprint stack without
# hardware: a private system bus, polkit answered by python3-dbusmock, fprintd with libfprint's
# virtual device (`touchgate test-world sensor`: TouchGateTesting's SimulatedFingerprintSensor),
# and pam_fprintd in the test stack `touchgate-fprintd` (max-tries=1). bench/fingerprint.py drives
# the timed runs. How each row is measured: bench/RESULTS.md, "The fingerprint reader".

# Starts the simulated sensor in $work/fp with `touchgate test-world sensor` (the same
# SimulatedFingerprintSensor as the tests and the demo: the bus, the polkit mock, fprintd with the
# virtual device, the finger id `good` enrolled for alice) and takes the environment it prints.
fingerprint_start() {
    local fp=$work/fp
    mkdir -p "$fp"
    chmod 755 "$fp"
    "$binary" --user alice test-world sensor "$fp" > "$fp/sensor.out" 2> "$fp/sensor.err" & fingerprint_pid=$!
    trap 'fingerprint_stop' EXIT
    for _ in $(seq 600); do
        grep -qx ready "$fp/sensor.out" 2>/dev/null && break
        kill -0 "$fingerprint_pid" 2>/dev/null || fail "the simulated sensor did not start: $(cat "$fp/sensor.err")"
        sleep 0.1
    done
    grep -qx ready "$fp/sensor.out" || fail "the simulated sensor did not start in 60 s"
    eval "$(grep '^export ' "$fp/sensor.out")"
    fingerprint_device=$TOUCHGATE_SENSOR_SOCKET
}

# Sends one command to the virtual device once its socket listens (only while a verify or an
# enrollment runs).
fingerprint_send() {
    "$binary" test-world scan "$work/fp" "$1" || fail "the virtual device never took '$1'"
}

fingerprint_stop() {
    if [ -n "${fingerprint_pid:-}" ]; then
        kill "$fingerprint_pid" 2>/dev/null || true
        wait "$fingerprint_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}

fingerprint_bench() {
    local tool
    for tool in dbus-daemon gdbus stdbuf fprintd-enroll /usr/libexec/fprintd; do
        command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup"
    done
    /usr/bin/python3 -c 'import dbusmock' 2>/dev/null || fail "python3-dbusmock is missing: run scripts/setup"
    local count=${BENCH_FINGERPRINT_RUNS:-20} driver=$root/bench/fingerprint.py
    local store=$work/fingerprint/touchgate.sqlite
    local -a tg=("$binary" --store "$store" --user alice)
    fingerprint_start
    (
        use_pam
        "${tg[@]}" -S enroll < "$work/enroll" > /dev/null 2>&1 || fail "enroll failed"
    )
    "${tg[@]}" config set biometric-service touchgate-fprintd > /dev/null
    local rows=()

    echo "bench/run: fingerprint 1/4: a good scan, touchgate auth against pamtester" >&2
    (
        use_pam
        /usr/bin/python3 "$driver" scan "$fingerprint_device" "$count" \
            -- "${tg[@]}" -S auth --policy biometrics -- stdbuf -oL pamtester touchgate-fprintd alice authenticate
    ) > "$work/fp-scan" || fail "the scan row failed"
    awk '{ print $1 / 1000 }' "$work/fp-scan" > "$work/fp-scan-a"
    awk '{ print $2 / 1000 }' "$work/fp-scan" > "$work/fp-scan-b"
    local scan_a scan_b scan_r scan_d scan_verdict
    scan_a=$(median "$work/fp-scan-a"); scan_b=$(median "$work/fp-scan-b"); scan_r=$(ratio "$scan_a" "$scan_b")
    scan_d=$(awk -v a="$scan_a" -v b="$scan_b" 'BEGIN { printf "%.1f", (a - b) * 1000 }')
    scan_verdict=$(awk -v r="$scan_r" -v d="$scan_d" 'BEGIN { print (r <= 1.2 || d <= 20 ? "met" : "**missed**") }')
    rows+=("| a good scan → exit 0: \`auth -S --policy biometrics\` on \`pam_fprintd.so max-tries=1\` (median of $count, alternating) | $(ms "$scan_a") | \`pamtester touchgate-fprintd alice authenticate\`, the same stack and device: $(ms "$scan_b") | **${scan_r}×** (${scan_d} ms more) | ≤ 1.2× or ≤ 20 ms more | $scan_verdict |")

    echo "bench/run: fingerprint 2/4: Enter during the wait to the passcode prompt" >&2
    (
        use_pam
        /usr/bin/python3 "$driver" enter "$count" alice-passcode -- "${tg[@]}" auth
    ) > "$work/fp-enter" || fail "the Enter row failed"
    awk '{ print $1 / 1000 }' "$work/fp-enter" > "$work/fp-enter-s"
    local enter_m
    enter_m=$(median "$work/fp-enter-s")
    rows+=("| Enter while the reader waits → \`Password:\` on the screen: \`auth\` (device-owner) in a pseudo-terminal (median of $count) | **$(ms "$enter_m")** | — | — | ≤ 50 ms | $(verdict "$enter_m" 0.050) |")

    echo "bench/run: fingerprint 3/4: the worker on a prompting stack" >&2
    local bio_store=$work/fingerprint-matrix/touchgate.sqlite pass_store=$work/fingerprint-passcode/touchgate.sqlite
    printf 'alice-finger\n' > "$work/finger"
    (
        use_pam
        "$binary" --store "$bio_store" --user alice -S enroll < "$work/enroll" > /dev/null 2>&1 || fail "enroll failed"
        local -a bio=("$binary" --store "$bio_store" --user alice -S auth --policy biometrics)
        local -a bio_peer=(pamtester touchgate-biometric alice authenticate)
        local -a pass=("$binary" --store "$pass_store" --user alice -S auth)
        local -a pass_peer=(pamtester touchgate alice authenticate)
        time_alternating fp-bio "$work/finger" bio bio_peer "$count"
        time_alternating fp-pass "$work/passcode" pass pass_peer "$count"
    )
    local bio_a bio_b pass_a pass_b bio_r worker
    bio_a=$(median "$work/fp-bio-a"); bio_b=$(median "$work/fp-bio-b")
    pass_a=$(median "$work/fp-pass-a"); pass_b=$(median "$work/fp-pass-b")
    bio_r=$(ratio "$bio_a" "$bio_b")
    worker=$(awk -v a="$bio_a" -v b="$bio_b" -v c="$pass_a" -v d="$pass_b" 'BEGIN { printf "%.2f ms", ((a - b) - (c - d)) * 1000 }')
    rows+=("| the worker on a prompting stack: \`auth -S --policy biometrics\`, pam_matrix \`touchgate-biometric\` through \`touchgate __biometric-worker\` (median of $count, alternating) | $(ms "$bio_a") | \`pamtester touchgate-biometric alice authenticate\`: $(ms "$bio_b"); in-process, \`auth -S\` with the passcode against \`pamtester touchgate\`: $(ms "$pass_a") against $(ms "$pass_b") | **${bio_r}×**; the worker's own cost: **$worker** | — | measured |")

    echo "bench/run: fingerprint 4/4: did-enter-background during the wait" >&2
    (
        use_pam
        /usr/bin/python3 "$driver" background "$count" -- "${tg[@]}" -- "${tg[@]}" -S auth --policy biometrics --session bench-fp
    ) > "$work/fp-background" || fail "the did-enter-background row failed"
    awk '{ print $1 / 1000 }' "$work/fp-background" > "$work/fp-background-total"
    awk '{ print $2 / 1000 }' "$work/fp-background" > "$work/fp-background-event"
    local background_m event_m
    background_m=$(median "$work/fp-background-total"); event_m=$(median "$work/fp-background-event")
    rows+=("| \`touchgate event did-enter-background --session S\` started → \`auth --session S\` waiting on the reader exits 9 (appCancel), its worker killed (median of $count) | **$(ms "$background_m")** (of which the \`event\` process itself: $(ms "$event_m")) | — | — | ≤ 100 ms | $(verdict "$background_m" 0.100) |")

    {
        echo "touchgate $("$binary" --version | awk '{ print $2 }'), $build; $(date -u +%Y-%m-%d); $(nproc) × $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), Linux $(uname -r); fprintd $(dpkg-query -W -f='${Version}' fprintd 2>/dev/null || echo '?') with libfprint's virtual device on a private system bus; PAM stacks reached through $pam_route; $((SECONDS - started)) s"
        echo
        echo "| benchmark | touchgate | peer, same run | ratio | target | |"
        echo "| --- | --- | --- | --- | --- | --- |"
        printf '%s\n' "${rows[@]}"
    } > "$work/table.md"
    cat "$work/table.md"
    if [ "$publish" = 1 ]; then
        publish_table '<!-- bench/run --fingerprint --publish: table begins -->' '<!-- bench/run --fingerprint --publish: table ends -->'
    fi
}
