# shellcheck shell=bash disable=SC2154 # bench/run sets $binary, $work, $root, $build, $started, $publish
# The `touchgate shell` rows of bench/run (`bench/run --shell`), sourced by it after the build and
# the PAM stacks: it uses $binary, $work, $root, $build, $started, publish_table and fail from
# there. bench/shell.py runs the same bash directly on a pseudo-terminal and under `touchgate
# shell` on one, in one run, and measures both. How each row is measured: bench/RESULTS.md,
# "The terminal owner".

shell_bench() {
    local prompts=${BENCH_SHELL_PROMPTS:-200} keys=${BENCH_SHELL_KEYS:-200} firsts=${BENCH_SHELL_FIRST:-20}
    local idle=${BENCH_SHELL_IDLE:-30} big=$work/big.txt json
    command -v python3 >/dev/null || fail "python3 is missing: run scripts/setup"
    # 50 MB of text (base64 lines of 76 characters), as a terminal shows a large output.
    head -c 37500000 /dev/urandom | base64 > "$big"
    # The lock off (a fresh store): no gate runs; what is measured is what the owner adds.
    export TOUCHGATE_STORE=$work/shell/touchgate.sqlite TOUCHGATE_USER=alice
    "$binary" status >/dev/null
    echo "bench/run: touchgate shell against bash on a pty ($prompts prompts, $keys keys, $firsts starts, ${idle}s idle)" >&2
    json=$(python3 "$root/bench/shell.py" "$binary" "$prompts" "$keys" "$firsts" "$big" "$idle")
    local -a rows=()
    row() { rows+=("| $1 | $2 | $3 | $4 | $5 |"); }
    field() { jq -r "$1" <<<"$json"; }
    ms() { awk -v v="$1" 'BEGIN { printf "%.3f ms", v }'; }
    added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f ms", a - b }'; }
    local name key goal
    for name in commandLag inputLag; do
        case $name in
            commandLag) key="command lag (Enter on an empty line to the next prompt, $prompts prompts)"; goal="adds ≤ 0.3 ms" ;;
            inputLag) key="input lag (a key to its echo, $keys keys)"; goal="adds ≤ 0.3 ms" ;;
        esac
        row "$key, median" "$(ms "$(field ".owner.$name.median")")" "$(ms "$(field ".direct.$name.median")")" \
            "$(added "$(field ".owner.$name.median")" "$(field ".direct.$name.median")")" "$goal"
        row "$key, 90th percentile" "$(ms "$(field ".owner.$name.p90")")" "$(ms "$(field ".direct.$name.p90")")" \
            "$(added "$(field ".owner.$name.p90")" "$(field ".direct.$name.p90")")" "$goal"
    done
    local owner_cat direct_cat
    owner_cat=$(field ".owner.catMs"); direct_cat=$(field ".direct.catMs")
    row "\`cat\` of 50 MB to the prompt after it" "$(ms "$owner_cat")" "$(ms "$direct_cat")" \
        "$(awk -v a="$owner_cat" -v b="$direct_cat" 'BEGIN { printf "%.2f×", a / b }')" "within 1.5×"
    row "first prompt of a new session, lock off (median of $firsts)" "$(ms "$(field ".owner.firstPrompt.median")")" \
        "$(ms "$(field ".direct.firstPrompt.median")")" \
        "$(added "$(field ".owner.firstPrompt.median")" "$(field ".direct.firstPrompt.median")")" "—"
    row "the owner idle, over $(field ".owner.idle.seconds") s with no key" "$(field ".owner.idle.rssKiB") KiB resident" "—" \
        "$(field ".owner.idle.cpuTicks") CPU ticks (1/$(field ".owner.idle.hz") s)" "nothing between keys"
    {
        echo "Build: $build; $(nproc) CPUs; $(uname -r); bash $BASH_VERSION; measured in $((SECONDS - started)) s."
        echo
        echo "| benchmark | touchgate shell | bash on a pty | added | target |"
        echo "| --- | --- | --- | --- | --- |"
        for line in "${rows[@]}"; do echo "$line"; done
    } > "$work/table.md"
    cat "$work/table.md"
    if [ "$publish" = 1 ]; then
        publish_table '<!-- bench/run --shell --publish: table begins -->' '<!-- bench/run --shell --publish: table ends -->'
    fi
}
