import Foundation
import Testing

/// A private system bus (`dbus-daemon` with `<type>system</type>`) with python3-dbusmock's
/// logind template on it: logind's bus interface without a logind, for `touchgate watch`.
///
/// The tests drive it as logind would be driven: `AddSession`, `PrepareForSleep` and a session's
/// `Lock` / `Unlock` through the mock's `EmitSignal`, and read its inhibitors (`ListInhibitors`),
/// all with `gdbus`. The bus listens on a fixed path in its own directory, so a restarted bus is
/// found at the same address (no `guid=` in it).
final class LogindBus: @unchecked Sendable {
    let directory: URL
    private var daemon: RunningProcess?
    private var mock: RunningProcess?

    /// `DBUS_SYSTEM_BUS_ADDRESS` for the watcher and for `gdbus --system`.
    var address: String { "unix:path=\(directory.path)/bus" }

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("touchgate-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(directory.path)/bus</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/>
            <allow receive_sender="*"/></policy></busconfig>
            """
        try configuration.write(to: directory.appendingPathComponent("bus.conf"), atomically: true, encoding: .utf8)
        try startWatchdog()
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return environment
    }

    /// Starts the bus and the mock logind, and waits until logind answers.
    func start() throws {
        let socket = directory.appendingPathComponent("bus").path
        unlink(socket)
        daemon = try RunningProcess(["/usr/bin/dbus-daemon", "--config-file=\(directory.path)/bus.conf", "--nofork"],
                                    environment: environment)
        try "\(daemon!.pid)".write(to: directory.appendingPathComponent("daemon.pid"), atomically: true, encoding: .utf8)
        try gateEventually("the bus socket") { FileManager.default.fileExists(atPath: socket) }
        try startLogind()
    }

    /// Stops the mock logind alone: its name leaves the bus, which stays up.
    func stopLogind() {
        mock?.signal(SIGTERM)
        _ = try? mock?.wait(timeout: 5)
        mock = nil
    }

    /// Starts the mock logind again on the running bus.
    func startLogind() throws {
        mock = try RunningProcess(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "logind"],
                                  environment: environment)
        try "\(mock!.pid)".write(to: directory.appendingPathComponent("mock.pid"), atomically: true, encoding: .utf8)
        try gateEventually("the mock logind on the bus", timeout: 20) {
            try gdbus(["introspect", "--system", "-d", "org.freedesktop.login1", "-o", "/org/freedesktop/login1"]).status == 0
        }
    }

    /// Stops the mock and the bus (every connection to it closes).
    func stop() {
        for process in [mock, daemon].compactMap({ $0 }) {
            process.signal(SIGTERM)
            _ = try? process.wait(timeout: 5)
        }
        mock = nil
        daemon = nil
    }

    /// A crashed test process runs no deinit: a shell stops the bus and the mock once it is gone.
    private func startWatchdog() throws {
        let script = """
            ( while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
              for f in '\(directory.path)'/*.pid; do kill -TERM "$(cat "$f")"; done; rm -rf '\(directory.path)' ) >/dev/null 2>&1 </dev/null &
            """
        _ = try RunningProcess.run(["/bin/sh", "-c", script], environment: environment, timeout: 10)
    }

    @discardableResult
    func gdbus(_ arguments: [String]) throws -> RunResult {
        try RunningProcess.run(["/usr/bin/gdbus"] + arguments, environment: environment, timeout: 20)
    }

    /// Calls `method` on logind's object `path`; fails unless it succeeds.
    @discardableResult
    func call(_ path: String, _ method: String, _ arguments: [String]) throws -> String {
        let result = try gdbus(["call", "--system", "-d", "org.freedesktop.login1", "-o", path, "-m", method] + arguments)
        guard result.status == 0 else { throw TestFailure("gdbus call \(method) failed: \(result)") }
        return result.stdout
    }

    /// Adds logind session `id` of `uid` (the mock makes its seat and user).
    func addSession(_ id: String, uid: uid_t = getuid(), user: String = "root") throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock.AddSession", [id, "seat0", String(uid), user, "true"])
    }

    /// logind's `PrepareForSleep(sleeping)`.
    func prepareForSleep(_ sleeping: Bool) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock.EmitSignal",
                 ["org.freedesktop.login1.Manager", "PrepareForSleep", "b", "[<\(sleeping)>]"])
    }

    /// The session's `Lock` or `Unlock` signal (`member`).
    func sessionSignal(_ id: String, _ member: String) throws {
        try call("/org/freedesktop/login1/session/\(id)", "org.freedesktop.DBus.Mock.EmitSignal",
                 ["org.freedesktop.login1.Session", member, "", "[]"])
    }

    /// What `ListInhibitors` lists.
    func inhibitors() throws -> String {
        try call("/org/freedesktop/login1", "org.freedesktop.login1.Manager.ListInhibitors", [])
    }

    /// Whether touchgate's sleep delay inhibitor is held.
    func touchgateInhibits() throws -> Bool {
        try inhibitors().contains("('sleep', 'touchgate',")
    }
}
