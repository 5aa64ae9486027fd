import Foundation
import VariablySQLite

// MARK: - Pulled records waiting for their parents

/// Server records set aside until the records they reference are in the cache (`variably_held_records`):
/// those a ``SyncStore`` pulled from a feed before their parents, and the server's copies that won a
/// conflict while a record they reference is deleted here with that deletion still to push. Kept as the
/// server's JSON, with their version, in the transaction that set them aside; applied by the
/// batch (or, for a repository's own pull, the end of the pull) that finds their parents, unless a
/// newer copy or a deletion of the same record came first.
extension SyncStateStore {
    /// A parked record: its id (JSON text), its JSON in the remote key set, its version as the server sent it.
    struct ParkedRecord: Sendable {
        let recordID: String
        let record: Data
        let version: String?
    }

    /// This table's parked records, oldest first.
    ///
    /// - Complexity: O(h) in the parked records of the table (an index range).
    func parkedRecords(_ db: Database) throws -> [ParkedRecord] {
        try db.fetch(
            sql: #"SELECT "record_id", "record", "version" FROM "variably_held_records" WHERE "table_name" = ?"#,
            arguments: [table]
        ).compactMap { row in
            guard case .text(let id) = row[0] else { return nil }
            let record: Data
            switch row[1] {
            case .blob(let bytes): record = bytes
            case .text(let text): record = Data(text.utf8)
            default: return nil
            }
            let version: String? = if case .text(let text) = row[2] { text } else { nil }
            return ParkedRecord(recordID: id, record: record, version: version)
        }
    }

    /// Sets records aside, replacing an older held copy of the same record.
    func park(_ records: [ParkedRecord], _ db: Database) throws {
        for record in records {
            try db.execute(
                sql: #"""
                    INSERT OR REPLACE INTO "variably_held_records" ("table_name", "record_id", "record", "version")
                    VALUES (?, ?, ?, ?)
                    """#,
                arguments: [table, record.recordID, SQLValue.blob(record.record), record.version.map { SQLValue.text($0) } ?? .null])
        }
    }

    /// Removes every parked record of this table: a batch takes them, and holds again those still
    /// waiting.
    func releaseParkedRecords(_ db: Database) throws {
        try db.execute(sql: #"DELETE FROM "variably_held_records" WHERE "table_name" = ?"#, arguments: [table])
    }

    /// Forgets the held copies of the records with primary keys `keys`: newer copies, or deletions, were
    /// applied. (`json_quote` gives a key's JSON text, as the record ids are kept.)
    ///
    /// - Complexity: O(k log h).
    func forgetParkedRecords(withKeys keys: [SQLValue], _ db: Database) throws {
        for key in keys {
            try db.execute(
                sql: #"DELETE FROM "variably_held_records" WHERE "table_name" = ? AND "record_id" = json_quote(?)"#,
                arguments: [table, key])
        }
    }

    /// Forgets the parked record with `recordID` (JSON text).
    func forgetParkedRecord(_ recordID: String, _ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_held_records" WHERE "table_name" = ? AND "record_id" = ?"#, arguments: [table, recordID])
    }

    /// Thrown inside a savepoint to roll back a parked record that still lacks its parent.
    struct StillWaiting: Error {}

    /// How many of this table's records are held.
    func parkedRecordCount(_ db: Database) throws -> Int {
        let value = try db.fetchValue(
            sql: #"SELECT count(*) FROM "variably_held_records" WHERE "table_name" = ?"#, arguments: [table])
        if case .integer(let count)? = value { return Int(count) }
        return 0
    }
}
