/// A value stored in or bound to an SQLite column.
enum DatabaseValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var int: Int? { if case .integer(let value) = self { Int(value) } else { nil } }
    var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    var string: String? { if case .text(let value) = self { value } else { nil } }
}

extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: Double?) { self = value.map(DatabaseValue.real) ?? .null }
    init(_ value: String?) { self = value.map(DatabaseValue.text) ?? .null }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
