import Glibc

extension WatcherCommandLine {
    /// The watcher's executable, installed beside `touchgate` or in `PREFIX/libexec/touchgate/`.
    public static let executableName = "touchgate-watch"

    /// Where `touchgate-watch` is for the `touchgate` at `touchgate` (its absolute path): first
    /// beside it, then in `../libexec/touchgate/` from its directory (where `scripts/install` puts
    /// it); exit 69 (`EX_UNAVAILABLE`) when neither is there, or without a path to start from
    /// (never the current directory).
    ///
    /// The corresponding C function is `access`.
    public static func executable(besides touchgate: String) throws(UsageError) -> String {
        guard touchgate.hasPrefix("/"), let slash = touchgate.lastIndex(of: "/") else {
            throw UsageError("touchgate watch cannot find its own executable (/proc/self/exe)", exitCode: .unavailable)
        }
        let directory = String(touchgate[..<slash])
        let candidates = [directory + "/" + executableName, directory + "/../libexec/touchgate/" + executableName]
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw UsageError("touchgate watch needs \(executableName), which is neither in \(directory.escapedForMessage) "
                             + "nor in \((directory + "/../libexec/touchgate").escapedForMessage)", exitCode: .unavailable)
        }
        return path
    }
}
