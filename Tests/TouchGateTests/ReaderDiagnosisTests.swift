import Testing
@testable import TouchGate
@testable import TouchGateCore

/// Why a fingerprint stack has no reader, named in the order a user fixes it.
@Suite struct ReaderDiagnosisTests {
    /// The order of the checks, for the outputs `fprintd-list` gives.
    @Test func theFirstProblemIsNamedInTheOrderItIsFixed() {
        typealias D = ReaderDiagnosis
        #expect(D.first(listStatus: nil, listOutput: "", user: "a", module: "pam_fprintd.so", moduleFound: false) == .fprintdMissing)
        #expect(D.first(listStatus: 1, listOutput: "Failed to connect to session bus", user: "a", module: "m", moduleFound: false)
            == .fprintdNotRunning)
        #expect(D.first(listStatus: 1, listOutput: "No devices available\n", user: "a", module: "m", moduleFound: false) == .noDevice)
        #expect(D.first(listStatus: 1, listOutput: "", user: "a", module: "m", moduleFound: false) == .fprintdNotRunning)
        #expect(D.first(listStatus: 0, listOutput: "found 1 devices\nUser a has no fingers enrolled for X.\n", user: "a",
                        module: "m", moduleFound: false) == .noFingerEnrolled(user: "a"))
        #expect(D.first(listStatus: 0, listOutput: "found 1 devices\n - #0: right-index-finger\n", user: "a",
                        module: "m", moduleFound: false) == .moduleMissing("m"))
        #expect(D.first(listStatus: 0, listOutput: "found 1 devices\n - #0: right-index-finger\n", user: "a",
                        module: "m", moduleFound: true) == nil)
    }
}
