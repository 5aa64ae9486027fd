import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

/// A model whose indexed columns cover the cases of the merging upsert: a unique column, an optional
/// column in a two-column index, and columns no index covers.
struct Member: VariablyCodable, Identifiable, Equatable, Sendable {
    var id: Int64
    var handle: String
    var team: String?
    var rank: Int
    var note: String

    init(id: Int64, handle: String, team: String?, rank: Int, note: String) {
        self.id = id
        self.handle = handle
        self.team = team
        self.rank = rank
        self.note = note
    }

    init(from container: DecodingContainer<Member>) throws {
        id = try container.decode(\.id)
        handle = try container.decode(\.handle)
        team = try container.decode(\.team)
        rank = try container.decode(\.rank)
        note = try container.decode(\.note)
    }

    static let keySets = KeySets<Member>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.handle, "handle")
            Key(\.team, "team")
            Key(\.rank, "rank")
            Key(\.note, "note")
        }
    }
}

extension Member: SQLiteStorable {
    static let sqliteTable = SQLiteTable<Member>(
        "members", primaryKey: \.id, [.unique(\.handle), .index(\.team, \.rank)])
}

@Suite struct MergingUpsertTests {
    /// Every entry (the primary key's is never updated): what a pull of every column updates.
    private func allEntries<Model: SQLiteStorable>(_ type: Model.Type) throws -> [Int] {
        try PrimaryKey<Model>().entries(sharedWith: .sqlite)
    }

    private func keys(_ users: [User]) -> [SQLValue] { users.map { .integer($0.id) } }

    /// Logs, per row and column, every `UPDATE` whose `SET` list names one of `columns`: SQLite fires
    /// `UPDATE OF` triggers exactly when it also rewrites those columns' index entries
    /// (https://www.sqlite.org/lang_createtrigger.html).
    private func logUpdates(of columns: [String], on table: String, _ db: Database) throws {
        try db.execute(sql: #"CREATE TABLE "touched" ("id" INTEGER, "column" TEXT)"#)
        for column in columns {
            try db.execute(
                sql: """
                    CREATE TRIGGER "touch_\(column)" AFTER UPDATE OF "\(column)" ON "\(table)"
                    BEGIN INSERT INTO "touched" VALUES (NEW."id", '\(column)'); END
                    """)
        }
    }

    /// The logged updates, as `"id column"`, sorted as strings.
    private func touched(_ db: Database) throws -> [String] {
        try db.fetch(sql: #"SELECT "id", "column" FROM "touched""#).map { row in
            guard case .integer(let id) = row[0], case .text(let column) = row[1] else { return "?" }
            return "\(id) \(column)"
        }.sorted()
    }

    @Test func writesIndexedColumnsOnlyWhenTheirValuesChange() throws {
        let (database, _) = try TestDatabase.users(10)
        var users = User.samples(10)
        for index in users.indices { users[index].score += 1 }
        users[3].userName = "renamed"
        users[5].age += 1
        try database.write { db in
            try logUpdates(of: ["user_name", "age", "email", "score"], on: "users", db)
            let inserted = try db.upsert(users, primaryKeys: keys(users), updatingEntries: allEntries(User.self))
            #expect(inserted == 0)
            let scores = (1...10).map { "\($0) score" }
            #expect(try touched(db) == (scores + ["4 user_name", "6 age"]).sorted())
            #expect(try db.fetchAll(User.self) == users)
        }
    }

    @Test func thePlainUpsertRewritesEveryIndexedColumn() throws {
        // The probe of the test above sees what the merging upsert saves: the plain one names every column.
        let (database, _) = try TestDatabase.users(3)
        try database.write { db in
            try logUpdates(of: ["user_name"], on: "users", db)
            try db.upsert(User.samples(3))
            #expect(try touched(db) == ["1 user_name", "2 user_name", "3 user_name"])
        }
    }

    @Test func newRowsTakeEveryColumnAndExistingRowsKeepTheOthers() throws {
        let (database, recorder) = try TestDatabase.users(4)
        let nickname = try #require(User.keySets[.sqlite]?.index(of: \User.nickname))
        let pulled = try allEntries(User.self).filter { $0 != nickname }
        var users = User.samples(6)
        for index in users.indices {
            users[index].nickname = "server"
            users[index].email = "new\(index)@example.com"
        }
        var twice = users[5]
        twice.userName = "second"
        let batch = users + [twice]
        try database.write { db in
            let inserted = try db.upsert(batch, primaryKeys: keys(batch), updatingEntries: pulled)
            #expect(inserted == 2)
        }
        let stored = try database.read { try $0.fetchAll(User.self) }
        #expect(stored.map(\.nickname) == User.samples(4).map(\.nickname) + ["server", "server"])
        #expect(stored.map(\.email) == users.map(\.email))
        #expect(stored.map(\.userName) == User.samples(5).map(\.userName) + ["second"])
        // New rows are inserted by a plain INSERT (the key that comes twice then by the full upsert),
        // existing ones merged by the two statements.
        #expect(recorder.recorded.contains { $0.hasPrefix(#"UPDATE "users" SET "user_name" = ?1 WHERE "id" = ?2"#) })
    }

    @Test func uniqueValuesMoveBetweenRowsOfOneBatch() throws {
        let (database, _) = try TestDatabase.users(10)
        var users = User.samples(10)
        // A swap, a rotation of three, a value taken from a row that changes later in the batch, and a
        // new row that takes the value of a row changing after it.
        users.swapAt(0, 1)
        (users[0].id, users[1].id) = (users[1].id, users[0].id)
        let emails = users[2...4].map(\.email)
        for (offset, index) in (2...4).enumerated() { users[index].email = emails[(offset + 1) % 3] }
        users[5].email = users[6].email
        users[6].email = "six@example.com"
        var newcomer = User.sample(10)
        newcomer.email = users[8].email
        users[8].email = "eight@example.com"
        let batch = Array(users[0..<8]) + [newcomer] + Array(users[8...])
        try database.write { db in
            let inserted = try db.upsert(batch, primaryKeys: keys(batch), updatingEntries: allEntries(User.self))
            #expect(inserted == 1)
        }
        let stored = try database.read { try $0.fetchAll(User.self) }
        #expect(stored == users + [newcomer])
        #expect(
            try database.read {
                try $0.fetchValue(sql: #"SELECT count(*) FROM "users" WHERE typeof("email") = 'blob'"#)
            } == .integer(0))
    }

    @Test func aUniqueConflictThatRemainsThrowsAndWritesNothing() throws {
        let (database, _) = try TestDatabase.users(10)
        var users = User.samples(3)
        users[0].score = 99
        users[1].email = users[0].email
        users[2].email = User.sample(9).email
        try database.write { db throws in
            #expect(throws: SQLiteError.self) {
                try db.upsert(users, primaryKeys: keys(users), updatingEntries: allEntries(User.self))
            }
            #expect(try db.fetchAll(User.self) == User.samples(10))
        }
    }

