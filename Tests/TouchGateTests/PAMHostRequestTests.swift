import Testing
@testable import TouchGate
@testable import TouchGateStore

/// The helper's reading of the module's start frame: exactly seven length-prefixed items, each at
/// most 255 bytes of text without NUL, a valid user, a known factor and known flags; and what
/// follows from them.
struct PAMHostRequestTests {
    private func frame(_ items: [String]) -> [UInt8] {
        items.flatMap { item -> [UInt8] in
            let bytes = Array(item.utf8)
            return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
    }

    @Test func aFrameOfTheModuleIsRead() throws {
        let request = try PAMHostRequest(startFrame: frame(["alice", "bob", "sudo", "/dev/pts/3", "", "biometric", "terminal"]))
        #expect(request.user == "alice" && request.requestingUser == "bob" && request.service == "sudo")
        #expect(request.factor == .biometric)
        #expect(request.hostAsksAtTerminal && !request.silent)
        #expect(request.terminalPath == "/dev/pts/3")
        // PAM_TTY is in the audit rows' session.
        #expect(request.auditSession == "pam:sudo ruser=bob tty=/dev/pts/3"
            || request.auditSession.hasPrefix("pam:sudo ruser=bob tty=/dev/pts/3 rhost="))
    }

    @Test func theFlagsSayWhereToAskAndWhetherToBeSilent() throws {
        func flags(_ text: String) throws -> (Bool, Bool) {
            let request = try PAMHostRequest(startFrame: frame(["alice", "", "sudo", "", "", "", text]))
            return (request.hostAsksAtTerminal, request.silent)
        }
        #expect(try flags("") == (false, false))
        #expect(try flags("silent") == (false, true))
        #expect(try flags("terminal silent") == (true, true))
        #expect(throws: PAMHostRequest.Malformed.self) { try flags("loud") }
        #expect(throws: PAMHostRequest.Malformed.self) { try flags("terminal  silent") }
    }

    @Test(arguments: [
        [0, 5, 0x61],  // a length past the frame
        [0],  // a cut length
    ] as [[UInt8]])
    func aCutFrameIsRefused(_ bytes: [UInt8]) {
        #expect(throws: PAMHostRequest.Malformed.self) { try PAMHostRequest(startFrame: bytes) }
    }

    @Test func wrongItemsAreRefused() {
        for items in [
            ["alice", "", "sudo", "", "", ""],  // six items
            ["alice", "", "sudo", "", "", "", "", ""],  // eight
            ["", "", "sudo", "", "", "", ""],  // no user
            ["al/ice", "", "sudo", "", "", "", ""],  // not a user name
            ["al\u{1B}[2Jice", "", "sudo", "", "", "", ""],  // a control character
            ["alice", "", "sudo", "", "", "face", ""],  // an unknown factor
            ["alice", String(repeating: "x", count: 256), "sudo", "", "", "", ""],  // an item past 255 bytes
        ] {
            #expect(throws: PAMHostRequest.Malformed.self, "\(items)") { try PAMHostRequest(startFrame: frame(items)) }
        }
        #expect(throws: PAMHostRequest.Malformed.self) {
            try PAMHostRequest(startFrame: frame(["alice"]) + [0, 2, 0x62, 0x00] + frame(["sudo", "", "", "", ""]))  // a NUL in the ruser
        }
        #expect(throws: PAMHostRequest.Malformed.self) {
            try PAMHostRequest(startFrame: [0, 2, 0x61, 0x00] + frame(["", "sudo", "", "", "", ""]))  // a NUL in the user
        }
    }

    @Test func theTerminalPathAndTheRemoteHostFollowFromTheItems() throws {
        func request(tty: String, rhost: String = "") throws -> PAMHostRequest {
            try PAMHostRequest(startFrame: frame(["alice", "", "login", tty, rhost, "", ""]))
        }
        #expect(try request(tty: "pts/7").terminalPath == "/dev/pts/7")
        #expect(try request(tty: "tty1").terminalPath == "/dev/tty1")
        #expect(try request(tty: ":0").terminalPath == nil)
        #expect(try request(tty: "ssh").terminalPath == "/dev/ssh")
        #expect(try request(tty: "/dev/../etc/shadow").terminalPath == nil)
        #expect(try request(tty: "/etc/shadow").terminalPath == nil)
        #expect(try request(tty: "").terminalPath == nil)
        #expect(try request(tty: "", rhost: "192.0.2.1").remote == "192.0.2.1")
        // ssh's PAM_TTY names no device: openTerminal finds none and the flow is the conversation's.
        #expect(try request(tty: "ssh").openTerminal() == nil)
    }

    @Test func aRootHostCountsInTheLedgerAndAUserHostInItsOwnStore() {
        #expect(PAMHostRequest.storePath(effectiveUser: 0) == "/var/lib/touchgate/touchgate.sqlite")
        #expect(PAMHostRequest.storePath(effectiveUser: 1000) == Store.defaultPath())
    }
}
