import Foundation
import VariablyCodable
import VariablySQLite

/// A row of `variably_record_versions` or `variably_acknowledged_changes`: a record's version, the
/// base of its next local change. In the first, the version of the record as last pulled (a source
/// with record versions); in the second, the version the server gave a pushed change, kept until the
/// pull catches up past it. Read through the row coding; written by the store's SQL, since the key is
/// two columns (`table_name`, `record_id`), which a `SQLiteTable` declaration does not name.
struct RecordVersionRow: VariablyCodable, SQLiteStorable, Sendable, Equatable {
    /// The model table.
    var tableName: String
    /// The record's id, as the sync state keeps it.
    var recordID: StoredRecordID
    /// The version, as the base of a change carries it.
    var version: String

    init(from container: DecodingContainer<RecordVersionRow>) throws {
        tableName = try container.decode(\.tableName)
        recordID = try container.decode(\.recordID)
        version = try container.decode(\.version)
    }

    static let keySets = KeySets<RecordVersionRow>(defaultSource: .sqlite) {
        KeySet(.sqlite) {
            Key(\.tableName, "table_name")
            Key(\.recordID, "record_id")
            Key(\.version, "version")
        }
    }

    static let sqliteTable = SQLiteTable<RecordVersionRow>("variably_record_versions", primaryKey: \.recordID)
}
