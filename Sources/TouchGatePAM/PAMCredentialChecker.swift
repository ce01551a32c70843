import Glibc
import TouchGateCore
import TouchGateSystem
import TouchGateTerminal

/// Checks credentials through libpam, one ``PAMTransaction`` per check.
///
/// With no configuration directory the transaction calls `pam_start`, so pam_wrapper
/// (`LD_PRELOAD`) can redirect it to test stacks; with one it calls `pam_start_confdir`.
public struct PAMCredentialChecker: CredentialChecker {
    /// Where service files are read from instead of `/etc/pam.d`, or `nil` for the system's.
    public let configurationDirectory: String?
    /// The terminal name passed as `PAM_TTY`, for modules that log or restrict by it.
    public let terminal: String?
    /// The remote host passed as `PAM_RHOST` in a remote session (SSH), or `nil` for a local one.
    public let remoteHost: String?

    public init(configurationDirectory: String? = nil, terminal: String? = nil, remoteHost: String? = nil) {
        self.configurationDirectory = configurationDirectory
        self.terminal = terminal
        self.remoteHost = remoteHost
    }

    /// The directories libpam would read `service` from, in its order of preference.
    var searchDirectories: [String] {
        if let configurationDirectory { return [configurationDirectory] }
        let environment = ProcessEnvironment.current
        if environment["PAM_WRAPPER"] == "1", let redirected = environment["PAM_WRAPPER_SERVICE_DIR"] {
            return [redirected]
        }
        return ["/etc/pam.d", "/usr/lib/pam.d"]
    }

    /// The file libpam would read `service` from, or `nil` when there is none.
    public func servicePath(_ service: String) -> String? {
        guard !service.isEmpty, !service.contains("/") else { return nil }
        return searchDirectories.map { $0 + "/" + service }.first { access($0, R_OK) == 0 }
    }

    public func serviceExists(_ service: String) -> Bool {
        guard !service.isEmpty, !service.contains("/") else { return false }
        return searchDirectories.contains { directory in
            access(directory + "/" + service, R_OK) == 0
        }
    }

    /// Names what is missing: the configuration directory given, or the service file in every
    /// directory libpam would read it from, telling a missing file (ENOENT), one that cannot be
    /// read (EACCES) and a path through a file (ENOTDIR) apart.
    ///
    /// The corresponding C functions are `stat` and `access`.
    public func missingServiceDescription(_ service: String, role: String) -> String {
        if service.isEmpty { return "No \(role) service is configured." }
        if service.contains("/") { return "The \(role) service \(service) is not a service name." }
        var information = stat()
        if let configurationDirectory {
            let what = "The PAM configuration directory \(configurationDirectory)"
            if stat(configurationDirectory, &information) != 0 { return "\(what) \(Self.failure(errno))." }
            if information.st_mode & S_IFMT != S_IFDIR { return "\(what) is not a directory." }
            if access(configurationDirectory, R_OK | X_OK) != 0 {
                return "\(what) cannot be read (\(Self.errnoName(errno)): permission denied)."
            }
        }
        let paths = searchDirectories.map { $0 + "/" + service }
        for path in paths {
            if stat(path, &information) == 0 {
                if access(path, R_OK) != 0 {
                    return "The \(role) service file \(path) cannot be read (\(Self.errnoName(errno)): permission denied)."
                }
                continue
            }
            if errno != ENOENT { return "The \(role) service file \(path) \(Self.failure(errno))." }
        }
        return "The \(role) service file \(paths.joined(separator: " or ")) was not found."
    }

    /// How a path that `stat` refused fails, for a message: "was not found (ENOENT)" and the like.
    static func failure(_ code: Int32) -> String {
        switch code {
        case ENOENT: "was not found (ENOENT)"
        case EACCES: "cannot be reached (EACCES: permission denied on a directory above it)"
        case ENOTDIR: "cannot be reached (ENOTDIR: a part of the path is not a directory)"
        default: "cannot be reached (\(errnoName(code)))"
        }
    }

    /// The errno's symbolic name for the values a path can fail with, else its number.
    static func errnoName(_ code: Int32) -> String {
        switch code {
        case ENOENT: "ENOENT"
        case EACCES: "EACCES"
        case ENOTDIR: "ENOTDIR"
        case ELOOP: "ELOOP"
        case ENAMETOOLONG: "ENAMETOOLONG"
        case EPERM: "EPERM"
        default: "errno \(code)"
        }
    }

    /// The transaction of `service` for `user`, with this checker's directory and items.
    func transaction(service: String, user: String) -> PAMTransaction {
        PAMTransaction(service: service, user: user, configurationDirectory: configurationDirectory,
                       terminal: terminal, remoteHost: remoteHost)
    }

    /// One ``PAMTransaction`` in this process, its questions answered through a ``Conversation``.
    public func check(
        service: String, user: String, prompts: PromptSource, interrupter: Interrupter, emptyAnswerIsFallback: Bool
    ) -> CredentialCheckResult {
        let conversation = Conversation(
            prompts: prompts, interrupter: interrupter, emptyAnswerIsFallback: emptyAnswerIsFallback)
        let retained = Unmanaged.passRetained(conversation)
        defer { retained.release() }
        let end = transaction(service: service, user: user)
            .authenticate(conversation: conversationFunction, appdata: retained.toOpaque())
        return CredentialCheckResult(end.outcome, conversation: conversation)
    }
}
