#!/usr/bin/env python3
"""bench/run-watch's timer: waits for touchgate's inhibitor on the (mock) logind, emits
PrepareForSleep(true) through python3-dbusmock and prints the milliseconds until the inhibitor is
released (the watcher releases it once every session is marked and every tmux client locked)."""
import sys, time, dbus
bus = dbus.SystemBus()
logind = bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1")
manager = dbus.Interface(logind, "org.freedesktop.login1.Manager")
mock = dbus.Interface(logind, "org.freedesktop.DBus.Mock")
held = lambda: any(str(entry[1]) == "touchgate" for entry in manager.ListInhibitors())
deadline = time.monotonic() + 30
while not held():
    if time.monotonic() > deadline: sys.exit("the watcher never took its inhibitor")
    time.sleep(0.01)
start = time.monotonic()
mock.EmitSignal("org.freedesktop.login1.Manager", "PrepareForSleep", "b", [dbus.Boolean(True)])
while held():
    if time.monotonic() > deadline + 30: sys.exit("the inhibitor was never released")
print("%.2f" % ((time.monotonic() - start) * 1000))
