import Glibc
import TouchGate
import TouchGateSystem

/// A real fprintd with a simulated sensor, without hardware: a private system bus
/// (`dbus-daemon`), polkit answered by python3-dbusmock's `polkitd` template (every action
/// allowed), and `fprintd` with only libfprint's `virtual_device`, whose socket takes one text
/// command per connection (`SCAN ID`: a finger touches the sensor, the enrolled id matches;
/// `ERROR 0`: the device fails). Nothing of the machine's own buses or fprintd is touched.
///
/// One type for the demo, the test suite and the bench (`touchgate test-world sensor`). A PAM
/// stack with `pam_fprintd.so max-tries=1` reaches it through `DBUS_SYSTEM_BUS_ADDRESS` =
/// ``busAddress`` (the processes it starts get it; ``pointThisProcessAtTheBus()`` sets it here).
// Unchecked: its process list is changed only by the test (or demo) that starts and stops it, on
// one thread; the tests that hold it hand it across threads without using it meanwhile.
public final class SimulatedFingerprintSensor: @unchecked Sendable {
    /// Why a part did not come up, in one line.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static let fprintd = "/usr/libexec/fprintd"
    static let programs = ["/usr/bin/dbus-daemon", "/usr/bin/gdbus", "/usr/bin/fprintd-enroll", "/usr/bin/python3", fprintd]
    /// What pam_fprintd says when it starts waiting for a finger (its verify has begun).
    public static let waitingMessage = "Swipe your right index finger"

    /// Holds the bus socket, fprintd's state (enrolled prints) and every part's log.
    public let directory: String
    /// The virtual device's socket (``send(_:timeout:)``).
    public var socketPath: String { directory + "/vd.sock" }
    /// `DBUS_SYSTEM_BUS_ADDRESS` for a process that talks to this fprintd.
    public var busAddress: String { "unix:path=\(busSocket)" }
    /// The private system bus's socket, for a test that bind-mounts it where a client expects
    /// the system bus (a helper with a cleared environment looks at the standard path).
    public var busSocket: String { directory + "/bus" }
    /// The bus, the polkit mock and fprintd, while they run (for a cleanup at exit).
    public private(set) var processes: [pid_t] = []
    private var fprintdPID: pid_t?
    /// The bus this process pointed at before ``pointThisProcessAtTheBus()``, given back by ``stop()``.
    private var previousBus: String??

    /// What is missing on this machine (a program, pam_fprintd, python3-dbusmock), or `nil`.
    public static func missingPart() -> String? {
        for program in programs where access(program, X_OK) != 0 { return program }
        if firstMatch(["/usr/lib/*/security/pam_fprintd.so", "/lib/*/security/pam_fprintd.so",
                       "/usr/lib64/security/pam_fprintd.so", "/usr/lib/security/pam_fprintd.so"]) == nil {
            return "pam_fprintd.so (libpam-fprintd)"
        }
        if firstMatch(["/usr/lib/python3/dist-packages/dbusmock", "/usr/lib/python3*/site-packages/dbusmock",
                       "/usr/local/lib/python3*/dist-packages/dbusmock"]) == nil {
            return "python3-dbusmock"
        }
        return nil
    }

    private static func firstMatch(_ patterns: [String]) -> String? {
        for pattern in patterns {
            var found = glob_t()
            defer { globfree(&found) }
            if glob(pattern, 0, nil, &found) == 0, found.gl_pathc > 0, let first = found.gl_pathv[0] {
                return String(cString: first)
            }
        }
        return nil
    }

    /// - Parameter directory: an existing directory of its own (fprintd's state goes under it).
    public init(directory: String) {
        self.directory = directory
    }

    deinit { stop() }

