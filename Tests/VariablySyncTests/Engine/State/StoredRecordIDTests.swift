import Foundation
import Testing
import VariablyCodable
import VariablySQLite
import VariablySyncTesting

@testable import VariablySync

/// A record named by text: its id is stored in NFC, as every text column is.
private struct Label: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: String
    var color: String

    init(id: String, color: String) {
        self.id = id
        self.color = color
    }

    init(from container: DecodingContainer<Label>) throws {
        id = try container.decode(\.id)
        color = try container.decode(\.color)
    }

    static let keySets = KeySets<Label>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.color, "color")
        }
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.color, "color")
        }
    }

    static let sqliteTable = SQLiteTable<Label>("labels", primaryKey: \.id)
}

/// A record named by a floating-point number, which no synced table can keep exactly.
private struct Reading: VariablyCodable, SQLiteStorable, Identifiable, Hashable, Sendable {
    var id: Double
    var value: Int

    init(from container: DecodingContainer<Reading>) throws {
        id = try container.decode(\.id)
        value = try container.decode(\.value)
    }

    static let keySets = KeySets<Reading>(defaultSource: .remote) {
        KeySet(.remote) {
            Key(\.id, "id")
            Key(\.value, "value")
        }
        KeySet(.sqlite) {
            Key(\.id, "id")
            Key(\.value, "value")
        }
    }

    static let sqliteTable = SQLiteTable<Reading>("readings", primaryKey: \.id)
}

/// The sync state keeps ids as the model's table stores them: the JSON text SQLite's `json_quote` makes
/// of the stored key, converted through the primary key column's coding, never through `JSONEncoder`.
@Suite(.timeLimit(.minutes(1)))
struct StoredRecordIDTests {
    @Test(arguments: [
        "plain", "", "a\"quote", "back\\slash", "a/b", "tab\tnew\nline\r", "\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "é and e\u{301}", "\u{2028}\u{2029}", "😀 emoji", "null", "42",
    ])
    func textIsQuotedAsSQLiteQuotesIt(_ text: String) throws {
        let database = try SQLiteDatabase.inMemory()
        let quoted = try database.read { try $0.fetchValue(sql: "SELECT json_quote(?)", arguments: [text]) }
        #expect(
            StoredRecordID(key: .text(text))?.rawValue
                == quoted.flatMap { if case .text(let t) = $0 { t } else { nil } })
        #expect(StoredRecordID(key: .text(text))?.key == .text(text))
    }

    @Test(arguments: [Int64.min, -1, 0, 7, Int64.max])
    func integersAreTheirDigits(_ integer: Int64) throws {
        let database = try SQLiteDatabase.inMemory()
        let quoted = try database.read { try $0.fetchValue(sql: "SELECT json_quote(?)", arguments: [integer]) }
        #expect(quoted == .text(String(integer)))
        #expect(StoredRecordID(key: .integer(integer))?.rawValue == String(integer))
        #expect(StoredRecordID(key: .integer(integer))?.key == .integer(integer))
    }

    @Test func onlyIntegersAndTextAreKept() {
        #expect(StoredRecordID(key: .real(1.5)) == nil)
        #expect(StoredRecordID(key: .blob(Data([1]))) == nil)
        #expect(StoredRecordID(key: .null) == nil)
    }

    /// `retry(failedChangeOf:)` with the id as the app holds it (decomposed) found no change: the queue
    /// keeps the stored key, in NFC, and the id was written for the look-up by `JSONEncoder`, as it came.
    @Test func aFailedChangeIsFoundByAnIdTheTableStoresInAnotherForm() async throws {
        let decomposed = "Cafe\u{301}"
        let server = try SimulatedServer<Label>(records: [], seed: 3) { $0.color.isEmpty ? "color is required" : nil }
        let labels = try Repository(database: .inMemory(), remote: server)
        try await labels.save(Label(id: decomposed, color: ""))
        #expect(try await labels.sync().failed.count == 1)
        #expect(try await labels.failedChanges().map(\.id) == ["Caf\u{e9}"])

        try await labels.retry(failedChangeOf: decomposed)
        #expect(try await labels.failedChanges().isEmpty)
        #expect(try await labels.unsentChanges().map(\.status) == [.queued])

        #expect(try await labels.sync().failed.count == 1)
        try await labels.discard(failedChangeOf: decomposed)
        await #expect(try labels.pendingChangeCount() == 0)
    }

    @Test func aTableKeyedByAFloatingPointNumberIsRefusedWhenItOpens() throws {
        let server = try SimulatedServer<Reading>(records: [], seed: 3)
        let error = #expect(throws: DeclarationError.self) {
            try Repository(database: .inMemory(), remote: server)
        }
        #expect(error?.reason == .unsyncablePrimaryKey(sqlType: "REAL"))
        #expect(error?.fix.contains("integer or text") == true)
    }
}
