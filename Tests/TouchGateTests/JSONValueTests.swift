import Testing
@testable import TouchGate
@testable import TouchGateCore

@Suite struct JSONValueTests {
    @Test func rendersCompactJSONWithOrderedKeys() {
        let value = JSONValue.object([
            ("b", .int(-8)), ("a", .string("x\"y\\z\n\u{1}")), ("c", .array([.bool(true), .null, .double(1.5)])),
        ])
        #expect(value.rendered == #"{"b":-8,"a":"x\"y\\z\n\u0001","c":[true,null,1.5]}"#)
    }

    @Test func controlCharactersOfEveryRangeAreEscaped() {
        #expect(JSONValue.string("a\u{1B}b\u{7F}c\u{9B}d\u{A0}").rendered == #""a\u001bb\u007fc\u009bd\#u{A0}""#)
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(JSONValue.double(.infinity).rendered == "null")
    }
}
