import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

// Hostile rows and hostile files for SQLite row decoding: every stored value a column of the shared
// `User` can meet outside of our own writes (another app, a hand edit, an older schema) gives a
// typed error naming the property, or a documented reading; a corrupt file gives `SQLiteError`.

/// What decoding a row with one hostile column value must give.
enum RowOutcome: Sendable {
    /// A `VariablyCodingError` in the `sqlite` source naming the property.
    case error
    /// The row decodes and the check holds (a documented reading).
    case decodes(@Sendable (User) -> Bool)
}

struct HostileColumnValue: Sendable, CustomTestStringConvertible {
    let column: String
    let property: String
    let sql: String
    let outcome: RowOutcome

    // Brief: a 10 MB value would make a 10 MB line of the test log.
    var testDescription: String { "\(column) = \(sql.briefTestDescription)" }
}

enum ReliabilityRows {
    static let user = User.sample(1)

    /// The `users` columns without declared types or constraints, so that any storage class stays as written.
    static let untypedTableSQL = """
        CREATE TABLE "users" ("id" INTEGER PRIMARY KEY, "user_name", "email", "age", "is_active", "score",
        "updated_at", "tags", "nickname", "favorite_post_id")
        """

    static var cases: [HostileColumnValue] {
        let huge = "'" + String(repeating: "x", count: 10 * 1024 * 1024) + "'"
        let deep = "'" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "'"
        func make(_ column: String, _ property: String, _ values: [(String, RowOutcome)]) -> [HostileColumnValue] {
            values.map { HostileColumnValue(column: column, property: property, sql: $0.0, outcome: $0.1) }
        }
        return make(
            "age", "age",
            [
                ("'abc'", .error), ("'42'", .error), ("X'00FF'", .error), ("1.5", .error), ("1e300", .error),
                ("-1e300", .error), ("9223372036854775807", .decodes({ $0.age == Int.max })),
                ("-9223372036854775808", .decodes({ $0.age == Int.min })), ("30.0", .decodes({ $0.age == 30 })),
                ("NULL", .error), (huge, .error),
            ])
            + make(
                "is_active", "isActive",
                [
                    ("2", .decodes({ $0.isActive })), ("-1", .decodes({ $0.isActive })),
                    ("0", .decodes({ !$0.isActive })),
                    ("'true'", .error), ("1.0", .error), ("X''", .error), ("NULL", .error),
                ])
            + make(
                "score", "score",
                [
                    ("'NaN'", .error), ("'Infinity'", .error), ("1e308 * 10", .decodes({ $0.score == .infinity })),
                    ("-1e308 * 10", .decodes({ $0.score == -.infinity })),
                    ("9223372036854775807", .decodes({ $0.score == 9.223372036854775807e18 })),
                    ("X'01'", .error), ("NULL", .error),
                ])
            + make(
                "updated_at", "updatedAt",
                [
                    ("'not a date'", .error), ("'2024-13-45T99:99:99Z'", .error), ("X'01'", .error), ("NULL", .error),
                    ("1e300", .decodes({ $0.updatedAt.timeIntervalSince1970 == 1e300 })),
                    ("-1e300", .decodes({ $0.updatedAt.timeIntervalSince1970 == -1e300 })),
                    ("1700000000", .decodes({ $0.updatedAt.timeIntervalSince1970 == 1_700_000_000 })),
                ])
            + make(
                "user_name", "userName",
                [
                    ("42", .error), ("1.5", .error), ("X'FF00'", .error), ("NULL", .error),
                    // Invalid UTF-8 stored as TEXT reads with U+FFFD replacements (Swift's `String(decoding:)`).
                    ("CAST(X'61FF62' AS TEXT)", .decodes({ $0.userName == "a\u{FFFD}b" })),
                    ("'a' || char(0) || 'b'", .decodes({ $0.userName == "a\0b" })),
                    (huge, .decodes({ $0.userName.utf8.count == 10 * 1024 * 1024 })),
                ])
            + make(
                "tags", "tags",
                [
                    ("'not json'", .error), ("'[1,2]'", .error), ("'[\"a\",'", .error), ("'{}'", .error),
                    (deep, .error),
                    ("'[\"a\\u0000b\"]'", .decodes({ $0.tags == ["a\0b"] })), ("X'5B5D'", .error),
                    ("'[]'", .decodes({ $0.tags == [] })), ("NULL", .decodes({ $0.tags == [] })),
                ])
            + make(
                "nickname", "nickname",
                [("NULL", .decodes({ $0.nickname == nil })), ("42", .error), ("X'00'", .error)])
            + make(
                "favorite_post_id", "favoritePostID",
                [
                    ("NULL", .decodes({ $0.favoritePostID == nil })), ("7", .decodes({ $0.favoritePostID == 7 })),
                    ("'abc'", .error), ("1.5", .error), ("X'07'", .error),
                ])
    }

    static func database(with value: HostileColumnValue) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.execute(sql: untypedTableSQL)
            try db.insert(user)
            if value.column == "id" {
                try db.execute(sql: "UPDATE \"users\" SET \"id\" = \(value.sql)")
            } else {
                try db.execute(sql: "UPDATE \"users\" SET \"\(value.column)\" = \(value.sql)")
            }
        }
        return db
    }
}

