import Foundation
import VariablySQLite

/// One table's parked server records: server records the pull could not apply yet, kept as the server's JSON with their version in
/// `variably_parked_records`, in the transaction whose cursor passed them, so that no record is lost
/// because the cursor moved on:
/// - **waiting**: a record they reference is not in the cache (a reply served before the comment it
///   replies to, a child whose parent comes on a later page or from another table, a server copy that
///   won a conflict while its parent's deletion here is still to push). Applied by the batch its
///   parents arrive in, unless a newer copy or a deletion of the same record comes first.
/// - **parentDeleted**: the server deleted a parent it still has children of, and the reference
///   restricts deletions (`ReferenceAction.restrict`): kept, reported, never shown without the parent.
/// - **undecodable**: the model could not decode it; tried again on every later sync, so a model fixed
///   in an app update gets it.
struct ParkedRecords: Sendable {
    /// The table whose records are parked.
    let table: String

    /// A parked record: its id, its JSON in the remote key set, its version as the server
    /// sent it, the values of its reference columns (a JSON object, `nil` when not known yet), and
    /// the reference columns its parents' deletions emptied.
    struct ParkedRecord: Sendable {
        let recordID: StoredRecordID
        let record: Data
        let version: String?
        var parents: String? = nil
        var emptied: [String] = []
        /// Why it cannot be applied, for an undecodable one.
        var problem: String? = nil
    }

    /// Why a record is parked.
    enum ParkingState: String, Sendable {
        case waiting
        case parentDeleted
        case undecodable
    }

