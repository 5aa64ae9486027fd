// The examples below are the documentation's own lines, kept as the documents have them.
// swift-format-ignore-file
import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite

// The examples of docs/sqlite.md, compiled and run (DocumentationCoverageTests checks that every
// example's lines are here, in order). Keep them in step with the docs.

extension SQLiteDocumentationTests {
    struct User: VariablyCodable, SQLiteStorable, Identifiable, Sendable {
        var id: Int64
        var userName: String
        var email: String
        var age: Int
        var isActive: Bool
        var nickname: String?

        init(id: Int64, userName: String, email: String, age: Int, isActive: Bool, nickname: String? = nil) {
            (self.id, self.userName, self.email, self.age, self.isActive, self.nickname) =
                (id, userName, email, age, isActive, nickname)
        }

        init(from container: DecodingContainer<User>) throws {
            id = try container.decode(\.id)
            userName = try container.decode(\.userName)
            email = try container.decode(\.email)
            age = try container.decode(\.age)
            isActive = try container.decode(\.isActive)
            nickname = try container.decode(\.nickname)
        }

        static let keySets = KeySets<User>(defaultSource: .sqlite) {
            KeySet(.sqlite, style: .snakeCase) {
                Key(\.id); Key(\.userName); Key(\.email); Key(\.age); Key(\.isActive); Key(\.nickname)
            }
        }

        static let sqliteTable = SQLiteTable<User>("users", primaryKey: \.id, [
            .index(\.userName),
            .index(\.age),
            .unique(\.email),
        ])
    }
}

extension SQLiteDocumentationTests.User: Equatable {}

@Suite struct SQLiteDocumentationTests {
    private static let users = (1...50).map { index in
        User(id: Int64(index), userName: "user\(index)", email: "user\(index)@example.com", age: 20 + index % 30,
            isActive: index % 2 == 0)
    }

    @Test func overviewExampleMigratesUpsertsAndQueries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let databasePath = folder.appendingPathComponent("app.sqlite").path
        let users = Self.users

        let db = try SQLiteDatabase(path: databasePath)          // a file path, or SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(User.self)                             // create, or add new columns
            try db.upsert(users)                                  // one statement, one savepoint
        }
        let adults = try db.read { db in
            try db.fetch(User.self, where: #Predicate { $0.age > 30 && $0.isActive },
                         sortedBy: [SortDescriptor(\.userName)], limit: 10)
        }
        let expected = users.filter { $0.age > 30 && $0.isActive }.sorted { $0.userName < $1.userName }.prefix(10)
        #expect(adults == Array(expected))
    }

    @Test func rawSQLExampleReadsRowsByNameAndIndex() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { db in
            try db.migrate(User.self)
            try db.upsert(Self.users)
        }
        try db.write { db in
            try db.execute(sql: "UPDATE users SET age = age + 1 WHERE id = ?", arguments: [42])
            try db.execute(sql: "UPDATE users SET nickname = :nick WHERE id = :id", arguments: ["nick": "bob", "id": 42])
        }
        let rows = try db.read { try $0.fetch(sql: "SELECT user_name, age FROM users WHERE age > ?", arguments: [30]) }
        _ = rows[0]["user_name"]      // SQLValue? : .text("..."); nil when no column has that name
        _ = rows[0][0]                // SQLValue, by column index
        let users = try db.read { try $0.fetch(User.self, sql: "SELECT * FROM users WHERE age > ? LIMIT 10", arguments: [30]) }

        #expect(rows[0]["user_name"] == rows[0][0] && rows[0]["no_such_column"] == nil)
        if case .text(let name) = rows[0][0] { #expect(name.hasPrefix("user")) } else { Issue.record("not text") }
        #expect(users.count == 10 && users.allSatisfy { $0.age > 30 })
        #expect(try db.read { try $0.fetch(User.self, id: 42) }?.nickname == "bob")

        var total: Int64 = 0
        try db.read { db in
            try db.forEach(sql: "SELECT age FROM users WHERE age > ?", arguments: [30]) { row in
                if case .integer(let age) = row[0] { total += age }
            }
        }
        let sum = try db.read { try $0.fetchValue(sql: "SELECT SUM(age) FROM users WHERE age > 30") }
        #expect(total > 0 && sum == .integer(total))
    }

    @Test func constraintErrorsMatchByCode() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try $0.migrate(User.self); try $0.insert(Self.users[0]) }
        var caught = ""
        for user in [User(id: 99, userName: "x", email: Self.users[0].email, age: 1, isActive: true), Self.users[0]] {
            do {
                try db.write { try $0.insert(user) }
            } catch ResultCode.constraintUnique {
                caught += "unique "   // email taken
            } catch ResultCode.constraint {
                caught += "other"     // any other constraint (primary key, NOT NULL, ...)
            }
        }
        #expect(caught == "unique other")
    }

    /// Indexes a property that has no key.
    struct Sticker: SQLiteStorable, EmptyInitializable {
        var id: Int64 = 0
        var label = ""
        static let keySets = KeySets<Sticker>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id") } }
        static let sqliteTable = SQLiteTable<Sticker>("stickers", primaryKey: \.id, [.index(\.label)])
    }

    @Test func declarationErrorsNameTheModelTheKeyPathAndTheFix() throws {
        let db = try SQLiteDatabase.inMemory()
        var described = ""
        do {
            try db.write { try $0.migrate(Sticker.self) }
        } catch let error as DeclarationError {
            print(error)   // Sticker \Sticker.label: the index names a property without a sqlite key. Fix: ...
            described = "\(error)"
        }
        #expect(described.hasPrefix("Sticker \\Sticker.label: the index names a property without a sqlite key. Fix: "))
    }

    @Test func migratorExampleRunsEachStepOnce() throws {
        let db = try SQLiteDatabase.inMemory()
        for _ in 0..<2 {
            var migrator = Migrator()
            migrator.register("v1 users") { db in try db.migrate(User.self) }
            migrator.register("v2 tags") { db in
                try db.execute(sql: #"ALTER TABLE "users" ADD COLUMN "tags" TEXT NOT NULL DEFAULT '[]'"#)
            }
            try migrator.migrate(db)                  // each pending step in its own immediate transaction
        }
        let columns = try db.read { try $0.fetch(sql: #"SELECT name FROM pragma_table_info('users')"#) }
        #expect(columns.contains { $0[0] == .text("tags") })
    }

    @Test func traceExampleSeesTheSQLWithoutValues() throws {
        let recorder = SQLRecorder()
        var configuration = Configuration()
        configuration.trace = { sql in recorder.record(sql) }
        let db = try SQLiteDatabase.inMemory(configuration: configuration)
        try db.write { try $0.execute(sql: "CREATE TABLE t (x)"); try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [7]) }
        #expect(recorder.recorded.contains("INSERT INTO t VALUES (?)"))
    }
}
