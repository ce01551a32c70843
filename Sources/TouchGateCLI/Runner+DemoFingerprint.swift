import Glibc
import TouchGate

/// The demo's prompts while a fingerprint stack runs: shows what the stack says, and plays the
/// person at a simulated sensor. Each time the stack starts waiting for a finger, the next
/// scripted move is made: a finger on the sensor (a scan sent to libfprint's virtual device), or
/// Enter (the fallback). Questions (the passcode prompt) are answered from `answers`, masked.
final class FingerprintDemoPrompts: PromptSource, WaitingInput {
    enum Move {
        /// A finger touches the sensor: `SCAN ID` to the virtual device (the enrolled id matches).
        case finger(String)
        /// Enter while the reader waits: the passcode instead.
        case enter
    }

    let sensor: SimulatedSensor
    private var moves: [Move]
    private var answers: [String]
    /// Where a scripted Enter is written; the wait polls its read end (``waitingDescriptor``).
    private let keys: (read: Int32, write: Int32)

    init(sensor: SimulatedSensor, moves: [Move], answers: [String]) {
        self.sensor = sensor
        self.moves = moves
        self.answers = answers
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        }
        keys = (ends[0], ends[1])
    }

    deinit {
        close(keys.read)
        close(keys.write)
    }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        guard !answers.isEmpty else { return .endOfInput }
        let answer = answers.removeFirst()
        writeLine(STDOUT_FILENO, "      \(prompt)\(String(repeating: "*", count: answer.count))")
        return .answer(Array(answer.utf8))
    }

    func show(_ message: String) {
        writeLine(STDOUT_FILENO, "      \(message)")
    }

    func notify(_ event: PromptEvent) {
        for line in PromptWording.lines(for: event) { show(line) }
    }

    var waitingDescriptor: Int32 { keys.read }

    func waitingStarted(typedLineIsPasscode: Bool) {
        writeLine(STDOUT_FILENO, typedLineIsPasscode
            ? "      (at the terminal: Touch the fingerprint reader, or type your passcode and press Enter)"
            : "      (at the terminal: Touch the fingerprint reader; Enter: the fallback)")
        guard !moves.isEmpty else { return }
        switch moves.removeFirst() {
        case .finger(let id):
            writeLine(STDOUT_FILENO, "      [simulated sensor] a finger touches the reader (virtual device: SCAN \(id))")
            if !sensor.send("SCAN \(id)") {
                writeLine(STDOUT_FILENO, "      [simulated sensor] the virtual device did not take the scan")
            }
        case .enter:
            writeLine(STDOUT_FILENO, "      ⏎ Enter, while the reader waits")
            var newline: UInt8 = 0x0A
            _ = write(keys.write, &newline, 1)
        }
    }

    func peekLine(keepText: Bool) -> WaitingLine {
        var byte: UInt8 = 0
        return read(keys.read, &byte, 1) == 1 ? .empty : .nothing
    }
}

/// A real fprintd with a simulated sensor, for the demo: a private system bus (`dbus-daemon`),
/// polkit answered by python3-dbusmock's `polkitd` template (every action allowed), and `fprintd`
/// with only libfprint's `virtual_device`, whose socket takes one command per connection
/// (`SCAN ID`). Nothing of the machine's own buses or fprintd is touched.
final class SimulatedSensor {
    static let fprintd = "/usr/libexec/fprintd"
    static let programs = ["/usr/bin/dbus-daemon", "/usr/bin/gdbus", "/usr/bin/fprintd-enroll", "/usr/bin/python3", fprintd]

    let directory: String
    var socketPath: String { directory + "/vd.sock" }
    var busAddress: String { "unix:path=\(directory)/bus" }
    private var daemons: [pid_t] = []
    /// The bus this process pointed at before ``start()``, given back by ``stop()``.
    private let previousBus: String?