    /// This table's records waiting for parents that are all in the cache now (and those whose parents
    /// are not known yet), oldest first.
    ///
    /// - Parameter references: The table's references, whose parent tables the parked values are looked
    ///   up in.
    /// - Complexity: One index range of the table's parked records, one indexed look-up per record and
    ///   reference.
    func readyParkedRecords(references: [TableReference], _ db: Database) throws -> [ParkedRecord] {
        let conditions = references.map { reference in
            let value = "json_extract(\"parents\", \(SQL.literal("$.\"" + reference.column + "\"")))"
            return "(\(value) IS NULL OR EXISTS (SELECT 1 FROM \(SQL.quote(reference.parentTable)) "
                + "WHERE \(SQL.quote(reference.parentColumn)) = \(value)))"
        }
        let ready =
            conditions.isEmpty ? "" : " AND (\"parents\" IS NULL OR (" + conditions.joined(separator: " AND ") + "))"
        return try db.fetch(
            ParkedRecordRow.self,
            sql: "SELECT \(ParkedRecordRow.selection) FROM \"variably_parked_records\" "
                + #"WHERE "table_name" = ? AND "state" = 'waiting'"# + ready,
            arguments: [table]
        ).map(ParkedRecord.init(row:))
    }

    /// This table's records in `state`.
    func parkedRecords(in state: ParkingState, _ db: Database) throws -> [ParkedRecord] {
        try db.fetch(
            ParkedRecordRow.self,
            sql: #"""
                SELECT \#(ParkedRecordRow.selection) FROM "variably_parked_records"
                WHERE "table_name" = ? AND "state" = ?
                """#,
            arguments: [table, state.rawValue]
        ).map(ParkedRecord.init(row:))
    }

    /// Parks records, replacing an older parked copy of the same record.
    func park(_ records: [ParkedRecord], state: ParkingState = .waiting, _ db: Database) throws {
        for record in records {
            let emptied: SQLValue =
                record.emptied.isEmpty
                ? .null : .text(String(decoding: try JSONEncoder().encode(record.emptied), as: UTF8.self))
            try db.execute(
                sql: #"""
                    INSERT OR REPLACE INTO "variably_parked_records"
                        ("table_name", "record_id", "record", "version", "parents", "state", "emptied", "problem", "parked_at")
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, (julianday('now') - 2440587.5) * 86400.0)
                    """#,
                arguments: [
                    table, record.recordID, SQLValue.blob(record.record),
                    record.version.map { SQLValue.text($0) } ?? .null,
                    record.parents.map { SQLValue.text($0) } ?? .null, state.rawValue, emptied,
                    record.problem.map { SQLValue.text($0) } ?? .null,
                ])
        }
    }

    /// Forgets the parked copies of the records with primary keys `keys`: newer copies, or deletions,
    /// were applied. (`json_quote` gives a key's JSON text, as the record ids are kept.)
    ///
    /// - Complexity: O(k log h).
    func forgetParkedRecords(withKeys keys: [SQLValue], _ db: Database) throws {
        for key in keys {
            try db.execute(
                sql: #"DELETE FROM "variably_parked_records" WHERE "table_name" = ? AND "record_id" = json_quote(?)"#,
                arguments: [table, key])
        }
    }

    /// The parked copies of this table's records with primary keys `keys`, by key: a cached row parked
    /// because the server deleted its parent is kept with the values it had here, local edits included.
    ///
    /// - Complexity: O(k log h).
    func parkedRecords(withKeys keys: [SQLValue], _ db: Database) throws -> [SQLValue: Data] {
        var records: [SQLValue: Data] = [:]
        for key in keys {
            let parked = try db.fetch(
                ParkedRecordRow.self,
                sql: #"""
                    SELECT \#(ParkedRecordRow.selection) FROM "variably_parked_records"
                    WHERE "table_name" = ? AND "record_id" = json_quote(?)
                    """#,
                arguments: [table, key])
            if let row = parked.first { records[key] = row.record }
        }
        return records
    }

    /// Forgets the parked record with `recordID`.
    func forgetParkedRecord(_ recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_parked_records" WHERE "table_name" = ? AND "record_id" = ?"#,
            arguments: [table, recordID])
    }

    /// Settles this table's parked records that reference, through `reference`, a record of its parent
    /// table that the server deleted (`deletedKeys`), by the reference's rule: `.cascade` drops them,
    /// `.setNull` applies them with the reference emptied once their other parents are here,
    /// `.restrict` keeps them parked as ``ParkingState/parentDeleted``.
    ///
    /// - Returns: How many records were settled.
    /// - Complexity: One scan of the table's parked records per reference (they are few).
    func settleParkedRecords(referencing reference: TableReference, deletedKeys: [SQLValue], _ db: Database) throws
        -> Int
    {
        guard !deletedKeys.isEmpty else { return 0 }
        let value = "json_extract(\"parents\", \(SQL.literal("$.\"" + reference.column + "\"")))"
        let placeholders = Array(repeating: "?", count: deletedKeys.count).joined(separator: ", ")
        let matching = #""table_name" = ? AND "state" = 'waiting' AND "# + value + " IN (\(placeholders))"
        let arguments: [SQLValue] = [.text(table)] + deletedKeys
        switch reference.onDelete {
        case .cascade:
            try db.execute(
                sql: #"DELETE FROM "variably_parked_records" WHERE "# + matching,
                arguments: StatementArguments(arguments))
        case .setNull:
            try db.execute(
                sql: #"""
                    UPDATE "variably_parked_records"
                    SET "parents" = json_remove("parents", \#(SQL.literal("$.\"" + reference.column + "\""))),
                        "emptied" = json_insert(coalesce("emptied", '[]'), '$[#]', \#(SQL.literal(reference.column)))
                    WHERE
                    """# + " " + matching, arguments: StatementArguments(arguments))
        case .restrict:
            try db.execute(
                sql: #"UPDATE "variably_parked_records" SET "state" = 'parentDeleted' WHERE "# + matching,
                arguments: StatementArguments(arguments))
        }
        return db.changesCount
    }

    /// Turns this table's undecodable records back into waiting ones, with their parents unknown: the
    /// next batch decodes them again with the model as it is now.
    func retryUndecodableRecords(_ db: Database) throws {
        try db.execute(
            sql: #"""
                UPDATE "variably_parked_records" SET "state" = 'waiting', "parents" = NULL, "problem" = NULL
                WHERE "table_name" = ? AND "state" = 'undecodable'
                """#,
            arguments: [table])
    }

    /// How many of this table's records are parked, in any state.
    func parkedRecordCount(_ db: Database) throws -> Int {
        let value = try db.fetchValue(
            sql: #"SELECT count(*) FROM "variably_parked_records" WHERE "table_name" = ?"#, arguments: [table])
        if case .integer(let count)? = value { return Int(count) }
        return 0
    }

    /// How many of this table's records are parked in `state`.
    func parkedRecordCount(in state: ParkingState, _ db: Database) throws -> Int {
        let value = try db.fetchValue(
            sql: #"SELECT count(*) FROM "variably_parked_records" WHERE "table_name" = ? AND "state" = ?"#,
            arguments: [table, state.rawValue])
        if case .integer(let count)? = value { return Int(count) }
        return 0
    }

    /// How many records are parked, of every table, in any state.
    static func parkedRecordCount(_ db: Database) throws -> Int {
        let value = try db.fetchValue(sql: #"SELECT count(*) FROM "variably_parked_records""#)
        if case .integer(let count)? = value { return Int(count) }
        return 0
    }

    /// The tables that have parked records, in any state.
    static func tablesWithParkedRecords(_ db: Database) throws -> Set<String> {
        Set(
            try db.fetch(sql: #"SELECT DISTINCT "table_name" FROM "variably_parked_records""#)
                .compactMap { $0.text("table_name") })
    }

    /// The values of the reference columns `references` of the row with primary key `key`, as a JSON
    /// object of the non-null ones (`{"post_id":10,"parent_id":7}`): what a parked record waits for.
    func referenceValues(of key: SQLValue, primaryKeyColumn: String, references: [TableReference], _ db: Database)
        throws
        -> String?
    {
        guard !references.isEmpty else { return "{}" }
        let pairs = references.map { "\(SQL.literal($0.column)), \(SQL.quote($0.column))" }.joined(separator: ", ")
        let value = try db.fetchValue(
            sql:
                "SELECT json_patch('{}', json_object(\(pairs))) FROM \(SQL.quote(table)) WHERE \(primaryKeyColumn) = ?",
            arguments: [key])
        if case .text(let text)? = value { return text }
        return nil
    }
}

extension ParkedRecords.ParkedRecord {
    /// The parked record that a row of `variably_parked_records` holds, as the pull applies it again.
    init(row: ParkedRecordRow) {
        self.init(
            recordID: row.recordID, record: row.record, version: row.version, parents: row.parents,
            emptied: row.emptied ?? [])
    }
}
