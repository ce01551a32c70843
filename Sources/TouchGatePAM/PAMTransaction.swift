internal import CPAM
import TouchGateCore

/// One PAM authentication, as both the in-process check (``PAMCredentialChecker``) and the
/// biometric worker (``BiometricWorker``) run it: `pam_start` (or `pam_start_confdir` with a
/// configuration directory), `PAM_TTY` and `PAM_RHOST` when known, `pam_authenticate` with
/// `PAM_DISALLOW_NULL_AUTHTOK`, `pam_end`, through ``PAMLibrary`` (libpam opened at the first one).
///
/// With no configuration directory it calls `pam_start`, so pam_wrapper (`LD_PRELOAD`) can
/// redirect it to test stacks. The conversation is the caller's: a C function and its `appdata`.
struct PAMTransaction {
    /// The C conversation function PAM calls with the transaction's messages.
    typealias ConversationFunction = @convention(c) (
        Int32,
        UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
        UnsafeMutableRawPointer?
    ) -> Int32

    /// How a transaction ended: the status of `pam_authenticate`, or of a `pam_start` that failed
    /// (then `started` is false and no module ran).
    struct End: Equatable {
        let started: Bool
        let status: Int32

        /// What the caller makes of it: a `pam_start` that failed checked nothing.
        var outcome: PAMOutcome { started ? PAMOutcome(status: status) : .notStarted }
    }

    let service: String
    let user: String
    /// Where service files are read from instead of `/etc/pam.d`, or `nil` for the system's.
    let configurationDirectory: String?
    /// `PAM_TTY`, or `nil` to leave it unset.
    let terminal: String?
    /// `PAM_RHOST`, or `nil` to leave it unset (a local session).
    let remoteHost: String?

    /// Runs the transaction with `conversation`, which PAM calls with `appdata`.
    ///
    /// The corresponding C functions are `pam_start` (or `pam_start_confdir`), `pam_set_item`,
    /// `pam_authenticate` and `pam_end`.
    func authenticate(conversation: ConversationFunction, appdata: UnsafeMutableRawPointer) -> End {
        guard let pam = PAMLibrary.loaded else { return End(started: false, status: PAM_ABORT) }
        var pamConversation = pam_conv(conv: conversation, appdata_ptr: appdata)
        var handle: OpaquePointer?
        var status: Int32
        if let configurationDirectory {
            guard let startConfdir = pam.startConfdir else { return End(started: false, status: PAM_ABORT) }
            status = startConfdir(service, user, &pamConversation, configurationDirectory, &handle)
        } else {
            status = pam.start(service, user, &pamConversation, &handle)
        }
        guard status == PAM_SUCCESS, let handle else { return End(started: false, status: status) }
        if let terminal { _ = pam.setItem(handle, PAM_TTY, terminal) }
        if let remoteHost { _ = pam.setItem(handle, PAM_RHOST, remoteHost) }
        status = pam.authenticate(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK))
        _ = pam.end(handle, status)
        return End(started: true, status: status)
    }
}
