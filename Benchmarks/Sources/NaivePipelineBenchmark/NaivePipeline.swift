import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The baseline the benchmark compares against: what an app writes without this package. A second
/// struct with synthesized `Codable` for the server's keys, Foundation's `JSONDecoder`, and a generic
/// Codable record layer that encodes each record into a column dictionary, builds its `INSERT` and runs
/// it, one statement per record (nested values and arrays become JSON text, as such layers do). Its
/// table has two indexes, like the repository's `users` table, so that both pay the same index upkeep.
struct NaiveUser: Codable {
    struct Profile: Codable {
        var age: Int
        var score: Double
    }

    var id: Int64
    var userName: String
    var email: String
    var profile: Profile
    var isActive: Bool
    var updatedAt: Date
    var tags: [String]
    var nickname: String?

    enum CodingKeys: String, CodingKey {
        case id
        case userName = "user_name"
        case email = "email_address"
        case profile
        case isActive = "is_active"
        case updatedAt = "updated_at"
        case tags
        case nickname = "nick_name"
    }

    /// Foundation's decoder, reading the server's ISO 8601 dates (with milliseconds) as apps do.
    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        decoder.dateDecodingStrategy = .custom { try format.parse($0.singleValueContainer().decode(String.self)) }
        return decoder
    }

    static let createTableSQL = """
        CREATE TABLE IF NOT EXISTS "naive_users" ("id" INTEGER PRIMARY KEY, "user_name" TEXT, "email_address" TEXT,
            "profile" TEXT, "is_active" INTEGER, "updated_at" REAL, "tags" TEXT, "nick_name" TEXT);
        CREATE INDEX IF NOT EXISTS "naive_users_on_user_name" ON "naive_users" ("user_name");
        CREATE INDEX IF NOT EXISTS "naive_users_on_updated_at_is_active" ON "naive_users" ("updated_at", "is_active")
        """
}

/// Pulls every page from `server` and stores it the naive way; returns the records stored.
func runNaivePipeline(server: SimulatedServer<User>, database: SQLiteDatabase, pageSize: Int) async throws -> Int {
    try await database.write { try $0.execute(sql: NaiveUser.createTableSQL) }
    var cursor: SyncCursor?
    var stored = 0
    let decoder = NaiveUser.makeDecoder()
    while true {
        let page = try await server.pull(after: cursor, limit: pageSize)
        let users = try decoder.decode([NaiveUser].self, from: page.records)
        try await database.write { db in
            for user in users {
                let row = try RecordEncoder.columns(of: user)
                let columns = row.map { "\"\($0.name)\"" }.joined(separator: ", ")
                let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                try db.execute(
                    sql: "INSERT OR REPLACE INTO \"naive_users\" (\(columns)) VALUES (\(marks))",
                    arguments: StatementArguments(row.map(\.value)))
            }
        }
        stored += users.count
        cursor = page.nextCursor
        if !page.hasMore { return stored }
    }
}

/// A minimal Codable record layer: encodes a value's top-level keys into column values.
enum RecordEncoder {
    static func columns(of value: some Encodable) throws -> [(name: String, value: SQLValue)] {
        let encoder = ColumnEncoder()
        try value.encode(to: encoder)
        return encoder.storage.columns
    }
}

private final class ColumnStorage {
    var columns: [(name: String, value: SQLValue)] = []
}

private final class ColumnEncoder: Encoder {
    let storage = ColumnStorage()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ColumnContainer<Key>(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("a record encodes as a keyed container")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        preconditionFailure("a record encodes as a keyed container")
    }
}

private struct ColumnContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: ColumnStorage
    var codingPath: [any CodingKey] = []

    mutating func encodeNil(forKey key: Key) throws { storage.columns.append((key.stringValue, .null)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        storage.columns.append((key.stringValue, .integer(value ? 1 : 0)))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        storage.columns.append((key.stringValue, .text(value)))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        storage.columns.append((key.stringValue, .real(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        storage.columns.append((key.stringValue, .integer(Int64(value))))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        storage.columns.append((key.stringValue, .integer(value)))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        switch value {
        case let date as Date: storage.columns.append((key.stringValue, .real(date.timeIntervalSinceReferenceDate)))
        default:
            let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            storage.columns.append((key.stringValue, .text(json)))
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        preconditionFailure("nested values are encoded as JSON text")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("nested values are encoded as JSON text")
    }

    mutating func superEncoder() -> any Encoder { preconditionFailure("not supported") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("not supported") }
}
