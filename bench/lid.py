#!/usr/bin/python3
"""Timing driver for `bench/run --lid` (see bench/run-lid and bench/RESULTS.md).

  lid.py COUNT ANSWER -- COMMAND...
      runs COMMAND COUNT times, one after the other, its output and errors merged on a pipe;
      times each from its start to the first "Password:" it prints (the passcode prompt), then
      answers ANSWER and waits for its exit, which must be 0. Prints one number (milliseconds)
      per line: the samples of one row.
"""
import os, select, subprocess, sys, time

PROMPT = b"Password:"


def sample(command, answer):
    started = time.perf_counter_ns()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen = b""
    prompted = None
    deadline = time.monotonic() + 120
    while prompted is None:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([process.stdout], [], [], left)[0]:
            process.kill()
            sys.exit(f"lid.py: no passcode prompt within 120 s: {seen!r}")
        chunk = os.read(process.stdout.fileno(), 4096)
        if not chunk:
            sys.exit(f"lid.py: the command ended before its passcode prompt: {seen!r}")
        seen += chunk
        if PROMPT in seen:
            prompted = time.perf_counter_ns()
    process.stdin.write(answer.encode() + b"\n")
    process.stdin.close()
    seen += process.stdout.read()
    if process.wait() != 0:
        sys.exit(f"lid.py: the command failed ({process.returncode}): {seen!r}")
    return (prompted - started) / 1e6


def main():
    count, answer, separator, *command = sys.argv[1:]
    if separator != "--" or not command:
        sys.exit(__doc__)
    for _ in range(int(count)):
        print(f"{sample(command, answer):.3f}", flush=True)


main()
