import Glibc
import TouchGate
import TouchGateSystem

/// A private PAM world for tests: pam_matrix stacks for the `touchgate` (passcode) and
/// `touchgate-biometric` services in a temporary directory, reached through `pam_start_confdir`
/// (no root, no pam_wrapper, nothing under /etc), and the path of a store beside them.
///
/// One call makes it; ``remove()`` (or the end of the world's life) deletes the directory.
/// `touchgate testing world create DIR` makes the same world for shell and Python tests, and
/// prints ``environment``.
///
/// pam_matrix takes the first line of a user in its passdb file, so each service has a passdb of
/// its own (`passcode.db`, `biometric.db`), one line per user.
public final class PAMWorld {
    /// One account of the world: the passcode (the `touchgate` stack's secret) and the
    /// "finger" (the `touchgate-biometric` stack's secret, typed at its prompt).
    public struct User: Sendable, Equatable {
        public var name: String
        public var passcode: String
        public var finger: String

        public init(name: String, passcode: String, finger: String) {
            self.name = name
            self.passcode = passcode
            self.finger = finger
        }

        /// `alice`, passcode `alice-passcode`, finger `alice-finger`.
        public static let alice = User(name: "alice", passcode: "alice-passcode", finger: "alice-finger")
    }

    /// Why a world cannot be made or removed.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The directory: the stacks (`--pam-confdir`), their passdb files and the store.
    public let directory: String
    public let users: [User]
    /// Whether this object made the directory (and so removes it when it goes away).
    private let owned: Bool
    private var removed = false

    /// The file that marks a directory as a world, so ``remove(directory:)`` never deletes anything else.
    public static let markerName = "touchgate-testing-world"
    /// Where Debian and others put pam_wrapper's `pam_matrix.so` (package libpam-wrapper).
    public static let pamMatrixCandidates = [
        "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so", "/usr/lib/aarch64-linux-gnu/pam_wrapper/pam_matrix.so",
        "/usr/lib64/pam_wrapper/pam_matrix.so", "/usr/lib/pam_wrapper/pam_matrix.so",
    ]

    /// The `pam_matrix.so` of this machine, or `nil` without libpam-wrapper.
    public static var pamMatrix: String? { pamMatrixCandidates.first { access($0, R_OK) == 0 } }

    /// Makes a world in a new temporary directory (or in `directory`, which must not exist or be
    /// empty; it is then left in place by the object, for ``remove(directory:)``).
    public init(users: [User] = [.alice], directory: String? = nil) throws(Failure) {
        guard let matrix = Self.pamMatrix else {
            throw Failure(description: "pam_matrix.so is missing: install libpam-wrapper (scripts/setup does)")
        }
        guard !users.isEmpty, users.allSatisfy({ Self.isPlain($0.name) && Self.isPlain($0.passcode) && Self.isPlain($0.finger) })
        else { throw Failure(description: "user names and secrets must be non-empty, without ':', spaces or newlines") }
        if let directory {
            guard directory.hasPrefix("/") else { throw Failure(description: "\(directory): not an absolute path") }
            if mkdir(directory, 0o700) != 0 {
                guard errno == EEXIST, Self.isEmptyDirectory(FilePath(directory)) else {
                    throw Failure(description: "\(directory): exists and is not an empty directory")
                }
                chmod(directory, 0o700)
            }
            self.directory = directory
            owned = false
        } else {
            var template = Array("/tmp/touchgate-world-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw Failure(description: "cannot make a temporary directory") }
            self.directory = String(cString: made)
            owned = true
        }
        self.users = users
        do {
            try write(Self.markerName, "a touchgate testing world: `touchgate testing world remove` deletes this directory\n")
            try write("passcode.db", users.map { "\($0.name):\($0.passcode):touchgate\n" }.joined())
            try write("biometric.db", users.map { "\($0.name):\($0.finger):touchgate-biometric\n" }.joined())
            try write("touchgate", "auth required \(matrix) passdb=\(self.directory)/passcode.db\n")
            try write("touchgate-biometric", "auth required \(matrix) passdb=\(self.directory)/biometric.db\n")
            // What libpam reads for a service without a file of its own (pam_wrapper wants one too).
            try write("other", "auth required pam_deny.so\naccount required pam_deny.so\n")
        } catch {
            Self.deleteTree(FilePath(self.directory))
            throw error
        }
    }

    deinit {
        if owned { remove() }
    }

    /// The store of this world (made on first open).
    public var storePath: String { directory + "/touchgate.sqlite" }

    /// The variables that point `touchgate` at this world: its stacks, its store, its first user.
    public var environment: [(String, String)] {
        [("TOUCHGATE_PAM_CONFDIR", directory), ("TOUCHGATE_STORE", storePath), ("TOUCHGATE_USER", users[0].name)]
    }

    /// A checker of this world's stacks.
    public var checker: PAMCredentialChecker { PAMCredentialChecker(configurationDirectory: directory) }

    /// Opens (or makes) the world's store, reading the time from `clock`.
    public func openStore(clock: any Clock = WallClock()) throws(StoreError) -> Store {
        try Store(path: FilePath(storePath), clock: clock)
    }

    /// A context for `user` (the first user by default) over `store`, answering from `prompts`.
    public func context(store: Store, user: String? = nil, prompts: (any PromptSource)?) -> AuthContext {
        AuthContext(user: user ?? users[0].name, store: store, checker: checker, prompts: prompts)
    }

    /// Deletes the directory and everything in it (the store included).
    public func remove() {
        guard !removed else { return }
        removed = true
        Self.deleteTree(FilePath(directory))
    }

    /// Deletes the world in `directory`: only a directory that holds a world's marker.
    public static func remove(directory: String) throws(Failure) {
        guard access(directory + "/" + markerName, F_OK) == 0 else {
            throw Failure(description: "\(directory): not a touchgate testing world (no \(markerName) file); nothing removed")
        }
        deleteTree(FilePath(directory))
    }

    private func write(_ name: String, _ contents: String) throws(Failure) {
        let path = directory + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "cannot write \(path): \(Errno.current)") }
        defer { close(descriptor) }
        writeAll(descriptor, contents)
    }

    private static func isPlain(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0 == ":" || $0 == " " || $0.value < 0x20 || $0.value == 0x7F }
    }

    private static func isEmptyDirectory(_ path: FilePath) -> Bool {
        guard let handle = opendir(path.string) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// Deletes `path` and what is under it, without following symbolic links.
    ///
    /// The corresponding C functions are `opendir`, `unlinkat` and `rmdir`.
    static func deleteTree(_ path: FilePath) {
        var information = stat()
        guard lstat(path.string, &information) == 0 else { return }
        if information.st_mode & S_IFMT == S_IFDIR, let handle = opendir(path.string) {
            var names: [String] = []
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(handle)
            for name in names { deleteTree(path.appending(name)) }
            rmdir(path.string)
        } else {
            unlink(path.string)
        }
    }
}
