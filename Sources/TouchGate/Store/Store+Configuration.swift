extension Store {
    /// The settings, with defaults for keys never set.
    ///
    /// Applied row by row in key order, so that of two bad values the same one is always
    /// reported, and without a dictionary, which costs every process that reads the settings
    /// the runtime's set-up of its first one.
    public func configuration() throws(StoreError) -> Configuration {
        try perform {
            var configuration = Configuration()
            for row in try database.rows("SELECT key, value FROM config ORDER BY key") {
                if let name = row[0].string, let key = Configuration.Key(rawValue: name), let value = row[1].string {
                    try configuration.set(key, to: value)
                }
            }
            return configuration
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
