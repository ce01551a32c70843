import Testing
@testable import TouchGate
@testable import TouchGateCore

/// One spelling and order of touchgate's global options for every command line touchgate
/// writes: the owner's gate, the snippets, the systemd unit, the watcher.
@Suite struct TouchGateCommandLineTests {
    let full = TouchGateCommandLine(executable: "/usr/bin/touchgate", storePath: "/s p/t.sqlite", storeID: "id1",
                                    user: "alice", pamConfigurationDirectory: "/etc/pam.d")

    @Test func theOptionsComeInOneOrder() {
        #expect(full.words(["gate", "--session", "s"]) == [
            "/usr/bin/touchgate", "--store", "/s p/t.sqlite", "--store-id", "id1", "--user", "alice",
            "--pam-confdir", "/etc/pam.d", "gate", "--session", "s",
        ])
        let json = TouchGateCommandLine(executable: "", storePath: "/t", storeID: "i", user: "u", json: true)
        #expect(json.arguments(["watch"]) == ["--store", "/t", "--store-id", "i", "--user", "u", "--json", "watch"])
        #expect(TouchGateCommandLine(executable: "/t").words([]) == ["/t"])
    }

    @Test func theShellAndSystemdReadTheSameWords() {
        #expect(full.shellCommand(["watch"])
                == "'/usr/bin/touchgate' '--store' '/s p/t.sqlite' '--store-id' 'id1' '--user' 'alice' '--pam-confdir' '/etc/pam.d' 'watch'")
        #expect(full.systemdCommand(["watch"])
                == "/usr/bin/touchgate --store \"/s p/t.sqlite\" --store-id id1 --user alice --pam-confdir /etc/pam.d watch")
        #expect(shellQuoted("it's") == "'it'\\''s'")
        #expect(systemdQuoted("100%$") == "100%%$$")
        #expect(systemdQuoted("") == "\"\"")
    }

    @Test func theWatchersCommandLineIsOne() {
        let watcher = WatcherCommandLine(storePath: "/t", storeID: "i", user: "u", json: true)
        #expect(watcher.arguments
                == TouchGateCommandLine(executable: "", storePath: "/t", storeID: "i", user: "u", json: true).arguments(["watch"]))
        #expect(WatcherCommandLine.parse(watcher.arguments) == watcher)
    }
}
