#!/usr/bin/env python3
"""The `touchgate shell` rows of bench/run (`bench/run --shell`, through bench/run-shell).

Each row runs the same bash (`bash --norc --noprofile -i`, prompt `P$ `) twice in one run: directly
on a pseudo-terminal this script holds, and as `touchgate shell -- bash ...` on that
pseudo-terminal (the owner then holds it and runs bash on a pty of its own). The lock is off in
the store, so no gate runs: what is measured is what the owner adds. Prints one JSON object.

The 50 MB `cat` is also run, ROUNDS times in turn (the order rotating round by round), under
tmux and GNU screen, the programs that do the same job (a screen model between the program and the
terminal), each with 1000 lines of scrollback as the owner keeps: the peers measured in the same
run as the direct terminal, on a machine whose speed moves with its other work.

Usage: shell.py TOUCHGATE PROMPTS KEYS FIRST BIGFILE IDLE_SECONDS ROUNDS WORKDIR
"""
import fcntl
import json
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time

touchgate, prompts, keys, firsts, bigfile, idle_seconds, rounds, workdir = sys.argv[1:9]
prompts, keys, firsts, idle_seconds, rounds = int(prompts), int(keys), int(firsts), float(idle_seconds), int(rounds)
PROMPT = b"P$ "
BASH = ["/bin/bash", "--norc", "--noprofile", "-i"]


class Terminal:
    """A program on a pseudo-terminal of 24x80 whose master end this script reads."""

    def __init__(self, argv):
        self.master, slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        environment = dict(os.environ, PS1="P$ ", TERM="xterm-256color", HISTFILE="/dev/null")
        environment.pop("TMUX", None)

        def controlling():
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=environment,
                                        start_new_session=True, preexec_fn=controlling, close_fds=True)
        os.close(slave)
        self.buffer = b""

    def read_until(self, marker, timeout=60):
        deadline = time.perf_counter() + timeout
        while marker not in self.buffer:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SystemExit(f"shell.py: {marker!r} never came ({sys._getframe(1).f_code.co_name}); "
                                 f"last output {self.buffer[-200:]!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.buffer += os.read(self.master, 1 << 16)
        index = self.buffer.index(marker) + len(marker)
        self.buffer = self.buffer[index:]
        return time.perf_counter()

    def drain(self, marker, timeout=600):
        """Reads and drops everything up to `marker` (large output), returns when it came."""
        deadline = time.perf_counter() + timeout
        tail = b""
        while True:
            ready, _, _ = select.select([self.master], [], [], max(0, deadline - time.perf_counter()))
            if not ready:
                raise SystemExit(f"shell.py: {marker!r} never came")
            chunk = os.read(self.master, 1 << 16)
            tail = (tail + chunk)[-(len(marker) + len(chunk)):]
            if marker in tail:
                self.buffer = tail[tail.index(marker) + len(marker):]
                return time.perf_counter()

    def write(self, data):
        os.write(self.master, data)

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        os.close(self.master)


def median_p90(samples):
    samples = sorted(samples)
    return {"median": statistics.median(samples), "p90": samples[int(0.9 * (len(samples) - 1))], "n": len(samples)}


def command_lag(term):
    samples = []
    for _ in range(prompts):
        start = time.perf_counter()
        term.write(b"\r")
        samples.append((term.read_until(PROMPT) - start) * 1000)
    return median_p90(samples)


def input_lag(term):
    samples = []
    for _ in range(keys):
        start = time.perf_counter()
        term.write(b"x")
        samples.append((term.read_until(b"x") - start) * 1000)
        term.write(b"\x7f")
        term.read_until(b"\x08")
    term.write(b"\x15")
    term.write(b"\r")
    term.read_until(PROMPT)
    return median_p90(samples)


def throughput(term, prompt=PROMPT):
    start = time.perf_counter()
    term.write(f"cat '{bigfile}'; echo CAT-$((40+2))\r".encode())
    end = term.drain(b"CAT-42")
    term.read_until(prompt)
    return (end - start) * 1000


def first_prompt(argv):
    samples = []
    for _ in range(firsts):
        term = Terminal(argv)
        samples.append((term.read_until(PROMPT) - term.started) * 1000)
        term.close()
    return median_p90(samples)


def idle_cost(term):
    """The owner's resident memory and CPU time over `idle_seconds` with no key."""
    owner = term.process.pid

    def ticks():
        fields = open(f"/proc/{owner}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def rss_kib():
        for line in open(f"/proc/{owner}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    # The emulator's thread may still be feeding what the last output left in its queue (at most
    # 256 KiB): that is the output's cost, not the idle owner's, so it is let finish first.
    time.sleep(1.0)
    before = ticks()
    time.sleep(idle_seconds)
    return {"rssKiB": rss_kib(), "cpuTicks": ticks() - before, "seconds": idle_seconds,
            "hz": os.sysconf("SC_CLK_TCK")}


# The peers: a private tmux server and GNU screen directory, 1000 lines of scrollback each. They
# redraw rather than relay, so a trailing space may come as a cursor movement: their prompt is
# matched without it.
TMUX_SOCKET = os.path.join(workdir, "tmux.sock")
with open(os.path.join(workdir, "tmux.conf"), "w") as conf:
    conf.write("set -g history-limit 1000\n")
SCREEN_DIR = os.path.join(workdir, "screens")
os.makedirs(SCREEN_DIR, mode=0o700, exist_ok=True)
os.chmod(SCREEN_DIR, 0o700)
os.environ["SCREENDIR"] = SCREEN_DIR
with open(os.path.join(workdir, "screenrc"), "w") as conf:
    conf.write("startup_message off\ndefscrollback 1000\n")
PEERS = {
    "direct": (BASH, PROMPT),
    "owner": ([touchgate, "shell", "--"] + BASH, PROMPT),
    "tmux": (["tmux", "-S", TMUX_SOCKET, "-f", os.path.join(workdir, "tmux.conf"), "new-session", "--"] + BASH, b"P$"),
    "screen": (["screen", "-c", os.path.join(workdir, "screenrc"), "-S", "touchgate-bench"] + BASH, b"P$"),
}


def end_peers():
    subprocess.run(["tmux", "-S", TMUX_SOCKET, "kill-server"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["screen", "-S", "touchgate-bench", "-X", "quit"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def cat_round(order):
    times = {}
    for name in order:
        argv, prompt = PEERS[name]
        term = Terminal(argv)
        try:
            term.read_until(prompt)
            times[name] = throughput(term, prompt)
        finally:
            term.close()
            end_peers()
    return times


def load_average():
    return float(open("/proc/loadavg").read().split()[0])


results = {"catRounds": []}
order = ["direct", "owner", "tmux", "screen"]
for index in range(rounds):
    turn = order[index % len(order):] + order[:index % len(order)]
    before = load_average()
    times = cat_round(turn)
    results["catRounds"].append({"order": turn, "ms": times, "load": [before, load_average()]})
for name, argv in [("direct", BASH), ("owner", [touchgate, "shell", "--"] + BASH)]:
    term = Terminal(argv)
    term.read_until(PROMPT)
    row = {"commandLag": command_lag(term)}
    row["inputLag"] = input_lag(term)
    if name == "owner":
        row["idle"] = idle_cost(term)
    term.close()
    row["firstPrompt"] = first_prompt(argv)
    results[name] = row
print(json.dumps(results))
