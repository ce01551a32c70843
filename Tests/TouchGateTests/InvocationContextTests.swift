import Glibc
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// The invocation's rules, once: the store path, the user and its validity, session ids, pane
/// or gate, the tmux sockets, the remote host, each from given options and variables.
@Suite struct InvocationContextTests {
    func context(store: String? = nil, user: String? = nil, system: Bool = false, effectiveUser: uid_t = 1000,
                 _ variables: [String: String] = [:]) -> InvocationContext {
        InvocationContext(storeOption: store, userOption: user, system: system, variables: { variables[$0] },
                          effectiveUser: effectiveUser)
    }

    @Test func theStoreIsTheOptionThenTheVariableThenTheDefault() throws {
        #expect(try context(system: true).storePath == PAMHostRequest.systemStorePath)
        #expect(try context(store: "/a.sqlite", ["TOUCHGATE_STORE": "/b.sqlite"]).storePath == "/a.sqlite")
        #expect(try context(["TOUCHGATE_STORE": "/b.sqlite"]).storePath == "/b.sqlite")
        // An empty value means the default store.
        #expect(context(["TOUCHGATE_STORE": ""]).namedStorePath == nil)
        #expect(try context(store: "").storePath == Store.defaultPath())
    }

    @Test func onlyRootNamingAnotherAccountOpensThatAccountsStore() {
        // Not root: never another user's store, whatever the name.
        #expect(context(user: "root", effectiveUser: 1000).storeOfUserForRoot() == nil)
        #expect(!context(user: "root", effectiveUser: 1000).isAdministratorsCommand)
        // Root naming an account the host does not know keeps the default store.
        #expect(context(user: "no-such-account-touchgate", effectiveUser: 0).storeOfUserForRoot() == nil)
        // Root naming root (or itself) is root's own store.
        #expect(context(user: "root", effectiveUser: 0).storeOfUserForRoot() == nil)
        #expect(context(system: true).isAdministratorsCommand)
        #expect(!context(store: "/s.sqlite", system: false).isAdministratorsCommand)
    }

    @Test(arguments: ["alice", "a.b-c_d", String(repeating: "x", count: 256)])
    func validUserNames(name: String) throws {
        #expect(InvocationContext.isValidUserName(name))
        #expect(try context(user: name).user == name)
    }

    @Test(arguments: ["", "a:b", "a/b", "a\u{1B}[2J", "tab\tname", String(repeating: "x", count: 257)])
    func invalidUserNamesAreRefused(name: String) {
        #expect(!InvocationContext.isValidUserName(name))
        #expect(throws: UsageError.self) { try context(user: name).user }
    }

    @Test func theUserIsTheOptionThenTheVariable() throws {
        #expect(try context(user: "bob", ["TOUCHGATE_USER": "carol"]).user == "bob")
        #expect(try context(["TOUCHGATE_USER": "carol"]).user == "carol")
        #expect(try context().user == invokingUserName())
    }

    @Test func sessionIdsAreCheckedWhereTheyEnter() throws {
        #expect(try InvocationContext.validSession("shell-1-ab") == "shell-1-ab")
        for bad in ["", "a\nb", "\u{7F}", String(repeating: "s", count: 257)] {
            #expect(throws: UsageError.self) { try InvocationContext.validSession(bad) }
        }
        #expect(throws: UsageError.self) { try context(["TOUCHGATE_SESSION": "bad\u{1B}"]).requireSession(nil) }
    }

    @Test func theDefaultSessionIsTheVariableThenTmuxThenTheTerminal() {
        let tmux = "/tmp/tmux-1000/default,4321,7"
        #expect(context(["TOUCHGATE_SESSION": "s1", "TMUX": tmux]).defaultSessionID { "/dev/pts/1" } == "s1")
        #expect(context(["TMUX": tmux]).defaultSessionID { "/dev/pts/1" } == "tmux-4321-$7")
        #expect(context(["TOUCHGATE_SESSION": ""]).defaultSessionID { "/dev/pts/1" } == "/dev/pts/1")
    }

    @Test func aGateInThePaneOfItsOwnSessionIsThePanes() {
        let tmux = "/tmp/tmux-1000/default,4321,7"
        #expect(context(["TMUX": tmux, "TMUX_PANE": "%3"]).gateKind(for: "tmux-4321-$7") == .tmuxPane)
        #expect(context(["TMUX": tmux, "TMUX_PANE": "%3"]).gateKind(for: "tmux-4321-$8") == .gate)
        #expect(context(["TMUX": tmux]).gateKind(for: "tmux-4321-$7") == .gate)
        #expect(context().gateKind(for: "shell-1") == .gate)
    }

    @Test func theTmuxSocketsAreTheRecordedOneThenTheNamedOneThenTmuxsOwnForThatServer() {
        let here = context(["TMUX": "/tmp/tmux-1000/here,4321,7", "TMUX_TMPDIR": "/nonexistent-touchgate"])
        #expect(here.tmuxSockets(for: "tmux-4321-$2", recorded: "/r", named: "/n", searchingTmuxDirectory: true)
                == ["/r", "/n", "/tmp/tmux-1000/here"])
        // $TMUX is another server's: not asked about this one.
        #expect(here.tmuxSockets(for: "tmux-99-$2", recorded: nil, searchingTmuxDirectory: false).isEmpty)
        #expect(here.tmuxSockets(for: "shell-1", recorded: "/r", searchingTmuxDirectory: true).isEmpty)
        #expect(here.tmuxSockets(for: "tmux-4321-$2", recorded: "/here", named: "/here", searchingTmuxDirectory: false) == ["/here", "/tmp/tmux-1000/here"])
    }

    @Test func theRemoteHostComesFromTheSSHVariables() {
        #expect(context(["SSH_CONNECTION": "192.0.2.7 5122 192.0.2.1 22"]).remoteHost == "192.0.2.7")
        #expect(context(["SSH_CLIENT": "2001:db8::1 5122 22"]).remoteHost == "2001:db8::1")
        #expect(context(["SSH_CONNECTION": "\u{1B}]0;x 1 2 3"]).remoteHost == "0x")
        #expect(context(["SSH_TTY": "/dev/pts/4"]).remoteHost == "unknown")
        #expect(context().remoteHost == nil)
    }
}
