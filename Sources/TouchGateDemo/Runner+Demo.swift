import Glibc
import TouchGate
import TouchGateCLI
import TouchGateSystem
import TouchGateTesting

/// Answers prompts from a script and shows them as a person would see them, secrets masked.
final class ScriptedPrompts: PromptSource {
    var answers: [String]

    init(_ answers: [String]) {
        self.answers = answers
    }

    func ask(_ prompt: String, echo: Bool, interrupter: Interrupter) -> PromptAnswer {
        guard !answers.isEmpty else { return .endOfInput }
        let answer = answers.removeFirst()
        let shown = answer.isEmpty ? "(Enter: fallback)" : String(repeating: "*", count: answer.count)
        writeLine(STDOUT_FILENO, "      \(prompt)\(shown)")
        return .answer(SecureBytes(answer.utf8))
    }

    func show(_ message: String) {
        writeLine(STDOUT_FILENO, "      \(message)")
    }

    func notify(_ event: PromptEvent) {
        for line in PromptWording.lines(for: event) { show(line) }
    }
}

extension Runner {
    /// `touchgate demo`: a walkthrough against real PAM (pam_matrix stacks read through
    /// `pam_start_confdir`) and a temporary store; it checks each step and exits 70 if one surprises it.
    func demo() throws -> ExitCode {
        guard let matrix = PAMWorld.pamMatrix else {
            printError("demo needs pam_matrix.so from the libpam-wrapper package (apt-get install libpam-wrapper)")
            return .internalError
        }
        var template = Array("/tmp/touchgate-demo-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return fail("cannot create a temporary directory", .internalError) }
        let directory = String(cString: made)
        defer { ChildProcess.runQuietly(["rm", "-rf", directory], searchPath: true) }
        let user = "demo"
        let passcode = "demo-passcode"
        let finger = "demo-finger"
        let files = FilePath(directory)
        try writeFile(files.appending("passcode.db"), "\(user):\(passcode):touchgate\n")
        try writeFile(files.appending("biometric.db"), "\(user):\(finger):touchgate-biometric\n")
        try writeFile(files.appending("touchgate"), "auth required \(matrix) passdb=\(directory)/passcode.db\n")
        try writeFile(files.appending("touchgate-biometric"), "auth required \(matrix) passdb=\(directory)/biometric.db\n")
        let store = try Store(path: files.appending("touchgate.sqlite"))
        let session = "demo-session"
        var surprises = 0

        func say(_ text: String) { writeLine(STDOUT_FILENO, text) }
        func evaluate(_ step: String, _ policy: AuthPolicy, _ answers: [String], expect: AuthError.Code?,
                      then: ((EvaluationSuccess) throws -> Void)? = nil) throws {
            say("\n▸ \(step)")
            let context = AuthContext(user: user, store: store, session: session,
                                      checker: PAMCredentialChecker(configurationDirectory: directory),
                                      prompts: ScriptedPrompts(answers))
            var success: EvaluationSuccess?
            let outcome = try attempt { success = try context.evaluateSynchronously(policy, reason: step) }
            let name = outcome?.code.name ?? "success"
            say("    outcome: \(name) (exit code \(outcome.map { ExitCode($0.code).rawValue } ?? 0))")
            if outcome?.code != expect {
                surprises += 1
                say("    !! expected \(expect?.name ?? "success")")
            } else if let success {
                try then?(success)
            }
        }
        func event(_ event: LifecycleEvent) throws {
            let policy = try relockPolicy(store: store, user: user)
            let record = try store.updateSession(session, user: user) { record in
                if case .refused(let refusal) = record.lifecycle.handle(event, now: clock.now, policy: policy) { throw refusal }
                return record
            }
            say("    event \(event.rawValue): session is \(record.lifecycle.state.rawValue)\(record.lifecycle.locked ? ", locked" : "")")
        }
        /// What `touchgate gate` draws on the alternate screen for the locked session, framed,
        /// so the walkthrough shows the screen a user meets, not only the prompts.
        func showCover() throws {
            let lines = header(user: user, session: session)
                + (try GateStatus.read(store: store, user: user, session: session, remoteHost: remoteHost)).lines
            let width = lines.map(\.count).max() ?? 0
            say("    the gate covers the terminal (touchgate gate, on the alternate screen):")
            say("    ┌" + String(repeating: "─", count: width + 2) + "┐")
            for line in lines {
                let shown = TerminalText.sanitized(line)
                say("    │ " + shown + String(repeating: " ", count: max(0, width - shown.count)) + " │")
            }
            say("    └" + String(repeating: "─", count: width + 2) + "┘")
        }
        /// Only with the success of the evaluation just made, as the gate unlocks.
        func unlockSession(_ success: EvaluationSuccess) throws {
            try store.unlockSession(session, user: user, after: success)
            say("    session unlocked and active")
        }

        say("touchgate demo: user '\(user)', passcode '\(passcode)', biometric secret '\(finger)'")
        say("PAM stacks (pam_matrix) and the store are in \(directory); they are removed at the end.")
        try evaluate("Turn the lock on (needs the passcode: nothing is enrolled yet)", .deviceOwner, [passcode],
                     expect: nil) { _ in try store.setEnabled(true, user: user, session: session) }
        say("\n▸ Enroll the biometric factor: the passcode, then one biometric success")
        let enrolling = AuthContext(user: user, store: store, session: session,
                                    checker: PAMCredentialChecker(configurationDirectory: directory),
                                    prompts: ScriptedPrompts([passcode, finger]))
        let enrolled = try attempt { try enrolling.enroll(reason: "enroll") }
        say("    outcome: \(enrolled?.code.name ?? "success")")
        if enrolled != nil { surprises += 1 }
        say("\n▸ Launch the session: it starts locked")
        try event(.didFinishLaunching)
        try showCover()
        try evaluate("Unlock with the biometric factor", .deviceOwner, [finger], expect: nil, then: unlockSession)
        say("\n▸ Leave the session (grace-seconds is 0)")
        try event(.willResignActive)
        try event(.didEnterBackground)
        say("\n▸ Come back")
        try event(.willEnterForeground)
        try showCover()
        try evaluate("A wrong try, then Enter for the passcode fallback", .deviceOwner, ["wrong-finger", "", passcode],
                     expect: nil, then: unlockSession)
        try evaluate("Five wrong biometric tries (three per evaluation)", .biometrics, ["bad", "bad", "bad"],
                     expect: .authenticationFailed)
        try evaluate("… and two more", .biometrics, ["bad", "bad", "never-asked"], expect: .biometryLockout)
        try evaluate("Biometrics are locked out now, without asking PAM", .biometrics, [], expect: .biometryLockout)
        say("\n▸ Lock the session (as tmux's lock-command does): the cover says biometrics are locked out")
        try store.updateSession(session, user: user) { $0.lifecycle.lock(policy: SessionLifecycle.Policy(enabled: true, graceSeconds: 0)) }
        try showCover()
        try evaluate("Only the passcode clears the lockout", .deviceOwner, [passcode], expect: nil, then: unlockSession)
        try evaluate("Biometrics work again", .biometrics, [finger], expect: nil)
        say("\n▸ touchgate lockdown: the biometric factor is off until the next passcode success, nothing asked")
        try store.lockdown(user: user, byAdministrator: false, session: session)
        try evaluate("The finger is refused without asking PAM (\(PasscodeRequirement.Reason.lockdown.sentence))", .biometrics,
                     [finger], expect: .biometryLockout)
        try evaluate("Device-owner asks for the passcode at once, which lifts the lockdown", .deviceOwner, [passcode], expect: nil)
        surprises += try demoFingerprint(store: store, directory: directory, user: user, passcode: passcode, session: session)
        say("\nAudit trail:")
        for entry in try store.auditEntries(limit: 50) where entry.factor != AuditFactor.lifecycle.rawValue {
            say("  \(isoTime(entry.time))  \(entry.policy ?? "-")  \(entry.factor)  \(entry.outcome)")
        }
        say(surprises == 0 ? "\nDemo finished: every step behaved as expected." : "\nDemo finished with \(surprises) surprise(s).")
        return surprises == 0 ? .success : .internalError
    }
}

/// Writes `contents` to a new file at `path` (mode 0600).
func writeFile(_ path: FilePath, _ contents: String) throws {
    let descriptor = open(path.string, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw UsageError("cannot write \(path): \(Errno.current)", exitCode: .internalError) }
    defer { close(descriptor) }
    writeAll(descriptor, contents)
}
