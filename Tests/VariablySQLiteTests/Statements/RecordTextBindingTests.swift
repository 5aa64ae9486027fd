import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

/// A record's text is copied into a buffer of the statement and bound without SQLite's copy: every row
/// must still store its own text, whatever the buffer went through between rows and within one.
@Suite struct RecordTextBindingTests {
    /// Rows whose texts grow, shrink, are empty or need normalizing, in one statement.
    private func varied(_ count: Int) -> [User] {
        (0..<count).map { index in
            var user = User.sample(index)
            // Up to 64 KiB in one row: the buffer grows in the middle of a row's binds.
            user.userName = String(repeating: "n\(index % 10)", count: (index * 977) % 9_000)
            user.email =
                index == 7 ? "" : "user\(index)@example.com" + String(repeating: "x", count: (index * 131) % 300)
            user.nickname = index % 3 == 0 ? nil : "e\u{301}\(index)"
            user.tags =
                index % 5 == 0 ? [] : ["caf\u{E9}", String(repeating: "t", count: index % 4_000), "\u{3B1}\u{301}"]
            return user
        }
    }

    private func normalized(_ user: User) -> User {
        var user = user
        user.userName = user.userName.precomposedStringWithCanonicalMapping
        user.email = user.email.precomposedStringWithCanonicalMapping
        user.nickname = user.nickname?.precomposedStringWithCanonicalMapping
        user.tags = user.tags.map(\.precomposedStringWithCanonicalMapping)
        return user
    }

    @Test func everyRowKeepsItsOwnTextWhenTheBufferGrowsAndIsReused() throws {
        let (db, _) = try TestDatabase.users()
        let users = varied(60)
        try db.write { try $0.insert(users) }
        let stored = try db.read { try $0.fetchAll(User.self) }
        #expect(stored == users.map(normalized))
        // Stored in NFC, byte for byte.
        let nickname = try db.read { try $0.fetchValue(sql: #"SELECT "nickname" FROM "users" WHERE "id" = 2"#) }
        #expect(nickname == .text("\u{E9}1"))
    }

    @Test func upsertsOverwriteTextWithShorterText() throws {
        let (db, _) = try TestDatabase.users()
        let users = varied(40)
        try db.write { try $0.insert(users) }
        let shorter = users.map { user in
            var user = user
            user.userName = String(user.userName.prefix(3))
            user.tags = ["z"]
            return user
        }
        try db.write { try $0.upsert(shorter) }
        #expect(try db.read { try $0.fetchAll(User.self) } == shorter.map(normalized))
    }

    @Test func aRowThatFailsLeavesTheNextRowsTextIntact() throws {
        let (db, _) = try TestDatabase.users()
        let users = varied(10)
        try db.write { try $0.insert(users) }
        var duplicate = users[3]
        duplicate.userName = String(repeating: "d", count: 70_000)
        try db.write { db throws in
            #expect(throws: SQLiteError.self) { try db.insert(duplicate) }
            var next = User.sample(100)
            next.userName = "after"
            try db.insert(next)
        }
        #expect(try db.read { try $0.fetch(User.self, id: Int64(101)) }?.userName == "after")
    }
}
