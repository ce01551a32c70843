import Foundation
import Testing

/// The module graph docs/design.md draws is Package.swift's, and what it promises holds: the
/// modules it marks pure import nothing, and every path it names exists.
///
/// The layers are modules so that the compiler refuses a use that goes up or sideways; this keeps
/// the picture of them true (a drawing no test reads drifts: one named a file in a module it had
/// left).
@Suite struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Package.swift's source targets (`.target`, `.executableTarget`) and the targets each
    /// depends on, read from the manifest's text: each call's `name:` and its `dependencies:` list.
    static func packageGraph() throws -> [String: [String]] {
        let manifest = try text("Package.swift")
        var graph: [String: [String]] = [:]
        for opening in [".target(", ".executableTarget("] {
            var rest = manifest[...]
            while let start = rest.range(of: opening) {
                let call = balancedCall(rest[start.lowerBound...], from: opening)
                rest = rest[start.upperBound...]
                guard let name = quoted(after: "name:", in: call) else { continue }
                var dependencies: [String] = []
                if let list = call.range(of: "dependencies:") {
                    let body = call[list.upperBound...].drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
                    dependencies = quotedStrings(in: body)
                }
                graph[name] = dependencies
            }
        }
        return graph
    }

    /// The graph docs/design.md draws: the lines `Name -> A, B` (or `Name -> -`) of its fenced
    /// block that follows the `module-graph` marker; a line's `(pure: …)` marks a module whose
    /// files import nothing.
    static func designGraph() throws -> (graph: [String: [String]], pure: Set<String>) {
        let design = try text("docs/design.md")
        guard let marker = design.range(of: "<!-- module-graph") else { return ([:], []) }
        let block = design[marker.upperBound...].drop { $0 != "\n" }.dropFirst()
            .split(separator: "```", maxSplits: 2, omittingEmptySubsequences: false)
        guard block.count > 1 else { return ([:], []) }
        var graph: [String: [String]] = [:]
        var pure: Set<String> = []
        for line in block[1].split(separator: "\n") {
            let parts = line.split(separator: "->", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            var targets = String(parts[1])
            if let note = targets.range(of: "(") {
                if targets[note.lowerBound...].hasPrefix("(pure") { pure.insert(name) }
                targets = String(targets[..<note.lowerBound])
            }
            graph[name] = targets.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && $0 != "-" }
        }
        return (graph, pure)
    }

    static func balancedCall(_ text: Substring, from opening: String) -> Substring {
        var depth = 0
        var index = text.index(text.startIndex, offsetBy: opening.count - 1)
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return text[...index] }
            default: break
            }
            index = text.index(after: index)
        }
        return text
    }

    static func quoted(after label: String, in text: Substring) -> String? {
        guard let range = text.range(of: label) else { return nil }
        return quotedStrings(in: text[range.upperBound...].prefix { $0 != "," && $0 != ")" }).first
    }

    static func quotedStrings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func theManifestIsRead() throws {
        let graph = try Self.packageGraph()
        #expect(graph["touchgate"] != nil, "\(graph)")
        #expect(graph["TouchGateCLI"]?.contains("TouchGateOwner") == true, "\(graph)")
    }

    /// Every source target of Package.swift is drawn with exactly its dependencies, and the
    /// drawing names no target the manifest does not have.
    @Test func theDesignDrawsThePackagesGraph() throws {
        let package = try Self.packageGraph()
        let design = try Self.designGraph().graph
        #expect(!design.isEmpty, "docs/design.md has no module-graph block")
        for name in Set(package.keys).union(design.keys).sorted() {
            #expect(design[name].map(Set.init) == package[name].map(Set.init),
                    "\(name): Package.swift \(package[name] ?? []), docs/design.md \(design[name] ?? [])")
        }
    }

    /// The graph has no cycle (SwiftPM refuses one too; this says which).
    @Test func theGraphHasNoCycle() throws {
        let graph = try Self.packageGraph()
        var done: Set<String> = []
        func visit(_ name: String, _ path: [String]) {
            #expect(!path.contains(name), "cycle: \((path + [name]).joined(separator: " -> "))")
            guard !path.contains(name), !done.contains(name) else { return }
            for dependency in graph[name] ?? [] { visit(dependency, path + [name]) }
            done.insert(name)
        }
        for name in graph.keys.sorted() { visit(name, []) }
    }

    /// The modules drawn as pure import nothing: no Glibc, no Foundation, no C module.
    @Test func thePureModulesImportNothing() throws {
        for module in try Self.designGraph().pure.sorted() {
            let folder = Self.root.appendingPathComponent("Sources/\(module)")
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            #expect(!files.isEmpty, "Sources/\(module) has no Swift file")
            for file in files {
                let imports = Self.imports(of: try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
                #expect(imports.isEmpty, "Sources/\(module)/\(file): \(imports)")
            }
        }
    }

    /// A file's import lines (`import X`, `internal import X`, `@testable import X`).
    static func imports(of source: String) -> [Substring] {
        source.split(separator: "\n").filter { line in
            let words = line.split(separator: " ")
            return words.prefix(3).contains("import") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        }
    }

    /// The machines sit beside their drivers (internal to that module) or in the core, and are pure
    /// wherever they sit: a machine's file imports the core alone (no Glibc, no C module, no store).
    @Test func theMachinesImportOnlyTheCore() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let machines = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
            .filter { $0.hasSuffix("StateMachine.swift") || $0.hasSuffix("/SessionLifecycle.swift") }
        #expect(machines.count >= 6, "\(machines)")
        for file in machines {
            let imports = Self.imports(of: try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8))
            #expect(imports.allSatisfy { $0 == "import TouchGateCore" }, "Sources/\(file): \(imports)")
        }
    }

    /// Every path docs/design.md names in backquotes (a file or folder of the tree) exists.
    @Test func everyPathTheDesignNamesExists() throws {
        let design = try Self.text("docs/design.md")
        let roots = ["Sources/", "Tests/", "Plugins/", "PAMModule/", "Linker/", "scripts/", "docs/", "man/", "migrations/",
                     "shell/", "bench/", "pam/", "examples/", "completions/"]
        let spans = design.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map(\.element)
        var checked = 0
        for span in spans where roots.contains(where: span.hasPrefix) {
            guard !span.contains(where: { "*<{… ".contains($0) }) else { continue }
            let path = String(span).trimmingCharacters(in: CharacterSet(charactersIn: "/.,:;"))
            checked += 1
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
                    "docs/design.md names \(span), which does not exist")
        }
        #expect(checked > 10, "only \(checked) paths read: the check reads nothing")
    }
}
