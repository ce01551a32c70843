import Glibc
import TestSupport
import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// ``SystemPolicy``: the file's format, the checks on the file (root's, not writable by others,
/// a regular file), failing closed to the built-in defaults, and how its limits apply to a store.
/// The installed path itself is tested through the binary in a namespace (SystemStoreCommandTests).
@Suite struct SystemPolicyTests {
    @Test func linesSetTheKeysTheyName() throws {
        let policy = try SystemPolicy(text: """
            # a comment
              grace-seconds = 60

            max-biometric-failures=3\t
              # indented comment
            passcode-delays = 0,30,60
            """)
        #expect(policy.keys == [.maxBiometricFailures, .passcodeDelays, .graceSeconds])
        #expect(policy.limits.graceSeconds == 60 && policy.limits.maxBiometricFailures == 3)
        #expect(policy.limits.passcodeDelays == [0, 30, 60])
        #expect(policy.problem == nil)
        #expect(try SystemPolicy(text: "").keys.isEmpty)
    }

    @Test(arguments: [
        ("grace-seconds 60", 1, "expected 'key = value'"),
        ("# ok\nno-such-key = 1", 2, "unknown key 'no-such-key'"),
        ("grace-seconds = 1\ngrace-seconds = 2", 2, "grace-seconds is set twice"),
        ("\n\nmax-biometric-failures = 0", 3, "invalid value '0' for max-biometric-failures"),
        ("passcode-delays = ", 1, "invalid value '' for passcode-delays"),
    ])
    func aMalformedLineIsAnErrorNamingIt(text: String, line: Int, reason: String) {
        #expect {
            try SystemPolicy(text: text)
        } throws: { error in
            guard let malformed = error as? SystemPolicy.Malformed else { return false }
            return malformed.line == line && malformed.reason.hasPrefix(reason) && !malformed.description.contains("\n")
        }
    }

    @Test func onlyTheKeysTheFileSetsAreLimited() throws {
        let policy = try SystemPolicy(text: "grace-seconds = 60\nlog-retention = 500")
        var user = Configuration()
        user.graceSeconds = 600
        user.maxBiometricFailures = 50
        user.logRetention = 20
        let effective = policy.effective(user)
        #expect(effective.graceSeconds == 60 && effective.logRetention == 500)
        #expect(effective.maxBiometricFailures == 50)
        #expect(policy.overridden(in: user) == [.graceSeconds, .logRetention])
        #expect(policy.overridden(in: Configuration()).isEmpty)
    }

    @Test func aWeakerValueIsRefusedNamingTheFileAndTheKey() throws {
        let policy = try SystemPolicy(text: "max-biometric-failures = 3")
        var user = Configuration()
        user.maxBiometricFailures = 3
        try policy.check(.maxBiometricFailures, in: user)
        user.maxBiometricFailures = 2
        try policy.check(.maxBiometricFailures, in: user)
        user.maxBiometricFailures = 4
        #expect(throws: SystemPolicy.Refusal(key: .maxBiometricFailures, value: "4", limit: "3")) {
            try policy.check(.maxBiometricFailures, in: user)
        }
        let message = SystemPolicy.Refusal(key: .maxBiometricFailures, value: "4", limit: "3").description
        #expect(message.contains("/etc/touchgate.conf") && message.contains("max-biometric-failures"), "\(message)")
        // A key the file does not set is the user's.
        user.graceSeconds = 86_400
        try policy.check(.graceSeconds, in: user)
    }

    /// A file in a directory of the test's: its owner, mode and kind decide whether it is used.
    final class PolicyFile {
        let directory: String
        var path: String { directory + "/touchgate.conf" }
        init(_ text: String, mode: mode_t = 0o644) throws {
            var template = Array("/tmp/touchgate-policy-XXXXXX".utf8CString)
            directory = String(cString: try #require(mkdtemp(&template)))
            let file = fopen(path, "w")
            fputs(text, file)
            fclose(file)
            chmod(path, mode)
        }
        deinit {
            unlink(path)
            rmdir(directory)
        }
    }

    @Test func aRootOwnedFileOthersCannotWriteIsRead() throws {
        try #require(getuid() == 0, "the policy file's owner checks need root (CI runs as root)")
        let file = try PolicyFile("grace-seconds = 60\n")
        let policy = SystemPolicy.load(fromFileAt: FilePath(file.path))
        #expect(policy.problem == nil && policy.keys == [.graceSeconds], "\(policy)")
    }

    @Test func noFileIsNoPolicy() {
        #expect(SystemPolicy.load(fromFileAt: "/tmp/touchgate-no-such-directory-\(getpid())/touchgate.conf") == .none)
    }

    @Test(arguments: ["owner", "group-writable", "other-writable", "malformed", "symbolic link", "directory", "bad value"])
    func aFileThatCannotBeTrustedOrReadFailsClosedToTheDefaults(case name: String) throws {
        try #require(getuid() == 0, "the policy file's owner checks need root (CI runs as root)")
        let file = try PolicyFile(name == "malformed" ? "grace-seconds = 60\nbogus\n" : name == "bad value" ? "grace-seconds = 6\u{1}" : "grace-seconds = 600\n")
        var path = file.path
        var expected = ""
        switch name {
        case "owner": chown(file.path, 4242, 4242); expected = "is not owned by root"
        case "group-writable": chmod(file.path, 0o664); expected = "is writable by its group or by others"
        case "other-writable": chmod(file.path, 0o646); expected = "is writable by its group or by others"
        case "malformed": expected = "line 2: expected 'key = value'"
        case "symbolic link":
            path = file.directory + "/link"
            symlink(file.path, path)
            expected = "is a symbolic link"
        case "directory": path = file.directory; expected = "is not a regular file"
        default: expected = "invalid value"
        }
        defer { if name == "symbolic link" { unlink(path) } }
        let policy = SystemPolicy.load(fromFileAt: FilePath(path))
        let problem = try #require(policy.problem, "\(name): \(policy)")
        #expect(problem.contains(expected) && problem.contains("system policy /etc/touchgate.conf") && !problem.contains("\n"),
                "\(name): \(problem)")
        // Failed closed: every key at most as weak as its default.
        #expect(policy.keys == Configuration.Key.allCases)
        var user = Configuration()
        user.graceSeconds = 600
        user.maxBiometricFailures = 50
        user.idleSeconds = 30
        let effective = policy.effective(user)
        #expect(effective.graceSeconds == 0 && effective.maxBiometricFailures == 5 && effective.idleSeconds == 30)
    }

    @Test func aStoreReadsItsSettingsThroughThePolicy() throws {
        let path = temporaryStorePath()
        let plain = try Store(path: FilePath(path), clock: WallClock(), migrator: .embedded, systemPolicy: .none)
        try plain.set(.graceSeconds, to: "600", user: "alice")
        let limited = try Store(path: FilePath(path), clock: WallClock(), migrator: .embedded,
                                systemPolicy: try SystemPolicy(text: "grace-seconds = 60\nlog-retention = 20"))
        #expect(try limited.storedConfiguration(user: "alice").graceSeconds == 600)
        #expect(try limited.configuration(user: "alice").graceSeconds == 60)
        #expect(throws: SystemPolicy.Refusal.self) { try limited.set(.graceSeconds, to: "61", user: "alice") }
        #expect(throws: SystemPolicy.Refusal.self) { try limited.set(.logRetention, to: "10", user: "alice") }
        try limited.set(.graceSeconds, to: "30", user: "alice")
        #expect(try limited.configuration(user: "alice").graceSeconds == 30)
    }

    /// Random files made of policy fragments and noise: each either parses into limits no
    /// weaker than some valid configuration, or is one malformed line, never a crash, and what
    /// parses never loosens a configuration that was already within it.
    @Test(arguments: 0..<8 as Range<UInt64>)
    func randomFilesParseOrFailOnOneLine(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let fragments = Configuration.Key.allCases.map(\.rawValue) + ["=", " = ", "#", "\n", "\t", "0", "60", "1,2,3", "-1",
                                                                      "touchgate", "", "\u{1B}[2J", "é", "==", "99999999999"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...12, using: &generator))
                .map { _ in fragments.randomElement(using: &generator)! }.joined()
            do {
                let policy = try SystemPolicy(text: text)
                var user = Configuration()
                user.maxBiometricFailures = Int.random(in: 1...100, using: &generator)
                user.graceSeconds = Int.random(in: 0...86_400, using: &generator)
                let effective = policy.effective(user)
                for key in policy.keys { #expect(!policy.limits.weakens(key, to: effective), "\(text.debugDescription)") }
                #expect(policy.effective(effective) == effective, "\(text.debugDescription)")
            } catch {
                #expect(!error.description.contains("\n") && !error.description.contains("\u{1B}"), "\(text.debugDescription)")
            }
        }
    }
}
