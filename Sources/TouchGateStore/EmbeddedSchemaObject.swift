/// One row of `sqlite_master` as the embedded migrations leave it (`embeddedSchema`, made at
/// build time by the EmbedMigrations plugin).
struct EmbeddedSchemaObject: Equatable, Sendable {
    let type: String
    let name: String
    let table: String
    let sql: String?
}
