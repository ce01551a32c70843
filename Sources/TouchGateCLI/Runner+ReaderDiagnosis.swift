import Glibc
import TouchGate
import TouchGateSystem

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
