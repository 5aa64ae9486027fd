import Foundation
import VariablyCodable
import VariablySQLite

/// A row of `variably_parked_records`: a server record the pull could not apply yet, kept with the
/// server's JSON (see `SyncStateStore`'s parked records). Read through the row coding; written by the
/// store's SQL, since the key is two columns (`table_name`, `record_id`).
struct ParkedRecordRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The model table.
    var tableName: String
    /// The record's id, as the sync state keeps it.
    var recordID: StoredRecordID
    /// The record as the server sent it, in the remote key set.
    var record: Data
    /// Its version as the server sent it.
    var version: String?
    /// Its reference columns and values (a JSON object), what it waits for; `nil` when not known yet.
    var parents: String?
    /// `waiting`, `parentDeleted` or `undecodable`.
    var state: String
    /// The reference columns its parents' deletions emptied.
    var emptied: [String]?
    /// Why it cannot be applied, for an undecodable one.
    var problem: String?
    /// When it was parked.
    var parkedAt: Date?

    init(from container: DecodingContainer<ParkedRecordRow>) throws {
        tableName = try container.decode(\.tableName)
        recordID = try container.decode(\.recordID)
        record = try container.decode(\.record)
        version = try container.decode(\.version)
        parents = try container.decode(\.parents)
        state = try container.decode(\.state, default: "waiting")
        emptied = try container.decode(\.emptied)
        problem = try container.decode(\.problem)
        parkedAt = try container.decode(\.parkedAt)
    }

    static let keySets = KeySets<ParkedRecordRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.tableName, "table_name")
            Key(\.recordID, "record_id")
            Key(\.record, "record")
            Key(\.version, "version")
            Key(\.parents, "parents")
            Key(\.state, "state")
            Key(\.emptied, "emptied")
            Key(\.problem, "problem")
            Key(\.parkedAt, "parked_at")
        }
    }

    static let sqliteTable = SQLiteTable<ParkedRecordRow>("variably_parked_records", primaryKey: \.recordID)

    /// The columns the store reads, in a `SELECT`.
    static let selection = """
        "table_name", "record_id", "record", "version", "parents", "state", "emptied", "problem", "parked_at"
        """
}
