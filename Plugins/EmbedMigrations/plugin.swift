import Foundation
import PackagePlugin

/// Turns the numbered SQL files in `migrations/` into Swift source, so the binary carries its
/// schema without a resource bundle and `migrations/` stays the only place the schema is written;
/// for the CLI target, the shell files in `shell/` (the snippets' code) the same way.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // The CLI prints the shell snippets: their code is shell/*.sh, embedded the same way.
        if target.name == "TouchGateCLI" {
            let shell = context.package.directoryURL.appending(path: "shell")
            let files = try FileManager.default.contentsOfDirectory(atPath: shell.path)
                .filter { $0.hasSuffix(".sh") }
                .sorted()
                .map { shell.appending(path: $0) }
            let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedShellFiles.swift")
            return [
                .buildCommand(
                    displayName: "Embedding \(files.count) shell files",
                    executable: try context.tool(named: "embed-migrations").url,
                    arguments: ["--shell", output.path] + files.map(\.path),
                    inputFiles: files,
                    outputFiles: [output]
                )
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
            )
        ]
    }
}
