import Testing
@testable import TouchGate

/// `$TMUX` read once: the socket, the server's pid, the session, and the id touchgate gives it.
@Suite struct TmuxEnvironmentTests {
    @Test func aPanesVariableNamesItsServerAndSession() throws {
        let tmux = try #require(TmuxEnvironment("/tmp/tmux-1000/default,4321,7"))
        #expect(tmux.socket == "/tmp/tmux-1000/default" && tmux.serverPID == "4321" && tmux.session == 7)
        #expect(tmux.sessionID == "tmux-4321-$7")
    }

    @Test(arguments: ["", "/tmp/s", "/tmp/s,12", "/tmp/s,x,1", "/tmp/s,1,y"])
    func anythingElseIsNotTmux(value: String) {
        #expect(TmuxEnvironment(value) == nil)
    }

    @Test func aSessionIdNamesItsServerAndTarget() {
        #expect(TmuxEnvironment.serverPID(ofSession: "tmux-4321-$7") == "4321")
        #expect(TmuxEnvironment.target(ofSession: "tmux-4321-$7") == "$7")
        #expect(TmuxEnvironment.serverPID(ofSession: "shell-1-ab") == nil)
        #expect(TmuxEnvironment.target(ofSession: "/dev/pts/3") == nil)
        #expect(TmuxEnvironment.serverPID(ofSession: "tmux-$7") == nil)
    }
}
