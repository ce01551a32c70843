extension Store {
    /// The settings, with defaults for keys never set.
    public func configuration() throws(StoreError) -> Configuration {
        try perform {
            var stored: [String: String] = [:]
            for row in try database.rows("SELECT key, value FROM config") {
                if let key = row[0].string, let value = row[1].string { stored[key] = value }
            }
            return try Configuration(stored: stored)
        }
    }

    /// Stores `configuration`'s value for `key`.
    public func save(_ key: Configuration.Key, from configuration: Configuration) throws(StoreError) {
        try perform {
            try database.run(
                "INSERT INTO config (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                .text(key.rawValue), .text(configuration.value(of: key)))
        }
    }
}
