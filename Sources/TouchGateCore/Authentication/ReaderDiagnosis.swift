/// Why a fingerprint stack (one with `pam_fprintd`) has no reader to offer, found in the order a
/// user fixes it: fprintd itself, a device, a finger enrolled in it, the PAM module.
package enum ReaderDiagnosis: Equatable, Sendable {
    case fprintdMissing
    case fprintdNotRunning
    case noDevice
    case noFingerEnrolled(user: String)
    case moduleMissing(String)

    /// The first problem `fprintd-list USER` (its exit status and output) and the module's
    /// presence show, or `nil` when neither shows one.
    package static func first(listStatus: Int32?, listOutput: String, user: String, module: String?, moduleFound: Bool) -> ReaderDiagnosis? {
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

    package var text: String {
        switch self {
        case .fprintdMissing: "fprintd is not installed (fprintd-list is missing)"
        case .fprintdNotRunning: "fprintd is not running, or the system bus cannot reach it"
        case .noDevice: "fprintd finds no fingerprint reader"
        case .noFingerEnrolled(let user): "no finger is enrolled in fprintd for \(user.escapedForMessage) (fprintd-enroll enrolls one)"
        case .moduleMissing(let module): "the PAM module \(module.escapedForMessage) is not installed (libpam-fprintd)"
        }
    }
}
