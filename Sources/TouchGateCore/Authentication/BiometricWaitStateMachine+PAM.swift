/// The PAM outcomes of the biometric wait that the machine ends a wait with when the stack did
/// not decide, as Linux-PAM's numbers (`_pam_types.h`: `PAM_CONV_ERR` 19, `PAM_ABORT` 26, fixed by
/// its ABI), so that the machine and the core it sits in import no C module;
/// `BiometricWaitStateMachineTests.theUndecidedOutcomesAreLibpamsStatuses` holds them to libpam's header.
extension PAMOutcome {
    /// The conversation stopped the stack (`PAM_CONV_ERR`): a question not answered, a style
    /// refused, the fallback chosen during the wait.
    static let conversationFailed = PAMOutcome.failed(19)
    /// The wait ended without the stack's result (`PAM_ABORT`): a counted failure, never a success.
    static let aborted = PAMOutcome.failed(26)
}
