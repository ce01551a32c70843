import Testing
@testable import TouchGate
@testable import TouchGateCore
@testable import TouchGateStore

/// The settle rule's two forms agree: the SQL the store runs and the Swift the offline ledger
/// runs leave the same counter on every case of the table.
@Suite(.removesItsFiles) struct CounterSettlementTests {
    static let results: [AttemptResult] = [
        .success, .verifiedButCancelled(.appCancel), .failure(.authenticationFailed), .notChecked(.userCancel),
    ]
    static let counters: [(failures: Int, lastFailure: Double?)] = [(0, nil), (1, 900), (5, 950.5), (12, nil)]

    @Test func eachResultSettlesAsTheRuleSays() {
        #expect(CounterSettlement(.success) == .clear)
        #expect(CounterSettlement(.verifiedButCancelled(.systemCancel)) == .clear)
        #expect(CounterSettlement(.failure(.authenticationFailed)) == .stampLastFailure)
        #expect(CounterSettlement(.notChecked(.userFallback)) == .takeBackOne)
        #expect(CounterSettlement.takeBackOne.settled(failures: 0, lastFailure: nil, now: 1).failures == 0)
    }

    @Test(arguments: results)
    func theStoresSQLAndTheLedgersSwiftAgree(result: AttemptResult) throws {
        let database = try Database(path: FilePath(String(temporaryStorePath().dropLast("state/touchgate.sqlite".count)) + "counter.sqlite"), create: true)
        try database.run("CREATE TABLE counter (name TEXT, failures INTEGER NOT NULL, last_failure REAL)")
        let settlement = CounterSettlement(result)
        let now = 1000.0
        for (index, counter) in Self.counters.enumerated() {
            let name = "user\(index)"
            try database.run("INSERT INTO counter VALUES (?, ?, ?)", .text(name), .integer(Int64(counter.failures)),
                             counter.lastFailure.map(DatabaseValue.real) ?? .null)
            if let set = settlement.assignments(failures: "failures", lastFailure: "last_failure", now: now) {
                try database.run("UPDATE counter SET \(set.sql) WHERE name = ?", arguments: set.arguments + [.text(name)])
            }
            let row = try database.rows("SELECT failures, last_failure FROM counter WHERE name = ?", .text(name))[0]
            let swift = settlement.settled(failures: counter.failures, lastFailure: counter.lastFailure, now: now)
            #expect(row[0].int == swift.failures, "\(settlement) of \(counter)")
            #expect(row[1].double == swift.lastFailure, "\(settlement) of \(counter)")
        }
    }

    @Test(arguments: results)
    func aCounterWithoutATimeSettlesItsFailuresAlike(result: AttemptResult) throws {
        let settlement = CounterSettlement(result)
        let set = settlement.assignments(failures: "biometric_failures", lastFailure: nil, now: 1000)
        #expect(set?.sql.contains("NULL") != true)
        #expect(set?.arguments.isEmpty ?? true)
        // A rejected try changes nothing where there is no time to stamp.
        #expect((set == nil) == (settlement == .stampLastFailure))
    }
}
