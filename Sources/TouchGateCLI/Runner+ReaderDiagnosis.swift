import Glibc
import TouchGate
import TouchGateSystem

/// Why a fingerprint stack (one with `pam_fprintd`) has no reader to offer, found in the order a
/// user fixes it: fprintd itself, a device, a finger enrolled in it, the PAM module.
enum ReaderDiagnosis: Equatable {
    case fprintdMissing
    case fprintdNotRunning
    case noDevice
    case noFingerEnrolled(user: String)
    case moduleMissing(String)

    /// The first problem `fprintd-list USER` (its exit status and output) and the module's
    /// presence show, or `nil` when neither shows one.
    static func first(listStatus: Int32?, listOutput: String, user: String, module: String?, moduleFound: Bool) -> ReaderDiagnosis? {
        guard let listStatus else { return .fprintdMissing }
        let lines = listOutput.split(separator: "\n")
        if lines.contains(where: { $0.hasPrefix("Failed to connect") || $0.hasPrefix("Impossible") }) { return .fprintdNotRunning }
        // fprintd-list exits 1 for this too.
        if lines.contains(where: { $0.hasPrefix("No devices available") || $0 == "found 0 devices" }) { return .noDevice }
        if listStatus != 0 { return .fprintdNotRunning }
        if lines.contains(where: { $0.contains("has no fingers enrolled") }) { return .noFingerEnrolled(user: user) }
        if let module, !moduleFound { return .moduleMissing(module) }
        return nil
    }

    var text: String {
        switch self {
        case .fprintdMissing: "fprintd is not installed (fprintd-list is missing)"
        case .fprintdNotRunning: "fprintd is not running, or the system bus cannot reach it"
        case .noDevice: "fprintd finds no fingerprint reader"
        case .noFingerEnrolled(let user): "no finger is enrolled in fprintd for \(user.escapedForMessage) (fprintd-enroll enrolls one)"
        case .moduleMissing(let module): "the PAM module \(module.escapedForMessage) is not installed (libpam-fprintd)"
        }
    }
}

extension Runner {
    /// Why the biometric factor is not available for `user`, when its stack is a fingerprint
    /// stack (`pam_fprintd`): one clause for ``outcome(_:policy:extra:)``'s line, or `nil`.
    func readerDiagnosis(user: String, biometricService: String) -> String? {
        guard let path = credentialChecker.servicePath(biometricService),
              let stack = fileContents(FilePath(path), limit: 65_536).map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
        // The module's word as the stack names it: a path, or a name in libpam's directory.
        var module: String?
        for line in stack.split(separator: "\n") where line.drop(while: { $0 == " " || $0 == "\t" }).first != "#" {
            if let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first(where: { $0.contains("pam_fprintd") }) {
                module = String(word)
                break
            }
        }
        guard let module else { return nil }
        let candidates = module.hasPrefix("/") ? [module] : ["/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security",
            "/usr/lib/aarch64-linux-gnu/security", "/lib/aarch64-linux-gnu/security", "/usr/lib/security", "/lib/security"]
            .map { $0 + "/" + module }
        let found = candidates.contains { access($0, R_OK) == 0 }
        // Standard output and error together, killed after 5 s.
        let list = try? ChildProcess.runCapturingOutput(["fprintd-list", user], searchPath: true, mergingStandardError: true,
                                                        until: .after(seconds: 5))
        return ReaderDiagnosis.first(listStatus: list?.termination.shellStatus, listOutput: list?.text ?? "", user: user,
                                     module: module, moduleFound: found)?.text
    }
}
