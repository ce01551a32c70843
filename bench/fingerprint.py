#!/usr/bin/python3
"""Timing driver for `bench/run --fingerprint` (see bench/run-fingerprint and bench/RESULTS.md).

Every sample is one whole process against fprintd with libfprint's virtual device on a private
system bus; a scan is one text command to the device's socket. Prints one number (milliseconds)
per line on standard output: the samples of one row.

  fingerprint.py scan SOCKET COUNT -- TOUCHGATE... -- PEER...
      a good scan to the exit of each command (alternating): from the moment the device's socket
      accepts `SCAN good` (sent once the command shows the stack's "Swipe" line) to its exit 0;
      prints "A B" per pair
  fingerprint.py enter COUNT PASSCODE -- TOUCHGATE...
      in a pseudo-terminal driven here: Enter while the reader waits, to "Password:" on the screen
  fingerprint.py background COUNT STORE-ARGS... -- TOUCHGATE...
      `touchgate event did-enter-background --session S` while `auth --session S` waits, to the
      exit of auth (9, appCancel); prints "TOTAL EVENT" (the event command's own time)
"""
import os, pty, select, socket, subprocess, sys, time

WAITING = b"Swipe your right index finger"


def split(arguments):
    parts, current = [], []
    for argument in arguments:
        if argument == "--":
            parts.append(current)
            current = []
        else:
            current.append(argument)
    parts.append(current)
    return parts


def read_until(descriptor, needle, seen, deadline):
    """Reads from `descriptor` (a pipe or a pty master) until `needle` is in what was read."""
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            sys.exit("bench/fingerprint.py: %r never came; got %r" % (needle, seen[-400:]))
        ready, _, _ = select.select([descriptor], [], [], left)
        if ready:
            try:
                chunk = os.read(descriptor, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                sys.exit("bench/fingerprint.py: output ended before %r; got %r" % (needle, seen[-400:]))
            seen += chunk
    return seen


def drain(descriptor, deadline):
    """Reads until the other side is gone (a pty master reads EIO once the child exited)."""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([descriptor], [], [], 0.5)
        if ready:
            try:
                if not os.read(descriptor, 4096):
                    return
            except OSError:
                return


def send(path, command, deadline):
    """Connects to the device's socket (it listens only while a verify runs) and sends `command`;
    returns the monotonic time at which the connection was accepted."""
    while True:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            client.connect(path)
        except OSError:
            client.close()
            if time.monotonic() > deadline:
                sys.exit("bench/fingerprint.py: the virtual device never took %r" % command)
            time.sleep(0.001)
            continue
        accepted = time.monotonic()
        client.sendall(command.encode())
        client.shutdown(socket.SHUT_WR)
        # The device closes the connection once it read the command.
        client.settimeout(5)
        try:
            while client.recv(64):
                pass
        except OSError:
            pass
        client.close()
        return accepted


def one_scan(command, path):
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    seen = read_until(process.stdout.fileno(), WAITING, b"", deadline)
    start = send(path, "SCAN good", deadline)
    status = process.wait()
    end = time.monotonic()
    rest = process.stdout.read()
    if status != 0:
        sys.exit("bench/fingerprint.py: %s exited %d: %r" % (command[0], status, (seen + rest)[-400:]))
    return (end - start) * 1000


def scan(arguments):
    path, count = arguments[0], int(arguments[1])
    _, touchgate, peer = split(arguments[2:])
    for command in (touchgate, peer):
        one_scan(command, path)
    for index in range(count):
        if index % 2:
            b = one_scan(peer, path)
            a = one_scan(touchgate, path)
        else:
            a = one_scan(touchgate, path)
            b = one_scan(peer, path)
        print("%.3f %.3f" % (a, b), flush=True)


def one_enter(command, passcode):
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    try:
        deadline = time.monotonic() + 30
        seen = read_until(master, b"press Enter", b"", deadline)
        seen = read_until(master, WAITING, seen, deadline)
        start = time.monotonic()
        os.write(master, b"\r")
        read_until(master, b"Password:", b"", deadline)
        end = time.monotonic()
        os.write(master, passcode.encode() + b"\r")
        drain(master, time.monotonic() + 30)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("bench/fingerprint.py: auth at the pty exited %d" % os.waitstatus_to_exitcode(status))
        return (end - start) * 1000
    finally:
        os.close(master)


def enter(arguments):
    count, passcode = int(arguments[0]), arguments[1]
    _, command = split(arguments[2:])
    one_enter(command, passcode)
    for _ in range(count):
        print("%.3f" % one_enter(command, passcode), flush=True)


def one_background(command, event, launch):
    subprocess.run(launch, check=True, stdout=subprocess.DEVNULL)
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    read_until(process.stderr.fileno(), WAITING, b"", deadline)
    start = time.monotonic()
    subprocess.run(event, check=True, stdout=subprocess.DEVNULL)
    event_end = time.monotonic()
    status = process.wait()
    end = time.monotonic()
    if status != 9:
        sys.exit("bench/fingerprint.py: auth exited %d, not 9 (appCancel)" % status)
    return (end - start) * 1000, (event_end - start) * 1000


def background(arguments):
    count = int(arguments[0])
    _, prefix, command = split(arguments[1:])
    session = command[command.index("--session") + 1]
    event = prefix + ["event", "did-enter-background", "--session", session]
    launch = prefix + ["event", "did-finish-launching", "--session", session]
    one_background(command, event, launch)
    for _ in range(count):
        print("%.3f %.3f" % one_background(command, event, launch), flush=True)


if __name__ == "__main__":
    {"scan": scan, "enter": enter, "background": background}[sys.argv[1]](sys.argv[2:])
