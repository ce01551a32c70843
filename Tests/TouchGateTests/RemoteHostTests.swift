import Testing
@testable import TouchGate

/// "Is this remote", from the source each caller has: the SSH variables or a PAM host's items.
@Suite struct RemoteHostTests {
    @Test func theSSHVariablesKeepOnlyAnAddress() {
        let variables = ["SSH_CONNECTION": "198.51.100.4 40000 198.51.100.1 22", "SSH_CLIENT": "203.0.113.9 1 22"]
        #expect(RemoteHost.fromSSH { variables[$0] } == "198.51.100.4")
        #expect(RemoteHost.fromSSH { ["SSH_CONNECTION": "'; rm -rf / 1 2 3"][$0] } == "unknown")
        #expect(RemoteHost.fromSSH { ["SSH_TTY": ""][$0] } == nil)
        #expect(RemoteHost.fromSSH { _ in nil } == nil)
    }

    @Test func aPAMHostIsRemoteByItsRhostElseByTheLoginOnItsTerminal() {
        let utmp = { (path: FilePath) in path == "/dev/pts/9" ? "192.0.2.50" : nil }
        #expect(RemoteHost.fromPAM(rhost: "192.0.2.1", terminalPath: "/dev/pts/9", loginHost: utmp) == "192.0.2.1")
        #expect(RemoteHost.fromPAM(rhost: "", terminalPath: "/dev/pts/9", loginHost: utmp) == "192.0.2.50")
        #expect(RemoteHost.fromPAM(rhost: "", terminalPath: "/dev/pts/2", loginHost: utmp) == nil)
        #expect(RemoteHost.fromPAM(rhost: "", terminalPath: nil, loginHost: utmp) == nil)
    }
}