    /// What is missing for the walkthrough (a program, pam_fprintd, python3-dbusmock), or `nil`.
    static func missingPart() -> String? {
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

    init(directory: String) {
        self.directory = directory
        previousBus = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
    }

    deinit { stop() }

    /// Starts the bus, the polkit mock and fprintd, and points this process (and so the biometric
    /// worker it starts) at the bus; throws a one-line reason when a part does not come up.
    func start() throws {
        try writeFile(directory + "/bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>unix:path=\(directory)/bus</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
            """)
        setenv("DBUS_SYSTEM_BUS_ADDRESS", busAddress, 1)
        try spawn(["/usr/bin/dbus-daemon", "--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"], log: "bus.log")
        try waitUntil("the private system bus") { access(self.directory + "/bus", F_OK) == 0 }
        try spawn(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"], log: "polkit.log")
        try waitUntil("the polkit mock") {
            self.quietly(["/usr/bin/gdbus", "call", "--system", "-d", "org.freedesktop.PolicyKit1",
                          "-o", "/org/freedesktop/PolicyKit1/Authority", "-m", "org.freedesktop.DBus.Mock.AllowUnknown", "true"]) == 0
        }
        mkdir(directory + "/fprint-state", 0o700)
        try spawn([Self.fprintd, "-t"], log: "fprintd.log", environment: [
            "FP_DRIVERS_WHITELIST=virtual_device", "FP_VIRTUAL_DEVICE=\(socketPath)", "STATE_DIRECTORY=\(directory)/fprint-state",
        ])
        try waitUntil("fprintd") {
            self.quietly(["/usr/bin/gdbus", "call", "--system", "-d", "net.reactivated.Fprint",
                          "-o", "/net/reactivated/Fprint/Manager", "-m", "net.reactivated.Fprint.Manager.GetDefaultDevice"]) == 0
        }
    }

    /// Enrolls the finger `id` for `user` in fprintd with `fprintd-enroll`: five touches of the
    /// simulated sensor, paced as fprintd wants them.
    func enroll(_ id: String, user: String) throws {
        let enroll = try spawn(["/usr/bin/fprintd-enroll", "-f", "right-index-finger", user], log: "enroll.log", daemon: false)
        var status: Int32 = 0
        for _ in 0..<5 {
            guard send("SCAN \(id)", timeout: 10) else { break }
            usleep(650_000)
        }
        for _ in 0..<200 {
            if waitpid(enroll, &status, WNOHANG) == enroll {
                guard status == 0 else { throw UsageError("fprintd-enroll failed (see \(directory)/enroll.log)", exitCode: .internalError) }
                return
            }
            usleep(50_000)
        }
        kill(enroll, SIGKILL)
        waitpid(enroll, &status, 0)
        throw UsageError("fprintd-enroll did not finish", exitCode: .internalError)
    }

    /// Sends one command to the virtual device, retrying while its socket does not listen (it
    /// does only while fprintd uses the device); waits until the device has read it.
    @discardableResult
    func send(_ command: String, timeout: Double = 5) -> Bool {
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
                // The device closes the connection once it has read the command.
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

    /// Ends fprintd, the polkit mock and the bus, and points this process back at its own bus.
    func stop() {
        for pid in daemons.reversed() {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        daemons.removeAll()
        if let previousBus { setenv("DBUS_SYSTEM_BUS_ADDRESS", previousBus, 1) } else { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
    }

    /// Starts `arguments` with this process's environment plus `environment`, standard input
    /// from /dev/null and its output in `log` under the directory.
    @discardableResult
    private func spawn(_ arguments: [String], log: String, environment: [String] = [], daemon: Bool = true) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, directory + "/" + log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            entries.append(String(cString: entry))
            index += 1
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = (entries + environment).map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = SpawnAttributes.clean { attributes in
            posix_spawn(&pid, arguments[0], &actions, attributes, argv, envp)
        }
        guard spawned == 0 else {
            throw UsageError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))", exitCode: .internalError)
        }
        if daemon { daemons.append(pid) }
        return pid
    }

    /// Runs `arguments` to the end with no output; its exit status.
    private func quietly(_ arguments: [String]) -> Int32 {
        guard let pid = try? spawn(arguments, log: "calls.log", daemon: false) else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status
    }

    /// Polls `condition` every 50 ms for up to 10 s.
    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        for _ in 0..<200 {
            if condition() { return }
            usleep(50_000)
        }
        throw UsageError("\(what) did not start (see \(directory))", exitCode: .internalError)
    }
}

extension Runner {
    /// The demo's fingerprint walkthrough: real fprintd and pam_fprintd with a simulated sensor
    /// when they are installed (and otherwise how to see it). Returns the number of surprises.
    ///
    /// `user` is enrolled in the store already; the stack `touchgate-fprintd` is written into
    /// `directory` and made the user's biometric service.
    func demoFingerprint(store: Store, directory: String, user: String, passcode: String, session: String) throws -> Int {
        func say(_ text: String) { writeLine(STDOUT_FILENO, text) }
        say("\n▸ A fingerprint reader")
        if let missing = SimulatedSensor.missingPart() {
            say("    Skipped: \(missing) is not installed. With fprintd, libpam-fprintd, python3-dbusmock and dbus")
            say("    (scripts/setup installs them) the demo shows a real fprintd and pam_fprintd here, with a")
            say("    simulated sensor (libfprint's virtual device).")
            return 0
        }
        say("    A SIMULATED sensor: a real fprintd with libfprint's virtual device, on a private system bus")
        say("    of its own, and pam_fprintd in the stack; the demo touches the sensor by sending SCAN commands")
        say("    to the virtual device. No real reader and none of this machine's buses are used.")
        let sensor = SimulatedSensor(directory: directory)
        defer { sensor.stop() }
        let finger = "demo-finger"
        do {
            try sensor.start()
            say("    fprintd-enroll -f right-index-finger \(user): five touches of the sensor")
            try sensor.enroll(finger, user: user)
        } catch let error as UsageError {
            say("    The simulated reader did not start (\(error.message)); the rest of the demo does not need it.")
            return 0
        }
        let stack = "auth [success=done default=die] pam_fprintd.so max-tries=1 timeout=10"
        try writeFile(directory + "/touchgate-fprintd", stack + "\n")
        var configuration = try store.configuration(user: user)
        try configuration.set(.biometricService, to: "touchgate-fprintd")
        try store.save(.biometricService, from: configuration, user: user, session: session, actor: user)
        say("    biometric-service = touchgate-fprintd: \(stack)")

        var surprises = 0
        func evaluate(_ step: String, moves: [FingerprintDemoPrompts.Move], answers: [String] = [],
                      remoteHost: String? = nil) throws {
            say("\n▸ \(step)")
            let checker = PAMCredentialChecker(configurationDirectory: directory, remoteHost: remoteHost)
            let context = AuthContext(user: user, store: store, session: session, checker: checker,
                                      biometricChecker: WorkerCredentialChecker(base: checker),
                                      prompts: FingerprintDemoPrompts(sensor: sensor, moves: moves, answers: answers))
            context.remoteHost = remoteHost
            let outcome = try attempt { try context.evaluateSynchronously(.deviceOwner, reason: step) }
            say("    outcome: \(outcome?.code.name ?? "success") (exit code \(outcome.map { ExitCode($0.code).rawValue } ?? 0))")
            if outcome != nil {
                surprises += 1
                say("    !! expected success")
            }
        }
        try evaluate("Unlock with the finger: the sensor is touched while the reader waits", moves: [.finger(finger)])
        try evaluate("Another finger (no match: one counted failure), then Enter: the passcode at once",
                     moves: [.finger("another-finger"), .enter], answers: [passcode])
        try evaluate("A remote session (SSH): the reader is not the remote user's finger, the passcode straight away",
                     moves: [], answers: [passcode], remoteHost: "203.0.113.7")
        return surprises
    }
}