    /// Starts the bus, the polkit mock and fprintd; throws a one-line reason when a part does not come up.
    public func start() throws(Failure) {
        try write("bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(directory)/bus</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
            """)
        try spawn(["/usr/bin/dbus-daemon", "--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"], log: "bus.log")
        try waitUntil("the private system bus") { access(self.directory + "/bus", F_OK) == 0 }
        try spawn(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"], log: "polkit.log")
        try waitUntil("the polkit mock") {
            self.quietly(["/usr/bin/gdbus", "call", "--system", "-d", "org.freedesktop.PolicyKit1",
                          "-o", "/org/freedesktop/PolicyKit1/Authority", "-m", "org.freedesktop.DBus.Mock.AllowUnknown", "true"]) == 0
        }
        mkdir(directory + "/fprint-state", 0o700)
        try startFprintd()
    }

    /// Starts fprintd (again), on the same state directory: enrolled prints stay.
    public func startFprintd() throws(Failure) {
        fprintdPID = try spawn([Self.fprintd, "-t"], log: "fprintd.log", environment: [
            "FP_DRIVERS_WHITELIST=virtual_device", "FP_VIRTUAL_DEVICE=\(socketPath)", "STATE_DIRECTORY=\(directory)/fprint-state",
        ])
        try waitUntil("fprintd") {
            self.quietly(["/usr/bin/gdbus", "call", "--system", "-d", "net.reactivated.Fprint",
                          "-o", "/net/reactivated/Fprint/Manager", "-m", "net.reactivated.Fprint.Manager.GetDevices"]) == 0
        }
    }

    /// Kills fprintd (SIGKILL), as a crash or a stopped service would end it.
    public func killFprintd() {
        guard let pid = fprintdPID else { return }
        ChildProcess(pid: pid).killAndReap()
        processes.removeAll { $0 == pid }
        fprintdPID = nil
    }

    /// Whether fprintd runs (a test may have killed it).
    public var fprintdIsRunning: Bool {
        guard let pid = fprintdPID else { return false }
        return ChildProcess(pid: pid).exitedYet() == nil
    }

    /// The end of fprintd's log, for a failure's message.
    public var fprintdLog: String {
        String(decoding: (fileContents(FilePath(directory).appending("fprintd.log")) ?? []).suffix(6000), as: UTF8.self)
    }

    /// Enrolls the finger `id` for `user` in fprintd with `fprintd-enroll`: five touches of the
    /// sensor, paced (fprintd failed enrollments whose scans came faster).
    public func enroll(_ id: String, user: String) throws(Failure) {
        let enroll = try spawn(["/usr/bin/fprintd-enroll", "-f", "right-index-finger", user], log: "enroll.log", daemon: false)
        for _ in 0..<5 {
            guard send("SCAN \(id)", timeout: 20) else { break }
            usleep(700_000)
        }
        let (ended, killed) = ChildProcess(pid: enroll).wait(until: .after(seconds: 30), killingGroup: false)
        if !killed {
            guard ended.succeeded else { throw Failure(description: "fprintd-enroll failed (see \(directory)/enroll.log)") }
            return
        }
        throw Failure(description: "fprintd-enroll did not finish (see \(directory)/enroll.log)")
    }

    /// Sends one command to the virtual device (`SCAN ID`, `ERROR 0`), retrying while its socket
    /// does not listen (it does only while fprintd uses the device); waits until the device has
    /// read it (it closes the connection then: a new connection before that would drop it unread).
    @discardableResult
    public func send(_ command: String, timeout: Double = 10) -> Bool {
        var waited = 0.0
        while waited < timeout {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = Array(socketPath.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.prefix($0.count - 1)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 {
                writeAll(descriptor, command)
                shutdown(descriptor, Int32(SHUT_WR))
                var end = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                var byte: UInt8 = 0
                while poll(&end, 1, 5_000) > 0, read(descriptor, &byte, 1) > 0 {}
                return true
            }
            usleep(20_000)
            waited += 0.02
        }
        return false
    }

    /// Sets `DBUS_SYSTEM_BUS_ADDRESS` of this process to the sensor's bus (what it starts, the
    /// biometric worker included, inherits it); ``stop()`` gives the old value back.
    public func pointThisProcessAtTheBus() {
        if previousBus == nil { previousBus = .some(getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", busAddress, 1)
    }

    /// Ends fprintd, the polkit mock and the bus.
    public func stop() {
        for pid in processes.reversed() {
            ChildProcess(pid: pid).send(SIGTERM)
            ChildProcess(pid: pid).wait()
        }
        processes.removeAll()
        fprintdPID = nil
        if let previousBus {
            if let bus = previousBus { setenv("DBUS_SYSTEM_BUS_ADDRESS", bus, 1) } else { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
            self.previousBus = nil
        }
    }

    private func write(_ name: String, _ contents: String) throws(Failure) {
        let descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "cannot write \(directory)/\(name): \(Errno.current)") }
        defer { close(descriptor) }
        writeAll(descriptor, contents)
    }

    /// Starts `arguments` with this process's environment, the sensor's bus and `environment`,
    /// standard input from /dev/null and its output in `log` under the directory.
    @discardableResult
    private func spawn(_ arguments: [String], log: String, environment: [String] = [], daemon: Bool = true) throws(Failure) -> pid_t {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !text.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") { entries.append(text) }
            index += 1
        }
        entries.append("DBUS_SYSTEM_BUS_ADDRESS=\(busAddress)")
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                arguments, environment: entries + environment,
                fileActions: [.open(STDIN_FILENO, "/dev/null", flags: O_RDONLY),
                              .open(STDOUT_FILENO, FilePath(directory).appending(log), flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600),
                              .dup2(STDOUT_FILENO, STDERR_FILENO)],
                newProcessGroup: true, inheritSignals: false
            ).pid
        } catch {
            throw Failure(description: "cannot start \(arguments[0]): \(error)")
        }
        if daemon { processes.append(pid) }
        return pid
    }

    /// Runs `arguments` to the end with no output; its exit status.
    private func quietly(_ arguments: [String]) -> Int32 {
        guard let pid = try? spawn(arguments, log: "calls.log", daemon: false) else { return 127 }
        return ChildProcess(pid: pid).wait().shellStatus
    }

    /// Polls `condition` every 50 ms for up to 20 s.
    private func waitUntil(_ what: String, _ condition: () -> Bool) throws(Failure) {
        for _ in 0..<400 {
            if condition() { return }
            usleep(50_000)
        }
        throw Failure(description: "\(what) did not start (see \(directory))")
    }
}
