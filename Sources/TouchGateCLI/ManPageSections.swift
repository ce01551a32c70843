/// The hand-written sections of touchgate(1), in roff: what the command table cannot say.
///
/// Their text is `man/sections/NAME.roff`, one file per section, where roff tools read it; the
/// EmbedMigrations plugin embeds the files at build time (`embeddedManPageSections`), so the
/// binary prints the whole page wherever it is copied. ``CommandTable/manPage`` puts them between
/// the generated sections. Each is one `.SH` with its text (but `exit-status-notes`, the end of
/// EXIT STATUS after its generated list); the drift test (`DocumentationTests`)
/// checks that CONFIGURATION names every `Configuration.Key` and that every file of `man/sections`
/// is in the page.
enum ManPageSections {
    static let description = section("description")
    static let configuration = section("configuration")
    static let policies = section("policies")
    static let lifecycle = section("lifecycle")
    static let integrations = section("integrations")
    static let biometricFactor = section("biometric-factor")
    static let watcher = section("watcher")
    static let security = section("security")
    static let exitStatusNotes = section("exit-status-notes")
    static let environment = section("environment")
    static let files = section("files")
    static let examples = section("examples")
    static let seeAlso = section("see-also")

    /// The text of `man/sections/NAME.roff` as the build embedded it.
    ///
    /// A section the build did not embed is a packaging bug, not something a user can cause:
    /// it stops here rather than print a page with a section missing.
    private static func section(_ name: String) -> String {
        guard let text = embeddedManPageSections[name + ".roff"] else {
            preconditionFailure("man/sections/\(name).roff was not embedded at build time")
        }
        return text
    }
}
