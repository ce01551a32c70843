import Foundation
import PackagePlugin

/// Turns the numbered SQL files in `migrations/` into Swift source, so the binary carries its
/// schema without a resource bundle and `migrations/` stays the only place the schema is written;
/// for the CLI target, the shell files in `shell/` (the snippets' code) and the man page's
/// hand-written sections in `man/sections/` the same way, and for the PAM module's helper,
/// pam_touchgate(8)'s sections in `man/pam_touchgate/sections/`.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // The CLI prints the shell snippets and the man page: their shell code (shell/*.sh) and the
        // page's hand-written sections (man/sections/*.roff) are embedded the same way.
        if target.name == "TouchGateCLI" {
            return [
                try embedFiles(context: context, from: "shell", ending: ".sh", mode: "--shell",
                               output: "EmbeddedShellFiles.swift", noun: "shell files"),
                try embedFiles(context: context, from: "man/sections", ending: ".roff", mode: "--man-sections",
                               output: "EmbeddedManPageSections.swift", noun: "man page sections"),
            ]
        }
        // touchgate-pam-helper prints pam_touchgate(8) (`--man`); nothing else carries its text.
        if target.name == "touchgate-pam-helper" {
            return [
                try embedFiles(context: context, from: "man/pam_touchgate/sections", ending: ".roff",
                               mode: "--pam-man-sections", output: "EmbeddedPAMModuleManPageSections.swift",
                               noun: "pam_touchgate(8) sections"),
            ]
        }
        let migrations = context.package.directoryURL.appending(path: "migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: migrations.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
            .map { migrations.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations",
                executable: try context.tool(named: "embed-migrations").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }

    /// One build command: the files of `directory` whose names end in `suffix`, embedded by
    /// `embed-migrations MODE` as a `[String: String]` keyed by file name.
    private func embedFiles(
        context: PluginContext, from directory: String, ending suffix: String, mode: String, output name: String,
        noun: String
    ) throws -> Command {
        let folder = context.package.directoryURL.appending(path: directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(suffix) }
            .sorted()
            .map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: name)
        return .buildCommand(
            displayName: "Embedding \(files.count) \(noun)",
            executable: try context.tool(named: "embed-migrations").url,
            arguments: [mode, output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )
    }
}
