/// One schema step, as written in `migrations/NNNN_name.sql`.
struct EmbeddedMigration: Sendable, Hashable {
    let version: Int
    let name: String
    let sql: String
}
