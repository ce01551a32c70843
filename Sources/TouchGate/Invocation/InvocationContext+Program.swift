import Glibc
import TouchGateCore
import TouchGateSystem

extension InvocationContext {
    /// The program `touchgate shell` runs, its path and argument vector: `program` as given
    /// (found in `PATH`), else the user's shell from the password database, else `$SHELL`, else
    /// `/bin/sh`; a touchgate wrapper is never its own shell. A login shell's `argv[0]` starts
    /// with `-` (login, sshd and su start it so). Exit 65 for a program not in `PATH`.
    ///
    /// The corresponding C functions are `getpwuid` and `access`.
    package func programToRun(_ program: [String], login: Bool) throws(UsageError) -> (path: FilePath, argv: [String]) {
        if let first = program.first {
            guard let path = findInPath(first) else {
                throw UsageError("shell: no program '\(first.escapedForMessage)' in PATH", exitCode: .badValue)
            }
            let base = path.lastComponent ?? path.string
            return (path, login ? ["-" + base] + program.dropFirst() : program)
        }
        var candidates: [String] = []
        if let entry = getpwuid(getuid()), let shell = entry.pointee.pw_shell { candidates.append(String(cString: shell)) }
        if let shell = self["SHELL"] { candidates.append(shell) }
        candidates.append("/bin/sh")
        let path = candidates.first { $0.hasPrefix("/") && !$0.split(separator: "/").last!.hasPrefix("touchgate") && access($0, X_OK) == 0 }
            ?? "/bin/sh"
        let base = String(path.split(separator: "/").last ?? "sh")
        return (FilePath(path), [login ? "-" + base : base])
    }

    /// `name` when it holds a `/` and may be run, else the first regular executable file of that
    /// name in `PATH` (`/usr/local/bin:/usr/bin:/bin` when unset).
    ///
    /// The corresponding C functions are `access` and `stat`.
    package func findInPath(_ name: String) -> FilePath? {
        if name.contains("/") { return access(name, X_OK) == 0 ? FilePath(name) : nil }
        for directory in (self["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            var info = stat()
            if access(candidate, X_OK) == 0, stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return FilePath(candidate) }
        }
        return nil
    }
}
