import Glibc

extension ShellSession {
    /// Set in the program's environment to its session: a `touchgate shell` started inside runs
    /// its program directly (the outer owner holds the terminal).
    package static let ownerVariable = "TOUCHGATE_SHELL_SESSION"

    /// A new session id: `shell-<pid>-<16 random hex digits>`.
    package static func newID(pid: Int32 = getpid()) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "shell-\(pid)-" + bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// The program's environment (`NAME=value` each): `entries` with `TOUCHGATE_SESSION` and
    /// ``ownerVariable`` set to session `id`, and `TOUCHGATE_HOOK_STORE` to `hookStore` when
    /// given (the store the owner reads: a touchgate command typed inside that makes a new store
    /// elsewhere says so).
    package static func programEnvironment(_ entries: [String], session id: String, hookStore: String?) -> [String] {
        var replaced = ["TOUCHGATE_SESSION=" + id, ownerVariable + "=" + id]
        if let hookStore { replaced.append("TOUCHGATE_HOOK_STORE=" + hookStore) }
        let names = replaced.map { String($0.prefix { $0 != "=" }) + "=" }
        return entries.filter { entry in !names.contains { entry.hasPrefix($0) } } + replaced
    }
}
