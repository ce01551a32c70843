import TouchGateCore

/// How a counted attempt's result settles one lockout counter (a failure count and the time of
/// the last failure): the one rule the store (in SQL) and the offline ledger (in Swift) share.
///
/// An attempt is counted as a failure when it is admitted, before any secret reaches PAM, so a
/// crash leaves it counted; the settlement then clears the counter on a verified credential,
/// stamps the failure's time on a rejected one, and takes the advance count back when nothing
/// was checked. The SQL text and the Swift function sit side by side here, and
/// `CounterSettlementTests` holds them to each other on a table of cases.
package enum CounterSettlement: Equatable, Sendable {
    /// A verified credential (even one cancelled afterwards): no failures, no last failure.
    case clear
    /// A rejected credential: the advance count stands, the last failure is now.
    case stampLastFailure
    /// Nothing was checked: the advance count is taken back (never below zero).
    case takeBackOne

    /// The settlement of `result`.
    package init(_ result: AttemptResult) {
        switch result {
        case .success, .verifiedButCancelled: self = .clear
        case .failure: self = .stampLastFailure
        case .notChecked: self = .takeBackOne
        }
    }

    /// The counter after this settlement, at `now`.
    package func settled(failures: Int, lastFailure: Double?, now: Double) -> (failures: Int, lastFailure: Double?) {
        switch self {
        case .clear: (0, nil)
        case .stampLastFailure: (failures, now)
        case .takeBackOne: (max(0, failures - 1), lastFailure)
        }
    }

    /// The same settlement as an SQL `SET` list over the columns `failures` and `lastFailure`,
    /// with its arguments (the time, for ``stampLastFailure``); `nil` when nothing changes.
    /// `lastFailure` is `nil` for a counter without a time (the biometric failures).
    func assignments(failures: String, lastFailure: String?, now: Double) -> (sql: String, arguments: [DatabaseValue])? {
        switch self {
        case .clear: ("\(failures) = 0" + (lastFailure.map { ", \($0) = NULL" } ?? ""), [])
        case .stampLastFailure: lastFailure.map { ("\($0) = ?", [.real(now)]) }
        case .takeBackOne: ("\(failures) = max(0, \(failures) - 1)", [])
        }
    }
}