@Suite("Reliability: hostile rows and corrupt SQLite files")
struct ReliabilityBadRowCorpusTests {
    @Test(arguments: ReliabilityRows.cases)
    func hostileColumnValueGivesTypedErrorOrDocumentedReading(_ value: HostileColumnValue) throws {
        let db = try ReliabilityRows.database(with: value)
        do {
            let users = try db.read { try $0.fetchAll(User.self) }
            guard case .decodes(let check) = value.outcome else {
                Issue.record(
                    "\(value.testDescription): decoded \(users.first.map { "\($0.userName.prefix(40))" } ?? "-")")
                return
            }
            #expect(users.count == 1)
            #expect(users.first.map(check) == true, "\(value.testDescription)")
        } catch let error as VariablyCodingError {
            guard case .error = value.outcome else {
                Issue.record("\(value.testDescription): \(error)")
                return
            }
            #expect(error.source == .sqlite, "\(error)")
            #expect(error.propertyName == value.property, "\(error)")
            #expect(error.description.contains("User.\(value.property)"), "\(error)")
        }
        // The connection stays usable after a failed decode: its statement was reset.
        #expect(try db.read { try $0.count(User.self) } == 1)
    }

    @Test func hostileColumnValueThroughPredicateQueriesAndHandWrittenSQL() throws {
        let value = HostileColumnValue(column: "age", property: "age", sql: "'abc'", outcome: .error)
        let db = try ReliabilityRows.database(with: value)
        #expect(throws: VariablyCodingError.self) {
            try db.read { try $0.fetch(User.self, where: #Predicate { $0.id == 2 }) }
        }
        #expect(throws: VariablyCodingError.self) {
            try db.read { try $0.fetch(User.self, sql: "SELECT * FROM users") }
        }
        #expect(throws: VariablyCodingError.self) { try db.read { try $0.fetch(User.self, id: 2) } }
        // A query that selects no column of the property decodes the property as missing: an error
        // for a required property, not a crash.
        #expect(throws: VariablyCodingError.self) {
            try db.read { try $0.fetch(User.self, sql: "SELECT id FROM users") }
        }
    }

    // MARK: - Corrupt files

    static func writeValidDatabase(at path: String, count: Int) throws {
        let db = try SQLiteDatabase(path: path)
        try db.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(count))
        }
        // Move the WAL into the main file, so that the file alone holds the data.
        try db.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Opens `path` and reads everything; returns what failed, or nil. Never crashes.
    static func exercise(_ path: String) -> String? {
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.read { try $0.fetchAll(User.self) }
            _ = try db.read { try $0.count(User.self, where: #Predicate { $0.age > 30 }) }
            let check = try db.read { try $0.fetchValue(sql: "PRAGMA integrity_check") }
            if check != .text("ok") { return "integrity_check: \(check.map { "\($0)" } ?? "nil")" }
            try db.write { try $0.insert(User.sample(50_000)) }
            return nil
        } catch let error as SQLiteError {
            return "SQLiteError \(error.code)"
        } catch let error as VariablyCodingError {
            return "VariablyCodingError \(error.reason)"
        } catch let error as SchemaMismatchError {
            return "SchemaMismatchError \(error)"
        } catch {
            Issue.record("untyped error \(type(of: error)): \(error)")
            return "untyped"
        }
    }

    @Test func garbageFileIsNotADatabase() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        var random = ReliabilityRandom(seed: 11)
        let path = directory.path("garbage.sqlite")
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(
            to: URL(fileURLWithPath: path))
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.read { try $0.count(User.self) }
            Issue.record("a garbage file opened as a database")
        } catch let error as SQLiteError {
            #expect(error.code.primary == .notADatabase, "\(error)")
        }
    }

    @Test func emptyFileOpensAsAnEmptyDatabase() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let db = try SQLiteDatabase(path: path)
        try db.write { try $0.migrate(User.self) }
        #expect(try db.read { try $0.count(User.self) } == 0)
    }

    @Test func seededCorruptionsGiveTypedErrorsNeverCrashes() throws {
        let directory = try ReliabilityTemporaryDirectory()
        defer { directory.remove() }
        let original = directory.path("original.sqlite")
        try Self.writeValidDatabase(at: original, count: 2_000)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        #expect(bytes.count > 64 * 1024)
        var random = ReliabilityRandom(seed: 12)
        var outcomes: [String: Int] = [:]
        let rounds = ReliabilityBudget.iterations(40)
        for round in 0..<rounds {
            var corrupted = [UInt8](bytes)
            switch round % 4 {
            case 0:
                // Truncated, as by a full disk or a partial copy.
                corrupted = Array(corrupted.prefix(Int.random(in: 0..<corrupted.count, using: &random)))
            case 1:
                // Whole pages overwritten with noise.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let page = Int.random(in: 0..<(corrupted.count / 4096), using: &random)
                    for index in page * 4096..<min((page + 1) * 4096, corrupted.count) {
                        corrupted[index] = UInt8.random(in: 0...255, using: &random)
                    }
                }
            case 2:
                // Scattered bytes, the header included.
                for _ in 0..<Int.random(in: 1...64, using: &random) {
                    let index =
                        Bool.random(using: &random)
                        ? Int.random(in: 0..<100, using: &random) : Int.random(in: 0..<corrupted.count, using: &random)
                    corrupted[index] = UInt8.random(in: 0...255, using: &random)
                }
            default:
                // A page of zeros in the middle of the b-tree.
                let page = Int.random(in: 1..<(corrupted.count / 4096), using: &random)
                for index in page * 4096..<min((page + 1) * 4096, corrupted.count) { corrupted[index] = 0 }
            }
            let path = directory.path("corrupt-\(round).sqlite")
            try Data(corrupted).write(to: URL(fileURLWithPath: path))
            let outcome = Self.exercise(path) ?? "readable"
            outcomes[outcome.components(separatedBy: ":").first ?? outcome, default: 0] += 1
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        #expect(outcomes["untyped", default: 0] == 0)
        #expect(outcomes.values.reduce(0, +) == rounds)
    }
}
