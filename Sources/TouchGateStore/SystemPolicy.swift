import Glibc
import TouchGateSystem
import TouchGateCore

/// The system policy, `/etc/touchgate.conf`: for each key it names, the weakest value any user
/// may have, in every user store and in the system ledger alike.
///
/// The administrator's limits, as `/etc/security/faillock.conf` is for faillock: a user's
/// stricter value stands, a weaker one is refused by `config set` and, when a store already
/// holds one, the file's value is the one in effect (``effective(_:)``). Which way is weaker is
/// ``Configuration/weakens(_:to:)`` and ``Configuration/raise(_:toAtLeast:)``, key by key.
///
/// The path is a constant: no environment variable or option points touchgate at another file
/// (a user could otherwise loosen their own limits). A file that is not root's, that others can
/// write, that cannot be read or does not parse fails closed: every key is limited to its
/// built-in default (the strictest defaults), and ``problem`` says why in one line.
public struct SystemPolicy: Equatable, Sendable {
    /// Where the policy is; never anywhere else.
    public static let path = "/etc/touchgate.conf"

    /// The largest file read: a policy is a dozen lines.
    static let maximumSize = 65_536

    /// The limits, in a configuration whose keys outside ``keys`` are unused.
    public let limits: Configuration
    /// The keys the file sets, in the order of ``Configuration/Key/allCases``.
    public let keys: [Configuration.Key]
    /// Why the file could not be used, one line naming it; `nil` when it was read (or is absent).
    public let problem: String?

    /// No policy: no file, every value allowed.
    public static let none = SystemPolicy(limits: Configuration(), keys: [], problem: nil)

    init(limits: Configuration, keys: [Configuration.Key], problem: String?) {
        self.limits = limits
        self.keys = keys
        self.problem = problem
    }

    /// The policy that stands in for a file that cannot be used: every key at most as weak as
    /// its built-in default.
    static func failedClosed(_ problem: String) -> SystemPolicy {
        SystemPolicy(limits: Configuration(), keys: Configuration.Key.allCases,
                     problem: "system policy \(path): \(problem); until it is fixed no setting is weaker than its default")
    }

    /// A line of the file that does not parse.
    public struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Parses the file's text: `key = value` lines with the keys of `touchgate config`; blank
    /// lines and lines starting with `#` are ignored. An unknown or repeated key, a line without
    /// `=` or a value the key does not accept is an error, never skipped.
    public init(text: String) throws(Malformed) {
        var limits = Configuration()
        var seen: Set<Configuration.Key> = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw Malformed(line: index + 1, reason: "expected 'key = value', found '\(String(line).escapedForMessage)'")
            }
            let name = String(line[..<equals].trimmingSpaces)
            let value = String(line[line.index(after: equals)...].trimmingSpaces)
            guard let key = Configuration.Key(rawValue: name) else {
                throw Malformed(line: index + 1, reason: "unknown key '\(name.escapedForMessage)'")
            }
            guard seen.insert(key).inserted else { throw Malformed(line: index + 1, reason: "\(name) is set twice") }
            do {
                try limits.set(key, to: value)
            } catch {
                throw Malformed(line: index + 1, reason: error.description)
            }
        }
        self.init(limits: limits, keys: Configuration.Key.allCases.filter(seen.contains), problem: nil)
    }

    /// The installed policy, read from ``path`` now.
    public static func installed() -> SystemPolicy { load(fromFileAt: FilePath(path)) }

    /// Reads the policy at `path`: ``none`` when there is no file, the file's limits when it is
    /// root's, not writable by group or others, a regular file (not a symbolic link) and parses;
    /// otherwise ``failedClosed(_:)``. Internal: touchgate reads ``path`` only.
    ///
    /// The corresponding C functions are `open` (`O_NOFOLLOW`), `fstat` and `read`.
    static func load(fromFileAt path: FilePath) -> SystemPolicy {
        let descriptor = open(path.string, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return .none }
            if error == ELOOP { return .failedClosed("is a symbolic link") }
            return .failedClosed("cannot be read: \(Errno(rawValue: error))")
        }
        defer { close(descriptor) }
        var information = stat()
        guard fstat(descriptor, &information) == 0 else {
            return .failedClosed("cannot be read: \(Errno.current)")
        }
        guard information.st_mode & S_IFMT == S_IFREG else { return .failedClosed("is not a regular file") }
        guard information.st_uid == 0 else { return .failedClosed("is not owned by root (owner uid \(information.st_uid))") }
        guard information.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            return .failedClosed("is writable by its group or by others (mode \(String(information.st_mode & 0o7777, radix: 8)))")
        }
        let bytes: [UInt8]
        switch fileContents(descriptor: descriptor, limit: maximumSize + 1) {
        case .failure(let error): return .failedClosed("cannot be read: \(error)")
        case .success(let read): bytes = read
        }
        guard bytes.count <= maximumSize else { return .failedClosed("is larger than \(maximumSize) bytes") }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            return .failedClosed("is not text")
        }
        do {
            return try SystemPolicy(text: text)
        } catch {
            return .failedClosed(error.description)
        }
    }

    /// `configuration` with every key the policy sets made at least as strict as its limit: what
    /// a store holding `configuration` has in effect.
    public func effective(_ configuration: Configuration) -> Configuration {
        var effective = configuration
        for key in keys { effective.raise(key, toAtLeast: limits) }
        return effective
    }

    /// The keys whose value in `configuration` is weaker than the policy allows (the file's
    /// value is in effect for them instead).
    public func overridden(in configuration: Configuration) -> [Configuration.Key] {
        keys.filter { limits.weakens($0, to: configuration) }
    }

    /// A value weaker than the policy allows: `config set` refuses it (exit 65), naming the file and the key.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let key: Configuration.Key
        public let value: String
        public let limit: String
        public var description: String {
            "\(SystemPolicy.path): \(key.rawValue) = \(limit.escapedForMessage) is the weakest allowed; "
                + "'\(value.escapedForMessage)' is weaker and refused"
        }
    }

    /// Throws when `configuration`'s value of `key` is weaker than the policy allows.
    public func check(_ key: Configuration.Key, in configuration: Configuration) throws(Refusal) {
        guard keys.contains(key), limits.weakens(key, to: configuration) else { return }
        throw Refusal(key: key, value: configuration.value(of: key), limit: limits.value(of: key))
    }
}
