import Glibc
import TouchGateSystem

extension InvocationContext {
    /// The real shell `touchgate-login-shell` runs under the owner: the first line of
    /// `$XDG_CONFIG_HOME/touchgate/login-shell` (or `~/.config/...`) when it is an absolute path
    /// that /etc/shells lists, that may be run and that is no touchgate wrapper; else /bin/bash,
    /// else /bin/sh. Nothing can cut it short: no rc file runs before the owner.
    ///
    /// The corresponding C functions are `fopen`, `fgets` and `access`.
    package func loginShell(shells: FilePath = "/etc/shells") -> String {
        func lines(_ path: FilePath) -> [String] {
            guard let file = fopen(path.string, "r") else { return [] }
            defer { fclose(file) }
            var lines: [String] = []
            var buffer = [CChar](repeating: 0, count: 4096)
            while fgets(&buffer, Int32(buffer.count), file) != nil {
                let line = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                lines.append(String(line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed()))
            }
            return lines
        }
        let fallback = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh"
        guard let base = self["XDG_CONFIG_HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) ?? self["HOME"].map({ $0 + "/.config" }),
              let shell = lines(FilePath(base).appending("touchgate/login-shell")).first, shell.hasPrefix("/"),
              !(shell.split(separator: "/").last ?? "").hasPrefix("touchgate"),
              lines(shells).contains(shell), access(shell, X_OK) == 0 else { return fallback }
        return shell
    }
}
