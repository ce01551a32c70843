/// The command line `touchgate watch` execs `touchgate-watch` with, once `touchgate` resolved
/// the environment and opened the store: `--store PATH --store-id ID --user NAME [--json] watch`.
///
/// The watcher does not parse `touchgate`'s command line (it links neither the parser nor the
/// man page); anything else is refused with exit 64.
package struct WatcherCommandLine: Equatable, Sendable {
    package var storePath: String
    package var storeID: String
    package var user: String
    package var json: Bool

    package init(storePath: String, storeID: String, user: String, json: Bool) {
        self.storePath = storePath
        self.storeID = storeID
        self.user = user
        self.json = json
    }

    /// The arguments for this command line (without the program name).
    package var arguments: [String] {
        TouchGateCommandLine(executable: "", storePath: storePath, storeID: storeID, user: user, json: json).arguments(["watch"])
    }

    /// The command line `arguments` spell, or `nil` when they are not the watcher's.
    package static func parse(_ arguments: [String]) -> WatcherCommandLine? {
        var values: [String: String] = [:]
        var json = false
        var rest = arguments[...]
        while let word = rest.popFirst() {
            switch word {
            case "--store", "--store-id", "--user":
                guard values[word] == nil, let value = rest.popFirst(), !value.isEmpty else { return nil }
                values[word] = value
            case "--json":
                json = true
            case "watch":
                guard rest.isEmpty, let path = values["--store"], let id = values["--store-id"], let user = values["--user"] else {
                    return nil
                }
                return WatcherCommandLine(storePath: path, storeID: id, user: user, json: json)
            default:
                return nil
            }
        }
        return nil
    }

    /// What the watcher says to a command line that is not its own.
    package static let refusal = "touchgate-watch runs only 'touchgate watch'"
}
