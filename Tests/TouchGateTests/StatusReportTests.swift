import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// What `status` shows, worked out in the library: a user's counters and factors, the ledger's
/// listing, the remote budget apart.
@Suite(.removesItsFiles) struct StatusReportTests {
    @Test func aUsersStatusNamesTheCountersAndTheAttemptsLeft() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let report = try StatusReport.read(store: store, user: "alice", ledger: false, probe: SystemProcessProbe())
        let json = report.json.rendered
        #expect(json.contains("\"user\":\"alice\"") && json.contains("\"enabled\":false"))
        #expect(json.contains("\"attemptsLeft\":{\"biometric\":null,\"passcode\":"), "\(json)")
        #expect(report.text.contains("lock:               off"))
        #expect(report.text.contains("watcher:            none"))
        let ledger = try StatusReport.read(store: store, user: "alice", ledger: true, probe: SystemProcessProbe())
        #expect(!ledger.json.rendered.contains("\"enabled\"") && ledger.json.rendered.contains("\"remotePasscodeFailures\":0"))
    }

    @Test func anEmptyLedgerListsNoUser() throws {
        let store = try Store(path: FilePath(temporaryStorePath()))
        let report = try StatusReport.ledger(store)
        #expect(report.text.hasSuffix("no user has a failure counted or a lockdown"))
        #expect(report.json.rendered.contains("\"users\":[]"))
    }

    @Test func anOverriddenSettingIsSaidWithTheFilesValue() {
        var stored = Configuration()
        stored.graceSeconds = 300
        var effective = stored
        effective.graceSeconds = 60
        #expect(StatusReport.overriddenLine(.graceSeconds, stored: stored, effective: effective)
                == "# grace-seconds=300 is stored, weaker than \(SystemPolicy.path) allows: 60 is in effect")
    }
}
