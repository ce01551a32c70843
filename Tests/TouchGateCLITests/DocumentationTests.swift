import Foundation
import Testing
import TouchGate
import TouchGateCLI

/// The files derived from the command table and checked in (the man page, the completions) are
/// what the current binary prints, and the man page is clean roff that `man -l` renders.
@Suite struct DocumentationTests {
    static let generated = [
        ("man/touchgate.1", ["help", "--man"]),
        ("completions/touchgate.bash", ["completions", "bash"]),
        ("completions/_touchgate", ["completions", "zsh"]),
    ]

    static var manPagePath: String { TestEnvironment.packageRoot.appendingPathComponent("man/touchgate.1").path }

    /// Runs a program of the system with a plain environment.
    static func system(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> RunResult {
        var environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (name, value) in extra { environment[name] = value }
        return try TestEnvironment.execute(executable, arguments, environment: environment)
    }

    @Test(arguments: generated)
    func checkedInFileIsWhatTheBinaryPrints(file: String, arguments: [String]) throws {
        let world = try TestEnvironment()
        let printed = try world.run(arguments)
        #expect(printed.status == 0, "\(printed)")
        #expect(printed.stderr.isEmpty, "\(printed)")
        let checkedIn = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent(file), encoding: .utf8)
        #expect(checkedIn == printed.stdout,
                "\(file) differs from `touchgate \(arguments.joined(separator: " "))`: run scripts/generate-docs and commit the result")
    }

    @Test func manPageLintsClean() throws {
        let lint = try Self.system("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", Self.manPagePath])
        #expect(lint.status == 0, "mandoc (scripts/setup installs it): \(lint)")
        #expect(lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
    }

    @Test func manRendersItWithoutWarnings() throws {
        let man = try Self.system("/usr/bin/man", ["-l", Self.manPagePath],
                                  environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""])
        #expect(man.status == 0, "\(man)")
        #expect(man.stderr.isEmpty, "\(man)")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "CONFIGURATION", "LIFECYCLE",
                        "SECURITY MODEL", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
            #expect(man.stdout.contains("\n\(heading)\n"), "no \(heading) section:\n\(man.stdout)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let groff = try Self.system("/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-z", Self.manPagePath])
            #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff)")
        }
    }

    /// Every file of `man/sections` is in the page as it is: one that `ManPageSections` does not
    /// name would be embedded and never printed.
    @Test func manPageHoldsEverySectionFile() throws {
        let folder = TestEnvironment.packageRoot.appendingPathComponent("man/sections")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".roff") }
        #expect(!names.isEmpty, "no section files in \(folder.path)")
        let page = try TestEnvironment().run(["help", "--man"]).stdout
        let missing = try names.filter { name in
            try !page.contains(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
        #expect(missing.isEmpty,
                "not in `touchgate help --man` as they are: \(missing.sorted()) (ManPageSections.swift, scripts/generate-docs)")
    }

    /// The hand-written sections cover what the library defines: every config key has its entry
    /// under CONFIGURATION, every lifecycle event under LIFECYCLE; every command is under COMMANDS.
    @Test func manPageCoversEveryKeyEventAndCommand() throws {
        let world = try TestEnvironment()
        let page = try world.run(["help", "--man"]).stdout
        func section(_ name: String) throws -> String {
            let start = try #require(page.range(of: "\n.SH \(name)\n"), "no \(name)")
            let rest = page[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
        }
        let roff = { (text: String) in text.replacingOccurrences(of: "-", with: "\\-") }
        let configuration = try section("CONFIGURATION")
        for key in Configuration.Key.allCases {
            #expect(configuration.contains(".B \(roff(key.rawValue))\n"), "CONFIGURATION lacks \(key.rawValue)")
        }
        let lifecycle = try section("LIFECYCLE")
        for event in LifecycleEvent.allCases {
            #expect(lifecycle.contains(".B \(roff(event.rawValue))\n"), "LIFECYCLE lacks \(event.rawValue)")
        }
        let commands = try section("COMMANDS")
        for command in CommandTable.commands {
            #expect(commands.contains(".TP\n\\fB\(roff(command.name))\\fR"), "COMMANDS lacks \(command.name)")
        }
    }

    /// Each key's entry under CONFIGURATION states the default `Configuration` has (the one place
    /// the defaults are written): prose that gave another value would drift from the code.
    @Test func configurationStatesEachKeysDefault() throws {
        let text = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("man/sections/configuration.roff"),
                              encoding: .utf8)
        for key in Configuration.Key.allCases {
            let heading = ".TP\n.B \(key.rawValue.replacingOccurrences(of: "-", with: "\\-"))\n"
            let start = try #require(text.range(of: heading), "configuration.roff lacks \(key.rawValue)")
            let rest = text[start.upperBound...]
            let end = [rest.range(of: "\n.TP\n"), rest.range(of: "\n.PP\n")].compactMap { $0?.lowerBound }.min()
            let entry = rest[..<(end ?? rest.endIndex)]
            // As a reader sees it: lines joined, font requests and roff's \- dropped.
            let prose = entry.replacingOccurrences(of: "\n.BR ", with: " ").replacingOccurrences(of: "\n", with: " ")
                .replacingOccurrences(of: "\\-", with: "-")
            let value = Configuration().value(of: key)
            #expect(prose.contains("default \(value)"), "\(key.rawValue): the man page does not say 'default \(value)': \(prose)")
        }
    }

    /// README stays a short user's guide: at most 330 lines, opening with the two set-up
    /// commands; the detail lives in the man pages and docs/.
    @Test func readmeIsAShortGuideOpeningWithTheSetUpCommands() throws {
        let readme = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= 330, "README.md has \(lines.count) lines: move detail to the man pages or docs/")
        #expect(readme.hasPrefix("# touchgate\n\n```sh\nscripts/setup && scripts/build && .build/release/touchgate demo\nscripts/test\n```\n"))
    }

    /// Every relative link of README, CONTRIBUTING and docs/*.md names a file that exists and,
    /// with a `#fragment`, a heading of that Markdown file (GitHub's anchor of it).
    @Test func everyRelativeLinkOfTheGuidesResolves() throws {
        let root = TestEnvironment.packageRoot
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        #expect(docs.contains("docs/install.md"), "\(docs)")
        func anchors(_ file: URL) throws -> Set<String> {
            var inFence = false
            var found: Set<String> = []
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("```") { inFence.toggle(); continue }
                guard !inFence, line.hasPrefix("#") else { continue }
                let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                found.insert(String(title.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }
                    .map { $0 == " " ? "-" : $0 }))
            }
            return found
        }
        var links = 0
        for name in ["README.md", "CONTRIBUTING.md"] + docs {
            let file = root.appendingPathComponent(name)
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.output.1)
                guard target.firstMatch(of: /^[a-z]+:/) == nil else { continue }
                links += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let linked = parts[0].isEmpty ? file : file.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardized
                #expect(FileManager.default.fileExists(atPath: linked.path), "\(name): (\(target)) names no file")
                if parts.count == 2, linked.pathExtension == "md", FileManager.default.fileExists(atPath: linked.path) {
                    #expect(try anchors(linked).contains(String(parts[1])), "\(name): (\(target)) names no heading")
                }
            }
        }
        #expect(links > 20, "found only \(links) relative links")
    }
}
