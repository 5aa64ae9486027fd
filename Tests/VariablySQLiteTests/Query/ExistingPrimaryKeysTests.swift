import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablyTestSupport

private struct Label: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Sendable {
    var id = ""
    static let keySets = KeySets<Label>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id") } }
    static let sqliteTable = SQLiteTable<Label>("labels", primaryKey: \.id)
}

private struct Counter: VariablyCodable, EmptyInitializable, SQLiteStorable, Identifiable, Sendable {
    var id = 0
    static let keySets = KeySets<Counter>(defaultSource: .sqlite) { KeySet(.sqlite) { Key(\.id, "id") } }
    static let sqliteTable = SQLiteTable<Counter>("counters", primaryKey: \.id)
}

@Suite struct ExistingPrimaryKeysTests {
    @Test func modelsKeysAreTheKeysOfTheirIDsOneByOne() throws {
        let labels = ["cafe\u{301}", "b"].map { id in Label(id: id) }
        let labelKey = try PrimaryKey<Label>()
        #expect(try labelKey.sqlValues(ofModels: labels) == labels.map { try labelKey.sqlValue(of: $0.id) })
        #expect(try labelKey.sqlValues(ofModels: labels) == [.text("caf\u{e9}"), .text("b")])  // NFC
        let counters = [3, -1].map { id in Counter(id: id) }
        let counterKey = try PrimaryKey<Counter>()
        #expect(try counterKey.sqlValues(ofModels: counters) == [.integer(3), .integer(-1)])
        #expect(try counterKey.sqlValues(ofModels: counters) == counters.map { try counterKey.sqlValue(of: $0.id) })
        let users = User.samples(2)
        #expect(try PrimaryKey<User>().sqlValues(ofModels: users) == users.map { .integer($0.id) })
    }

    private func lookups(_ recorder: SQLRecorder) -> [String] {
        recorder.recorded.filter { $0.contains(" IN (") }
    }

    @Test func integerKeysAboveTheLargestAreNewWithoutALookupPerKey() throws {
        let (database, recorder) = try TestDatabase.users(10)
        recorder.reset()
        let found = try database.read { try $0.existingPrimaryKeys(User.self, among: (11...20).map { .integer($0) }) }
        #expect(found.isEmpty)
        #expect(lookups(recorder).isEmpty)
    }

    @Test(arguments: [
        ([SQLValue](), 0),
        ([.integer(1), .integer(2), .integer(9)], 3),
        ([.integer(Int64.min), .integer(0)], 2),
        ([.integer(1), .integer(1), .integer(2)], 2),
        ([.integer(3), .integer(2), .integer(3)], 2),
        ([.text("a"), .text("b"), .text("a")], 2),
        ([.integer(1), .text("1"), .integer(1)], 2),
    ])
    func distinctKeysAreCountedInOrderOrByHashing(keys: [SQLValue], expected: Int) {
        #expect(Database.distinctCount(of: keys) == expected)
    }

    @Test func anEmptyTableHoldsNoKey() throws {
        let (database, recorder) = try TestDatabase.users(0)
        recorder.reset()
        let found = try database.read { try $0.existingPrimaryKeys(User.self, among: [.integer(-5), .integer(3)]) }
        #expect(found.isEmpty)
        #expect(lookups(recorder).isEmpty)
    }

    @Test func keysAmongOrBelowTheStoredOnesAreLookedUp() throws {
        let (database, recorder) = try TestDatabase.users(10)
        try database.write { try $0.execute(sql: #"DELETE FROM "users" WHERE "id" = 4"#) }
        recorder.reset()
        let keys: [SQLValue] = [.integer(0), .integer(3), .integer(4), .integer(10), .integer(11)]
        let found = try database.read { try $0.existingPrimaryKeys(User.self, among: keys) }
        #expect(found == [.integer(3), .integer(10)])
        #expect(lookups(recorder).count == 1)
    }
}
