import Foundation
import Testing

/// A real fingerprint stack without hardware, shared by the suites of one test process: a private
/// system bus (`dbus-daemon`), polkit answered by python3-dbusmock's `polkitd` template (told to
/// allow every action), and `fprintd` with only libfprint's `virtual_device`, whose socket takes
/// one text command per connection (`SCAN good`, `SCAN bad`, `ERROR 0`).
///
/// Started once, on first use (``shared``), and killed when the test process exits. The finger id
/// `good` is enrolled for ``user`` at start; any other id is a no-match. The test stack
/// `touchgate-fprintd` (`pam_fprintd.so max-tries=1 timeout=10`) reaches it through
/// `DBUS_SYSTEM_BUS_ADDRESS`, which ``environment(for:)`` adds to a test world's runs.
final class FingerprintReader: @unchecked Sendable {
    /// The user whose finger `good` is enrolled: the test worlds' user. fprintd and pam_fprintd
    /// need no passwd entry for it (fprintd keeps prints by name; polkit is the mock).
    static let user = "alice"
    /// What pam_fprintd says when it starts waiting for a finger (its verify has begun).
    static let waitingMessage = "Swipe your right index finger"

    /// The one instance of the test process; the first use starts it (a few seconds: the enrollment).
    static let shared: Result<FingerprintReader, TestFailure> = {
        do {
            return .success(try FingerprintReader())
        } catch let failure as TestFailure {
            return .failure(failure)
        } catch {
            return .failure(TestFailure("\(error)"))
        }
    }()

    /// The shared reader, or the reason it could not start (which fails the test).
    static func start() throws -> FingerprintReader {
        try shared.get()
    }

    let directory: URL
    var busSocket: String { directory.appendingPathComponent("bus").path }
    var deviceSocket: String { directory.appendingPathComponent("vd.sock").path }
    /// `DBUS_SYSTEM_BUS_ADDRESS` for processes that talk to this fprintd.
    var busAddress: String { "unix:path=\(busSocket)" }
    private let lock = NSLock()
    private var bus: RunningProcess?
    private var polkit: RunningProcess?
    private var fprintd: RunningProcess?
    private var lastError: Int32 = 0

