import Testing
@testable import TouchGate
@testable import TouchGateCore

/// ``WatcherCommandLine``: what `touchgate watch` hands `touchgate-watch`, and nothing else.
@Suite struct WatcherCommandLineTests {
    @Test func whatTouchgateWritesTheWatcherReads() {
        for json in [false, true] {
            let line = WatcherCommandLine(storePath: "/home/a b/touchgate.sqlite", storeID: "0123", user: "alice", json: json)
            #expect(WatcherCommandLine.parse(line.arguments) == line)
        }
    }

    @Test(arguments: [
        ["status"], ["watch"], [],
        ["--store", "/s", "--store-id", "1", "watch"],
        ["--store", "/s", "--store-id", "1", "--user", "alice"],
        ["--store", "/s", "--store-id", "1", "--user", "alice", "watch", "extra"],
        ["--store", "/s", "--store", "/t", "--store-id", "1", "--user", "alice", "watch"],
        ["--store", "", "--store-id", "1", "--user", "alice", "watch"],
        ["--store", "/s", "--store-id", "1", "--user", "alice", "--pam-confdir", "/p", "watch"],
        ["--store", "/s", "--store-id", "1", "--user"],
    ])
    func anythingElseIsRefused(_ arguments: [String]) {
        #expect(WatcherCommandLine.parse(arguments) == nil)
    }
}
