import Glibc
import TouchGate
import TouchGateCLI
import TouchGateSystem
import TouchGateTesting

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

    let sensor: SimulatedFingerprintSensor
    private var moves: [Move]
    private var answers: [String]
    /// Where a scripted Enter is written; the wait polls its read end (``waitingDescriptor``).
    private let keys: (read: Int32, write: Int32)

    init(sensor: SimulatedFingerprintSensor, moves: [Move], answers: [String]) {
        self.sensor = sensor
        self.moves = moves
        self.answers = answers
        let pipe = try? SelfPipe()
        keys = (pipe?.readEnd ?? -1, pipe?.writeEnd ?? -1)
    }

    deinit {
        close(keys.read)
        close(keys.write)
    }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        guard !answers.isEmpty else { return .endOfInput }
        let answer = answers.removeFirst()
        writeLine(STDOUT_FILENO, "      \(prompt)\(String(repeating: "*", count: answer.count))")
        return .answer(SecureBytes(answer.utf8))
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

extension Runner {
    /// The demo's fingerprint walkthrough: real fprintd and pam_fprintd with a simulated sensor
    /// when they are installed (and otherwise how to see it). Returns the number of surprises.
    ///
    /// `user` is enrolled in the store already; the stack `touchgate-fprintd` is written into
    /// `directory` and made the user's biometric service.
    func demoFingerprint(store: Store, directory: String, user: String, passcode: String, session: String) throws -> Int {
        func say(_ text: String) { writeLine(STDOUT_FILENO, text) }
        say("\n▸ A fingerprint reader")
        if let missing = SimulatedFingerprintSensor.missingPart() {
            say("    Skipped: \(missing) is not installed. With fprintd, libpam-fprintd, python3-dbusmock and dbus")
            say("    (scripts/setup installs them) the demo shows a real fprintd and pam_fprintd here, with a")
            say("    simulated sensor (libfprint's virtual device).")
            return 0
        }
        say("    A SIMULATED sensor: a real fprintd with libfprint's virtual device, on a private system bus")
        say("    of its own, and pam_fprintd in the stack; the demo touches the sensor by sending SCAN commands")
        say("    to the virtual device. No real reader and none of this machine's buses are used.")
        let sensor = SimulatedFingerprintSensor(directory: directory)
        defer { sensor.stop() }
        let finger = "demo-finger"
        do {
            try sensor.start()
            // The biometric worker this process starts reaches fprintd through the private bus.
            sensor.pointThisProcessAtTheBus()
            say("    fprintd-enroll -f right-index-finger \(user): five touches of the sensor")
            try sensor.enroll(finger, user: user)
        } catch {
            say("    The simulated reader did not start (\(error.description)); the rest of the demo does not need it.")
            return 0
        }
        let stack = "auth [success=done default=die] pam_fprintd.so max-tries=1 timeout=10"
        try writeFile(FilePath(directory).appending("touchgate-fprintd"), stack + "\n")
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