    private init() throws {
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("touchgate-fprint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        Self.registerCleanup(directory.path)
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(busSocket)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
            </busconfig>
            """
        let configurationPath = directory.appendingPathComponent("bus.conf").path
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        bus = try daemon(["/usr/bin/dbus-daemon", "--config-file=\(configurationPath)", "--nofork", "--nopidfile"])
        try waitFor("the private system bus") { FileManager.default.fileExists(atPath: busSocket) }
        polkit = try daemon(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"])
        try waitFor("the polkit mock") {
            (try? call(["-d", "org.freedesktop.PolicyKit1", "-o", "/org/freedesktop/PolicyKit1/Authority",
                        "-m", "org.freedesktop.DBus.Mock.AllowUnknown", "true"]).status) == 0
        }
        try startFprintd()
        try enroll(Self.user)
    }

    /// The environment of a process on this bus: `base` with `DBUS_SYSTEM_BUS_ADDRESS` set.
    func environment(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = base
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress
        return environment
    }

    /// Starts fprintd (again), on the same state directory: enrolled prints stay.
    func startFprintd() throws {
        fprintd = try daemon(["/usr/libexec/fprintd", "-t"], extra: [
            "FP_DRIVERS_WHITELIST": "virtual_device", "FP_VIRTUAL_DEVICE": deviceSocket,
            "STATE_DIRECTORY": directory.appendingPathComponent("state").path,
        ])
        try waitFor("fprintd") {
            (try? call(["-d", "net.reactivated.Fprint", "-o", "/net/reactivated/Fprint/Manager",
                        "-m", "net.reactivated.Fprint.Manager.GetDevices"]).status) == 0
        }
    }

    /// The end of fprintd's log (its standard error), for a failure's message.
    var fprintdLog: String { String((lock.withLock { fprintd }?.errorsSoFar ?? "").suffix(6000)) }

    /// Kills fprintd (SIGKILL), as a crash or a stopped service would end it.
    func killFprintd() throws {
        guard let fprintd = lock.withLock({ self.fprintd }) else { return }
        fprintd.signal(SIGKILL)
        _ = try fprintd.wait(timeout: 10)
    }

    /// Makes sure fprintd runs (a test may have killed it).
    func ensureRunning() throws {
        if lock.withLock({ fprintd?.isRunning }) != true { try startFprintd() }
    }

    /// Sends one command to the virtual device (`SCAN good`, `SCAN bad`, `ERROR 0`); retries
    /// while the device is not open (its socket refuses connections until fprintd opens it).
    ///
    /// The virtual device closes its socket whenever a verify ends and opens it for the next; a
    /// verify that starts within a few milliseconds of the last one's end was seen with no socket
    /// listening (`SET_KEEP_ALIVE 1` did not help: the command then waited unread until the verify
    /// ended). So the suites let each `touchgate` process make one verify
    /// (`biometric-tries-per-evaluation` 1) where several scans follow each other.
    func send(_ command: String, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try sendOnce(command) { return }
            guard Date() < deadline else {
                let exists = FileManager.default.fileExists(atPath: deviceSocket)
                throw TestFailure("the virtual device never took '\(command)' (\(String(cString: strerror(lastError))); socket file \(exists ? "there" : "gone"))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private func sendOnce(_ command: String) throws -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            let bytes = Array(deviceSocket.utf8.prefix(path.count - 1))
            path.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            lastError = errno
            return false
        }
        let bytes = Array(command.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else { return false }
        shutdown(descriptor, Int32(SHUT_WR))
        // The device reads a command, then closes the connection; a new connection before that would
        // make it drop this one unread. So wait for the close (end of file), for a while.
        var end = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while poll(&end, 1, 5_000) > 0, read(descriptor, &byte, 1) > 0 {}
        return true
    }

    /// Enrolls the finger id `good` for `user` with `fprintd-enroll`: five scans, paced (fprintd
    /// failed enrollments whose scans came faster).
    func enroll(_ user: String) throws {
        let enroll = try RunningProcess(["/usr/bin/fprintd-enroll", "-f", "right-index-finger", user],
                                        environment: environment(), newSession: true)
        for _ in 0..<5 {
            try send("SCAN good", timeout: 20)
            Thread.sleep(forTimeInterval: 0.7)
        }
        let result = try enroll.wait(timeout: 30)
        guard result.status == 0 else { throw TestFailure("fprintd-enroll \(user) failed: \(result)") }
    }

    /// Runs `gdbus call --system ARGUMENTS` on this bus.
    func call(_ arguments: [String]) throws -> RunResult {
        try RunningProcess.run(["/usr/bin/gdbus", "call", "--system"] + arguments, environment: environment(), timeout: 10)
    }

    private func daemon(_ command: [String], extra: [String: String] = [:]) throws -> RunningProcess {
        var environment = environment()
        for (name, value) in extra { environment[name] = value }
        let process = try RunningProcess(command, environment: environment, newSession: true)
        lock.withLock { Self.register(process.pid) }
        return process
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("timed out starting \(what) (\(directory.path))") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    // MARK: - Cleanup at process exit

    nonisolated(unsafe) private static var daemonPIDs: [pid_t] = []
    nonisolated(unsafe) private static var cleanupDirectory: String?

    private static func register(_ pid: pid_t) { daemonPIDs.append(pid) }

    private static func registerCleanup(_ directory: String) {
        cleanupDirectory = directory
        atexit {
            for pid in FingerprintReader.daemonPIDs { kill(pid, SIGKILL) }
            if let directory = FingerprintReader.cleanupDirectory { try? FileManager.default.removeItem(atPath: directory) }
        }
    }
}

extension TestEnvironment {
    /// A world whose runs reach `reader`'s fprintd, with `alice` enrolled in touchgate through the
    /// pam_matrix stacks and `biometric-service` then set to the real stack `touchgate-fprintd`.
    static func withFingerprintReader(_ reader: FingerprintReader, enroll: Bool = true) throws -> TestEnvironment {
        let world = try TestEnvironment()
        world.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = reader.busAddress
        if enroll {
            try world.enrollWithoutEnabling()
            try world.setConfig("biometric-service", "touchgate-fprintd")
        }
        return world
    }
}
