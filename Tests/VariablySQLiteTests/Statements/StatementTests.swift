import Foundation
import Testing
import VariablySQLite
import VariablyTestSupport

@Suite struct StatementTests {
    private func database() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.execute(sql: "CREATE TABLE t (a, b)") }
        return db
    }

    @Test(arguments: [SQLValue.null, 42, -1, 1.5, "text", "", .blob(Data([0, 1, 0xFF])), .blob(Data())])
    func sqlValuesRoundTrip(_ value: SQLValue) throws {
        let db = try database()
        let fetched = try db.write { db in
            try db.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [value])
            return try db.fetchValue(sql: "SELECT a FROM t")
        }
        #expect(fetched == value)
    }

    @Test func bindsByIndexAndByName() throws {
        let db = try database()
        let rows = try db.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO t (a, b) VALUES (?2, ?1)")
            try statement.bind("one", at: 1)
            try statement.bind(2, at: 2)
            try statement.step()
            try db.execute(sql: "INSERT INTO t (a, b) VALUES (:a, @b)", arguments: ["a": 3, "b": "four"])
            return try db.fetch(sql: "SELECT a, b FROM t ORDER BY a")
        }
        #expect(rows.map(\.values) == [[2, "one"], [3, "four"]])
        #expect(rows[1]["B"] == "four")
        #expect(rows[0].columnNames == ["a", "b"])
    }

    @Test func statementsStepAndReadColumnsByIndex() throws {
        let db = try database()
        try db.write { db in
            try db.execute(sql: "INSERT INTO t (a, b) VALUES (1, 'x'), (2, NULL), (3, X'00FF')")
            let statement = try db.makeStatement(sql: "SELECT a, b FROM t WHERE a >= ? ORDER BY a")
            #expect(statement.isReadOnly)
            #expect(statement.columnNames == ["a", "b"])
            #expect(statement.parameterCount == 1)
            try statement.bind([2])
            var values: [[SQLValue]] = []
            while try statement.step() {
                values.append([statement.value(at: 0), statement.value(at: 1)])
                #expect(statement.int64(at: 0) >= 2)
            }
            #expect(values == [[2, .null], [3, .blob(Data([0, 0xFF]))]])
            // Bound again, it runs from the start.
            try statement.bind([3])
            #expect(try statement.step())
            #expect(statement.int64(at: 0) == 3)
            #expect(try db.makeStatement(sql: "DELETE FROM t").isReadOnly == false)
        }
    }

    @Test func onlyOneStatementIsPreparedAtATime() throws {
        let db = try database()
        #expect {
            try db.write { _ = try $0.makeStatement(sql: "SELECT 1; SELECT 2") }
        } throws: { error in
            (error as? SQLiteError)?.code == .misuse
        }
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try database()
        try db.write { db in
            let first = try db.cachedStatement(sql: "SELECT a FROM t")
            let second = try db.cachedStatement(sql: "SELECT a FROM t")
            #expect(first === second)
            #expect(try db.makeStatement(sql: "SELECT a FROM t") !== first)
        }
    }

    @Test func theStatementCacheIsBounded() throws {
        var configuration = Configuration()
        configuration.statementCacheCapacity = 2
        let db = try SQLiteDatabase.inMemory(configuration: configuration)
        try db.write { db in
            let first = try db.cachedStatement(sql: "SELECT 1")
            #expect(try db.cachedStatement(sql: "SELECT 1") === first)
            _ = try db.cachedStatement(sql: "SELECT 2")
            _ = try db.cachedStatement(sql: "SELECT 3")
            #expect(try db.cachedStatement(sql: "SELECT 1") !== first)
        }
    }

    @Test func wrongArgumentCountThrowsRange() throws {
        let db = try database()
        #expect {
            try db.write { try $0.execute(sql: "INSERT INTO t (a, b) VALUES (?, ?)", arguments: [1]) }
        } throws: { error in
            (error as? SQLiteError)?.code == .range
        }
    }

    @Test func syntaxErrorsCarryCodeMessageAndSQL() throws {
        let db = try database()
        do {
            _ = try db.read { try $0.fetch(sql: "SELEC a FROM t") }
            Issue.record("No error")
        } catch let error as SQLiteError {
            #expect(error.code == .error)
            #expect(error.message?.contains("syntax error") == true)
            #expect(error.sql == "SELEC a FROM t")
            #expect(error.description.contains("SELEC a FROM t"))
        }
    }

    @Test func argumentsAreReachableButNotPrinted() throws {
        let db = try database()
        try db.write { try $0.execute(sql: "CREATE UNIQUE INDEX t_a ON t (a)") }
        let secret = "s3cr3t-password"
        do {
            try db.write { db in
                try db.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [secret])
                try db.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [secret])
            }
            Issue.record("No error")
        } catch let error as SQLiteError {
            #expect(error.code == .constraintUnique)
            #expect(error.arguments?.positional == [.text(secret)])
            #expect(!error.description.contains(secret))
            #expect(!"\(error)".contains(secret))
            #expect(error.description.contains("UNIQUE constraint failed"))
        }
    }

    @Test func runtimeErrorsOfQueriesCarryTheirArguments() throws {
        let db = try database()
        do {
            // https://www.sqlite.org/lang_corefunc.html#abs: abs(-9223372036854775808) is an integer overflow.
            _ = try db.read { try $0.fetch(sql: "SELECT abs(?)", arguments: [Int64.min]) }
            Issue.record("No error")
        } catch let error as SQLiteError {
            #expect(error.arguments?.positional == [.integer(Int64.min)])
            #expect(!error.description.contains("9223372036854775808"))
        }
    }

    @Test func constraintErrorsMatchInCatchByPrimaryAndExtendedCode() throws {
        let db = try database()
        try db.write { try $0.execute(sql: "CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT NOT NULL)") }
        var caught: [String] = []
        for sql in ["INSERT INTO u (id, name) VALUES (1, NULL)", "INSERT INTO u (id, name) VALUES (1, 'a')"] {
            do {
                try db.write { try $0.execute(sql: sql) }
            } catch ResultCode.constraintUnique {
                caught.append("unique")
            } catch ResultCode.constraintNotNull {
                caught.append("not null")
            } catch {
                caught.append("other \(error)")
            }
        }
        do {
            try db.write { try $0.execute(sql: "INSERT INTO u (id, name) VALUES (1, 'b')") }
        } catch ResultCode.constraint {
            caught.append("constraint")
        }
        #expect(caught == ["not null", "constraint"])
        #expect(ResultCode.constraint.matches(.constraintPrimaryKey))
        #expect(!ResultCode.constraintUnique.matches(.constraintPrimaryKey))
    }

    @Test(
        arguments: [
            "'; DROP TABLE t; --", "Robert'); DROP TABLE Students;--", "\" OR 1=1 --", "a\u{0}b", "%_\\",
            "😀 ünïcødé", String(repeating: "x", count: 100_000),
        ].map(HostileString.init))
    func hostileStringsAreStoredVerbatim(_ hostile: HostileString) throws {
        let value = hostile.value
        let db = try database()
        let rows = try db.write { db in
            try db.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [value])
            return try db.fetch(sql: "SELECT a FROM t WHERE a = ?", arguments: [value])
        }
        #expect(rows.map { $0[0] } == [.text(value)])
        #expect(try db.read { try $0.tableExists("t") })
    }

    @Test func multipleStatementsRunWithoutArguments() throws {
        let db = try database()
        let count = try db.write { db in
            try db.execute(sql: "INSERT INTO t (a) VALUES (1); INSERT INTO t (a) VALUES (2);")
            return try db.fetchValue(sql: "SELECT COUNT(*) FROM t")
        }
        #expect(count == 2)
    }

    @Test func forEachStreamsRowsInOrderAndStopsAtAThrow() throws {
        let db = try database()
        try db.write { db in
            for index in 1...100 {
                try db.execute(sql: "INSERT INTO t (a, b) VALUES (?, ?)", arguments: [index, "x\(index)"])
            }
        }
        var seen: [Int64] = []
        try db.read { db in
            try db.forEach(sql: "SELECT a, b FROM t WHERE a > :low ORDER BY a", arguments: ["low": 90]) { row in
                #expect(row.columnNames == ["a", "b"])
                if case .integer(let a) = row["a"] { seen.append(a) }
                // A nested query on the same connection, even of the same SQL, does not disturb the outer one.
                _ = try db.fetch(sql: "SELECT a, b FROM t WHERE a > :low ORDER BY a", arguments: ["low": 99])
            }
        }
        #expect(seen == Array(91...100))

        struct Stop: Error {}
        var visited = 0
        #expect(throws: Stop.self) {
            try db.read { db in
                try db.forEach(sql: "SELECT a FROM t") { _ in
                    visited += 1
                    if visited == 3 { throw Stop() }
                }
            }
        }
        #expect(visited == 3)
        let error = #expect(throws: SQLiteError.self) {
            try db.read { try $0.forEach(sql: "SELECT nope FROM t", arguments: [1]) { _ in } }
        }
        #expect(error?.sql == "SELECT nope FROM t")
    }
}

/// A string argument that shows itself briefly in the test log (a 100,000-character one by its length).
struct HostileString: Sendable, CustomTestStringConvertible {
    let value: String

    var testDescription: String { value.briefTestDescription.debugDescription }
}
