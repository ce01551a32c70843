import Foundation
import Testing

/// pam_touchgate(8), as touchgate(1) is kept: the checked-in `man/pam_touchgate.8` is what
/// `touchgate-pam-helper --man` prints (scripts/generate-docs writes it), lints clean, and names
/// every option the module's parser takes.
struct PAMModuleManPageTests {
    static let page = TestEnvironment.packageRoot.appendingPathComponent("man/pam_touchgate.8").path

    @Test func theCheckedInPageIsWhatTheHelperPrints() throws {
        let printed = try TestEnvironment.execute(PAMHost.helperBinary, ["--man"], environment: [:])
        #expect(printed.status == 0, "\(printed)")
        let checkedIn = try String(contentsOfFile: Self.page, encoding: .utf8)
        #expect(printed.stdout == checkedIn, "man/pam_touchgate.8 is stale: run scripts/generate-docs")
    }

    /// A section file that `PAMModuleManPage.sections` does not name would be embedded and never printed.
    @Test func everySectionFileIsInThePage() throws {
        let folder = TestEnvironment.packageRoot.appendingPathComponent("man/pam_touchgate/sections")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".roff") }
        #expect(!files.isEmpty)
        let page = try String(contentsOfFile: Self.page, encoding: .utf8)
        for file in files {
            let text = try String(contentsOfFile: folder.appendingPathComponent(file).path, encoding: .utf8)
            #expect(page.contains(text), "man/pam_touchgate/sections/\(file) is not in pam_touchgate(8)")
        }
    }

    @Test func itLintsAndRendersClean() throws {
        try ManPageLint.expectClean(Self.page)
    }

    @Test func everyOptionOfTheModulesParserIsDocumented() throws {
        let source = try String(contentsOfFile: TestEnvironment.packageRoot.appendingPathComponent("PAMModule/pam_touchgate.c").path,
                                encoding: .utf8)
        let page = try String(contentsOfFile: Self.page, encoding: .utf8)
        // The spellings parse_options compares arguments with ("helper=", "factor=biometric", "silent", ...).
        let expression = try NSRegularExpression(pattern: "\\(argument, \"([a-z]+=?[a-z]*)\"")
        let spellings = Set(expression.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
            Range($0.range(at: 1), in: source).map { String(source[$0]) }
        })
        #expect(spellings == ["helper=", "factor=biometric", "factor=passcode", "timeout=", "silent"], "\(spellings)")
        for spelling in spellings {
            #expect(page.contains("\\fB\(spelling)\\fR"), "\(spelling) is not in pam_touchgate(8)")
        }
    }
}
