import Glibc
import TouchGate
import TouchGateSystem

extension Runner {
    /// `touchgate demo` and `touchgate test-world ...`: this process becomes `touchgate-demo`
    /// with the arguments it got, found as `touchgate watch` finds its watcher
    /// (``findLibexecProgram(_:for:)``; exit 69, `EX_UNAVAILABLE`, when it is missing). The demo
    /// and the test world need the test kit (`TouchGateTesting`), which `touchgate` does not carry.
    func runDemoExecutable() throws -> ExitCode {
        let command = invocation.command == .demo ? "touchgate demo" : "touchgate test-world"
        let demo = try findLibexecProgram(Self.demoExecutableName, for: command)
        var argv: [UnsafeMutablePointer<CChar>?] = ([demo] + commandLineArguments()).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        execv(demo, &argv)
        return fail("cannot run \(demo.escapedForMessage): \(Errno.current)", .unavailable)
    }

    /// The demo's executable, installed beside `touchgate` or in `PREFIX/libexec/touchgate/`.
    package static let demoExecutableName = "touchgate-demo"
}