    @Test(arguments: [
        (stored: String?.none, pulled: String?.none, isWritten: false),
        (stored: "red", pulled: nil, isWritten: true),
        (stored: nil, pulled: "red", isWritten: true),
        (stored: "red", pulled: "red", isWritten: false),
        (stored: "red", pulled: "blue", isWritten: true),
    ])
    func comparesNullsAsValues(stored: String?, pulled: String?, isWritten: Bool) throws {
        let database = try SQLiteDatabase.inMemory()
        let member = Member(id: 1, handle: "ada", team: stored, rank: 1, note: "old")
        var update = member
        update.team = pulled
        update.note = "new"
        try database.write { db in
            try db.migrate(Member.self)
            try db.insert(member)
            try logUpdates(of: ["handle", "team", "rank", "note"], on: "members", db)
            try db.upsert([update], primaryKeys: [.integer(1)], updatingEntries: allEntries(Member.self))
            // `team` and `rank` share an index: they are written together.
            #expect(try touched(db) == (isWritten ? ["1 note", "1 rank", "1 team"] : ["1 note"]))
            #expect(try db.fetchAll(Member.self) == [update])
        }
    }

    @Test func comparesWithTheBinaryCollationWhateverTheColumnDeclares() throws {
        let database = try SQLiteDatabase.inMemory()
        let member = Member(id: 1, handle: "ada", team: nil, rank: 1, note: "")
        var update = member
        update.handle = "ADA"
        try database.write { db in
            try db.execute(
                sql: #"""
                    CREATE TABLE "members" ("id" INTEGER PRIMARY KEY, "handle" TEXT NOT NULL COLLATE NOCASE UNIQUE,
                        "team" TEXT, "rank" INTEGER NOT NULL, "note" TEXT NOT NULL)
                    """#)
            try db.insert(member)
            try db.upsert([update], primaryKeys: [.integer(1)], updatingEntries: allEntries(Member.self))
            #expect(try db.fetchAll(Member.self) == [update])
        }
    }
}

@Suite struct MergingUpsertPlainInsertTests {
    private func keys(_ users: [User]) -> [SQLValue] { users.map { .integer($0.id) } }
    private var allEntries: [Int] { get throws { try PrimaryKey<User>().entries(sharedWith: .sqlite) } }

    @Test func newKeysAreInsertedWithoutAnUpsert() throws {
        let (database, recorder) = try TestDatabase.users()
        let users = User.samples(5)
        try database.write { db throws in
            #expect(try db.upsert(users, primaryKeys: keys(users), updatingEntries: allEntries, atomically: false) == 5)
        }
        let inserts = recorder.recorded.filter { $0.hasPrefix("INSERT") }
        #expect(inserts.count == 5)
        #expect(!inserts.contains { $0.contains("ON CONFLICT") })
        #expect(try database.read { try $0.fetchAll(User.self) } == users)
    }

    @Test func aNewKeyThatComesTwiceTakesTheLaterModel() throws {
        let (database, _) = try TestDatabase.users()
        let users = User.samples(3)
        var again = users[1]
        again.userName = "later"
        again.email = "later@example.com"
        let batch = users + [again]
        try database.write { db throws in
            #expect(try db.upsert(batch, primaryKeys: keys(batch), updatingEntries: allEntries, atomically: false) == 3)
        }
        #expect(try database.read { try $0.fetchAll(User.self) } == [users[0], again, users[2]])
    }

    @Test func aRowThatTheKeysWronglyCallNewIsStillUpdatedFully() throws {
        let (database, _) = try TestDatabase.users(3)
        var changed = User.sample(1)
        changed.userName = "changed"
        changed.nickname = nil
        try database.write { db in
            _ = try db.upsert([changed], primaryKeys: [.integer(999)], updatingEntries: allEntries)
        }
        #expect(try database.read { try $0.fetchAll(User.self) } == [User.sample(0), changed, User.sample(2)])
    }

    @Test func aNewRowThatAUniqueIndexRefusesStillThrows() throws {
        let (database, _) = try TestDatabase.users(2)
        var newcomer = User.sample(5)
        newcomer.email = User.sample(0).email
        try database.write { db throws in
            #expect(throws: SQLiteError.self) {
                try db.upsert([newcomer], primaryKeys: keys([newcomer]), updatingEntries: allEntries)
            }
            #expect(try db.fetchAll(User.self) == User.samples(2))
        }
    }
}
