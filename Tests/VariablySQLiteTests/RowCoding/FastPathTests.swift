import Foundation
import Testing
import VariablyCodable
import VariablySQLite

/// Writes read stored struct properties straight from memory; everything else must take the
/// key coder's path and give the same result.
@Suite struct FastPathTests {
    struct Tagged: VariablyCodable, EmptyInitializable, Identifiable, Equatable, Sendable, SQLiteStorable {
        var id: Int64 = 0
        var tags: [String] = []
        var plainTags: [String] = []

        static let keySets = KeySets<Tagged>(defaultSource: .sqlite) {
            KeySet(.sqlite) {
                Key(\.id, "id")
                Key(\.tags, "tags").transform(.commaSeparated)
                Key(\.plainTags, "plain_tags")
            }
        }
    }

    final class Account: VariablyCodable, Identifiable, Equatable, Sendable, SQLiteStorable {
        let id: Int64
        let owner: String
        let balance: Double
        let note: String?

        init(id: Int64, owner: String, balance: Double, note: String?) {
            self.id = id
            self.owner = owner
            self.balance = balance
            self.note = note
        }

        init(from container: DecodingContainer<Account>) throws {
            id = try container.decode(\.id)
            owner = try container.decode(\.owner)
            balance = try container.decode(\.balance)
            note = try container.decode(\.note)
        }

        static func == (lhs: Account, rhs: Account) -> Bool {
            (lhs.id, lhs.owner, lhs.balance, lhs.note) == (rhs.id, rhs.owner, rhs.balance, rhs.note)
        }

        static let keySets = KeySets<Account>(defaultSource: .sqlite) {
            KeySet(.sqlite, style: .snakeCase) {
                Key(\.id)
                Key(\.owner)
                Key(\.balance)
                Key(\.note)
            }
        }
    }

    @Test func keysWithATransformKeepTheCodersPath() throws {
        let db = try SQLiteDatabase.inMemory()
        var value = Tagged()
        value.id = 1
        value.tags = ["a", "b"]
        value.plainTags = ["a", "b"]
        try db.write { db in
            try db.migrate(Tagged.self)
            try db.insert(value)
        }
        let row = try db.read { try $0.fetch(sql: "SELECT tags, plain_tags FROM Tagged") }
        #expect(row.first?.values == ["a,b", #"["a","b"]"#])
        #expect(try db.read { try $0.fetchAll(Tagged.self) } == [value])
    }

    @Test func classModelsTakeTheCodersPath() throws {
        let db = try SQLiteDatabase.inMemory()
        let accounts = [
            Account(id: 1, owner: "a", balance: 1.5, note: nil), Account(id: 2, owner: "b", balance: -2, note: "n"),
        ]
        try db.write { db in
            try db.migrate(Account.self)
            try db.insert(accounts)
            try db.upsert(Account(id: 2, owner: "b2", balance: 3, note: nil))
        }
        #expect(
            try db.read { try $0.fetchAll(Account.self) }
                == [accounts[0], Account(id: 2, owner: "b2", balance: 3, note: nil)])
    }
}
