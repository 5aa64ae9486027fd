import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

/// One predicate form: the SQL it must become, and the predicate itself, which also runs in memory.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    let name: String
    let condition: String
    let arguments: [SQLValue]
    let predicate: Predicate<User>

    var testDescription: String { name }
}

private let names = ["ab", "x", "fo", "Abab"]
private let noNames: [String] = []
private let minimumAge = 30
private let noNickname: String? = nil
private let someNickname: String? = "n1"
private let cutoff = Date(timeIntervalSince1970: 1_700_000_500)

let predicateCases: [PredicateCase] = makePredicateCases()

// One statement per case: a single literal of this many macro expansions is too much for the type checker.
private func makePredicateCases() -> [PredicateCase] {
    var cases: [PredicateCase] = []
    cases.append(
        PredicateCase(
            name: "greater than a captured value", condition: #""age" > ?"#, arguments: [30],
            predicate: #Predicate { $0.age > minimumAge }))
    cases.append(
        PredicateCase(
            name: "less or equal", condition: #""age" <= ?"#, arguments: [20],
            predicate: #Predicate { $0.age <= 20 }))
    cases.append(
        PredicateCase(
            name: "greater or equal on a REAL", condition: #""score" >= ?"#, arguments: [50.5],
            predicate: #Predicate { $0.score >= 50.5 }))
    cases.append(
        PredicateCase(
            name: "less than on a Date", condition: #""updated_at" < ?"#, arguments: [.real(1_700_000_500)],
            predicate: #Predicate { $0.updatedAt < cutoff }))
    cases.append(
        PredicateCase(
            name: "equal", condition: #""user_name" = ?"#, arguments: ["ab"],
            predicate: #Predicate { $0.userName == "ab" }))
    cases.append(
        PredicateCase(
            name: "not equal", condition: #""age" != ?"#, arguments: [40],
            predicate: #Predicate { $0.age != 40 }))
    cases.append(
        PredicateCase(
            name: "boolean column", condition: #""is_active""#, arguments: [],
            predicate: #Predicate { $0.isActive }))
    cases.append(
        PredicateCase(
            name: "boolean equal", condition: #""is_active" = ?"#, arguments: [0],
            predicate: #Predicate { $0.isActive == false }))
    cases.append(
        PredicateCase(
            name: "and", condition: #""age" > ? AND "is_active""#, arguments: [30],
            predicate: #Predicate { $0.age > 30 && $0.isActive }))
    cases.append(
        PredicateCase(
            name: "or", condition: #""age" < ? OR "age" > ?"#, arguments: [20, 60],
            predicate: #Predicate { $0.age < 20 || $0.age > 60 }))
    cases.append(
        PredicateCase(
            name: "nested and/or", condition: #"("age" < ? OR "age" > ?) AND NOT "is_active""#, arguments: [20, 60],
            predicate: #Predicate { ($0.age < 20 || $0.age > 60) && !$0.isActive }))
    cases.append(
        PredicateCase(
            name: "not", condition: #"NOT ("age" > ? AND "is_active")"#, arguments: [30],
            predicate: #Predicate { !($0.age > 30 && $0.isActive) }))
    cases.append(
        PredicateCase(
            name: "equal to nil", condition: #""nickname" IS NULL"#, arguments: [],
            predicate: #Predicate { $0.nickname == nil }))
    cases.append(
        PredicateCase(
            name: "not equal to nil", condition: #""nickname" IS NOT NULL"#, arguments: [],
            predicate: #Predicate { $0.nickname != nil }))
    cases.append(
        PredicateCase(
            name: "optional equal to a value", condition: #""nickname" IS ?"#, arguments: ["n1"],
            predicate: #Predicate { $0.nickname == someNickname }))
    cases.append(
        PredicateCase(
            name: "optional not equal to a value keeps NULL rows", condition: #""nickname" IS NOT ?"#,
            arguments: ["n1"], predicate: #Predicate { $0.nickname != someNickname }))
    cases.append(
        PredicateCase(
            name: "optional equal to a nil capture", condition: #""nickname" IS NULL"#, arguments: [],
            predicate: #Predicate { $0.nickname == noNickname }))
    cases.append(
        PredicateCase(
            name: "nil coalescing", condition: #"COALESCE("nickname", ?) = ?"#, arguments: ["ab", "ab"],
            predicate: #Predicate { ($0.nickname ?? "ab") == "ab" }))
    cases.append(
        PredicateCase(
            name: "forced unwrap", condition: #""nickname" IS NOT NULL AND "nickname" = ?"#, arguments: ["n2"],
            predicate: #Predicate { $0.nickname != nil && $0.nickname! == "n2" }))
    cases.append(
        PredicateCase(
            name: "arithmetic", condition: #""age" + ? > ?"#, arguments: [5, 60],
            predicate: #Predicate { $0.age + 5 > 60 }))
    cases.append(
        PredicateCase(
            name: "arithmetic on two columns", condition: #""age" * ? - "age" < ?"#, arguments: [2, 25],
            predicate: #Predicate { $0.age * 2 - $0.age < 25 }))
    cases.append(
        PredicateCase(
            name: "integer division and remainder", condition: #""age" / ? = ? AND "age" % ? = ?"#,
            arguments: [10, 3, 2, 0], predicate: #Predicate { $0.age / 10 == 3 && $0.age % 2 == 0 }))
    cases.append(
        PredicateCase(
            name: "float division", condition: #""score" / ? > ?"#, arguments: [2.0, 40.0],
            predicate: #Predicate { $0.score / 2 > 40 }))
    cases.append(
        PredicateCase(
            name: "string contains",
            condition: #"instr(CAST("user_name" AS BLOB), ?) > 0 AND variably_contains("user_name", ?)"#,
            arguments: [.blob(Data("ab".utf8)), "ab"], predicate: #Predicate { $0.userName.contains("ab") }))
    cases.append(
        PredicateCase(
            name: "contains is case-sensitive like Swift",
            condition: #"instr(CAST("user_name" AS BLOB), ?) > 0 AND variably_contains("user_name", ?)"#,
            arguments: [.blob(Data("Ab".utf8)), "Ab"], predicate: #Predicate { $0.userName.contains("Ab") }))
    cases.append(
        PredicateCase(
            name: "contains matches percent literally",
            condition: #"instr(CAST("user_name" AS BLOB), ?) > 0 AND variably_contains("user_name", ?)"#,
            arguments: [.blob(Data("c%".utf8)), "c%"], predicate: #Predicate { $0.userName.contains("c%") }))
    cases.append(
        PredicateCase(
            name: "contains matches underscore and backslash literally",
            condition: #"instr(CAST("user_name" AS BLOB), ?) > 0 AND variably_contains("user_name", ?)"#,
            arguments: [.blob(Data("d_e\\".utf8)), "d_e\\"],
            predicate: #Predicate { $0.userName.contains("d_e\\") }))
    cases.append(
        PredicateCase(
            name: "starts with", condition: #""user_name" LIKE ? ESCAPE '\' AND variably_starts_with("user_name", ?)"#,
            arguments: ["ab%", "ab"],
            predicate: #Predicate { $0.userName.starts(with: "ab") }))
    cases.append(
        PredicateCase(
            name: "starts with a wildcard",
            condition: #""user_name" LIKE ? ESCAPE '\' AND variably_starts_with("user_name", ?)"#,
            arguments: [#"\_%"#, "_"],
            predicate: #Predicate { $0.userName.starts(with: "_") }))
    cases.append(
        PredicateCase(
            name: "captured collection contains", condition: #""user_name" IN (?, ?, ?, ?)"#,
            arguments: ["ab", "x", "fo", "Abab"], predicate: #Predicate { names.contains($0.userName) }))
    cases.append(
        PredicateCase(
            name: "captured empty collection", condition: "0", arguments: [],
            predicate: #Predicate { noNames.contains($0.userName) }))
    cases.append(
        PredicateCase(
            name: "array column contains",
            condition: #"EXISTS (SELECT 1 FROM json_each("tags") WHERE json_each.value = ?)"#,
            arguments: ["red"], predicate: #Predicate { $0.tags.contains("red") }))
    cases.append(
        PredicateCase(
            name: "ternary", condition: #"CASE WHEN "is_active" THEN "age" ELSE ? END > ?"#, arguments: [0, 40],
            predicate: #Predicate { ($0.isActive ? $0.age : 0) > 40 }))
    cases.append(
        PredicateCase(
            name: "unary minus", condition: #"-"age" < ?"#, arguments: [-50],
            predicate: #Predicate { -$0.age < -50 }))
    cases.append(
        PredicateCase(
            name: "optional chaining",
            condition: #"(instr(CAST("nickname" AS BLOB), ?) > 0 AND variably_contains("nickname", ?)) IS ?"#,
            arguments: [.blob(Data("1".utf8)), "1", 1],
            predicate: #Predicate { $0.nickname.flatMap { $0.contains("1") } == true }))
    cases.append(
        PredicateCase(
            name: "if let", condition: #"COALESCE("nickname" = ?, ?)"#, arguments: ["ab", 0],
            predicate: #Predicate { if let nickname = $0.nickname { nickname == "ab" } else { false } }))
    return cases
}

@Suite struct PredicateTests {
    static let users = User.random(400, seed: 0x5EED)

    private static func database() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(User.self)
            try db.insert(users)
        }
        return db
    }

    @Test(arguments: predicateCases)
    func translatesToParameterizedSQL(_ form: PredicateCase) throws {
        let query = try SQLQuery.condition(form.predicate)
        #expect(query.sql == form.condition)
        #expect(query.arguments == form.arguments)
    }

    @Test(arguments: predicateCases)
    func returnsWhatTheSameFilterReturnsInMemory(_ form: PredicateCase) throws {
        let db = try Self.database()
        let fetched = try db.read { try $0.fetch(User.self, where: form.predicate, sortedBy: [SortDescriptor(\.id)]) }
        let expected = try Self.users.filter { try form.predicate.evaluate($0) }
        #expect(fetched == expected)
        #expect(try db.read { try $0.count(User.self, where: form.predicate) } == expected.count)
    }

    @Test func sortLimitAndOffset() throws {
        let db = try Self.database()
        let query = try SQLQuery.select(
            User.self, where: #Predicate { $0.age > 30 && $0.isActive },
            sortedBy: [SortDescriptor(\.userName), SortDescriptor(\.id, order: .reverse)], limit: 10, offset: 5)
        #expect(
            query.sql.hasPrefix(
                #"SELECT "id", "user_name", "email", "age", "is_active", "score", "updated_at", "tags", "nickname", "favorite_post_id" FROM "users""#
            ))
        #expect(
            query.sql.hasSuffix(#"WHERE "age" > ? AND "is_active" ORDER BY "user_name", "id" DESC LIMIT ? OFFSET ?"#))
        #expect(query.arguments == [30, 10, 5])
        let fetched = try db.read {
            try $0.fetch(
                User.self, where: #Predicate { $0.age > 30 && $0.isActive },
                sortedBy: [SortDescriptor(\.userName), SortDescriptor(\.id, order: .reverse)], limit: 10, offset: 5)
        }
        // SQLite compares text by bytes; for these ASCII names that is Swift's `<`.
        let expected = Self.users.filter { $0.age > 30 && $0.isActive }
            .sorted { ($0.userName, -$0.id) < ($1.userName, -$1.id) }
        #expect(fetched == Array(expected[5..<15]))
    }

    @Test func offsetWithoutLimit() throws {
        let query = try SQLQuery.select(User.self, offset: 390)
        #expect(query.sql.hasSuffix("LIMIT ? OFFSET ?"))
        #expect(query.arguments == [-1, 390])
        let db = try Self.database()
        #expect(
            try db.read { try $0.fetch(User.self, sortedBy: [SortDescriptor(\.id)], offset: 390) }
                == Array(Self.users[390...]))
    }

    @Test func aQueryOnAnIndexedColumnUsesTheIndex() throws {
        let db = try Self.database()
        let query = try SQLQuery.select(
            User.self, where: #Predicate { $0.age > 60 }, sortedBy: [SortDescriptor(\.age)], limit: 100)
        let plan = try db.read {
            try $0.fetch(sql: "EXPLAIN QUERY PLAN " + query.sql, arguments: StatementArguments(query.arguments)).map {
                "\($0[3])"
            }
        }
        #expect(plan.contains { $0.contains("USING INDEX users_on_age_is_active_") }, "\(plan)")
    }

    @Test func aPrefixSearchUsesTheIndex() throws {
        // https://www.sqlite.org/optoverview.html#the_like_optimization: case-sensitive LIKE on a
        // BINARY-indexed column, with a bound prefix that does not start with a wildcard.
        let db = try Self.database()
        let query = try SQLQuery.select(User.self, where: #Predicate { $0.userName.starts(with: "ab") })
        let plan = try db.read {
            try $0.fetch(sql: "EXPLAIN QUERY PLAN " + query.sql, arguments: StatementArguments(query.arguments)).map {
                "\($0[3])"
            }
        }
        #expect(plan.contains { $0.contains("USING INDEX users_on_user_name_4860fb360fe8a643") }, "\(plan)")
    }

    @Test func unsupportedExpressionsThrowNamingTheExpression() throws {
        let db = try Self.database()
        do {
            _ = try db.read { try $0.fetch(User.self, where: #Predicate { $0.userName.count > 3 }) }
            Issue.record("No error")
        } catch let error as QueryTranslationError {
            #expect(error.expression.hasPrefix(#"\User.userName."#))
            #expect(error.description.contains("sqlite key set has no column"))
        }
        do {
            _ = try SQLQuery.condition(#Predicate<User> { $0.tags.allSatisfy { $0.starts(with: "r") } })
            Issue.record("No error")
        } catch let error as QueryTranslationError {
            #expect(error.expression.hasPrefix("PredicateExpressions.SequenceAllSatisfy<"))
            #expect(error.description.contains("no SQL translation"))
        }
    }

    @Test func untranslatablePredicatesCanBeEvaluatedInMemoryOnRequest() throws {
        let db = try Self.database()
        let predicate = #Predicate<User> { $0.userName.count > 4 }
        let fetched = try db.read {
            try $0.fetch(
                User.self, where: predicate, sortedBy: [SortDescriptor(\.id)], limit: 3,
                ifUntranslatable: .evaluateInMemory)
        }
        #expect(fetched == Array(Self.users.filter { $0.userName.count > 4 }.prefix(3)))
    }

    @Test func sortDescriptorsOnUnmappedKeyPathsThrow() throws {
        #expect(throws: QueryTranslationError.self) {
            try SQLQuery.select(User.self, sortedBy: [SortDescriptor(\.userName.count)])
        }
    }
}
