import Foundation
import VariablySQLite

// MARK: - Records that reference others

/// The queue's side of references between tables (`SQLiteTable` references): changes waiting until the
/// records they reference reach the server, records created empty to break a cycle, orphans, and the
/// server's ids replacing provisional ones.
extension SyncStateStore {
    /// The queued creates and updates of this table's records that reference a record the server does
    /// not have yet (queued as new in its own table, this one included), by record id,
    /// each with why: the parent's refusal, or that it waits for it.
    ///
    /// - Parameters:
    ///   - primaryKeyColumn: This table's primary key column, quoted.
    ///   - references: This table's declared references.
    /// - Complexity: Two indexed look-ups per queued change and reference
    ///   (https://www.sqlite.org/json1.html#jex reads the queued id back as the key's value).
    func heldChanges(primaryKeyColumn: String, references: [TableReference], _ db: Database) throws -> [StoredRecordID:
        Hold]
    {
        guard !references.isEmpty else { return [:] }
        var held: [StoredRecordID: Hold] = [:]
        for reference in references {
            let rows = try db.fetch(
                sql: #"""
                    SELECT child."record_id" AS "child", parent."record_id" AS "parent", parent."failure" AS "failure"
                    FROM "variably_pending_changes" AS child
                    JOIN \#(SQL.quote(table)) AS row ON row.\#(primaryKeyColumn) = json_extract(child."record_id", '$')
                    JOIN "variably_pending_changes" AS parent ON parent."table_name" = ?
                        AND parent."record_id" = json_quote(row.\#(SQL.quote(reference.column)))
                        AND parent."is_new" = 1 AND parent."operation" = 'upsert'
                    WHERE child."table_name" = ? AND child."operation" = 'upsert'
                        AND NOT (parent."table_name" = child."table_name" AND parent."record_id" = child."record_id")
                    """#,
                arguments: [reference.parentTable, table])
            for row in rows {
                guard let child = row.text("child").map(StoredRecordID.init(rawValue:)), let parent = row.text("parent")
                else { continue }
                let failure = row.text("failure")
                var hold =
                    held[child]
                    ?? Hold(
                        reason:
                            "waiting for its parent: it references \(reference.parentTable) \(parent), which the server "
                            + (failure.map { "refused: \($0)" } ?? "does not have yet"))
                if reference.isOptional {
                    hold.optionalColumns.insert(reference.column)
                } else {
                    hold.isBlockedByRequired = true
                }
                held[child] = hold
            }
        }
        return held
    }

    /// Whether the row with primary key `key` references a parent row that is not in the cache.
    ///
    /// - Complexity: One indexed look-up per reference.
    func isOrphan(_ key: SQLValue, primaryKeyColumn: String, references: [TableReference], _ db: Database) throws
        -> Bool
    {
        for reference in references {
            let column = SQL.quote(reference.column)
            let found = try db.fetchValue(
                sql: """
                    SELECT 1 FROM \(SQL.quote(table)) AS child WHERE child.\(primaryKeyColumn) = ? AND child.\(column) IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM \(SQL.quote(reference.parentTable)) AS parent
                        WHERE parent.\(SQL.quote(reference.parentColumn)) = child.\(column))
                    """,
                arguments: [key])
            if found != nil { return true }
        }
        return false
    }

    /// The references of the row with primary key `key` whose parent row is not in the cache.
    ///
    /// - Complexity: One indexed look-up per reference.
    func danglingReferences(
        of key: SQLValue, primaryKeyColumn: String, references: [TableReference], _ db: Database
    ) throws -> [TableReference] {
        try references.filter { try isOrphan(key, primaryKeyColumn: primaryKeyColumn, references: [$0], db) }
    }

    /// Sets the columns of `references` to `NULL` in the row with primary key `key`, as their
    /// `ON DELETE SET NULL` rule does when the parent goes.
    func emptyReferences(_ references: [TableReference], of key: SQLValue, primaryKeyColumn: String, _ db: Database)
        throws
    {
        guard !references.isEmpty else { return }
        let assignments = references.map { "\(SQL.quote($0.column)) = NULL" }.joined(separator: ", ")
        try db.execute(
            sql: "UPDATE \(SQL.quote(table)) SET \(assignments) WHERE \(primaryKeyColumn) = ?", arguments: [key])
    }

    /// Why a queued change waits, from ``heldChanges(primaryKeyColumn:references:_:)``.
    struct Hold: Sendable {
        /// The first parent it waits for, and its refusal if any.
        var reason: String
        /// The optional columns that reference a record the server does not have yet.
        var optionalColumns: Set<String> = []
        /// Whether a required column does: then it cannot be sent before that record.
        var isBlockedByRequired = false
    }

    /// Queues a record again as an update of its whole content: it was created on the server with
    /// some references empty (a cycle), which the update now fills.
    func requeueWhole(_ recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"""
                INSERT INTO "variably_pending_changes"
                    ("table_name", "record_id", "operation", "idempotency_key", "base_cursor", "created_at", "is_new")
                VALUES (?, ?, 'upsert', lower(hex(randomblob(16))),
                    (SELECT "version" FROM "variably_acknowledged_changes" WHERE "table_name" = ? AND "record_id" = ?),
                    (julianday('now') - 2440587.5) * 86400.0, 0)
                ON CONFLICT ("table_name", "record_id") DO UPDATE SET "changed_columns" = NULL
                """#,
            arguments: [table, recordID, table, recordID])
    }

    /// Bases the queued change of `recordID` on the version of its last accepted push.
    func rebaseOnAcknowledged(_ recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET "base_cursor" = coalesce(
                    (SELECT "version" FROM "variably_acknowledged_changes" WHERE "table_name" = ? AND "record_id" = ?), "base_cursor")
                WHERE "table_name" = ? AND "record_id" = ?
                """#,
            arguments: [table, recordID, table, recordID])
    }

    /// Renames a record in the queue and its acknowledgements: the server assigned `newID`
    /// to the record created here as `oldID`. A change still queued for it is an update now, since the
    /// server has the record.
    func rewriteRecordID(from oldID: StoredRecordID, to newID: StoredRecordID, _ db: Database) throws {
        // A change queued under the server's id already (an edit of a pulled copy, should the server's
        // record have been pulled first) becomes the one change of the record: the row holds this
        // device's values, and a push reads the row, so one change of the whole record says it all.
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET "changed_columns" = NULL, "failure" = NULL
                WHERE "table_name" = ? AND "record_id" = ?
                    AND EXISTS (SELECT 1 FROM "variably_pending_changes" WHERE "table_name" = ? AND "record_id" = ?)
                """#,
            arguments: [table, newID, table, oldID])
        if db.changesCount > 0 {
            try discard(recordID: oldID, db)
        } else {
            try db.execute(
                sql: #"""
                    UPDATE "variably_pending_changes" SET "record_id" = ?, "is_new" = 0
                    WHERE "table_name" = ? AND "record_id" = ?
                    """#,
                arguments: [newID, table, oldID])
        }
        for versions in ["variably_acknowledged_changes", "variably_record_versions"] {
            try db.execute(
                sql:
                    "UPDATE OR REPLACE \(SQL.quote(versions)) SET \"record_id\" = ? WHERE \"table_name\" = ? AND \"record_id\" = ?",
                arguments: [newID, table, oldID])
        }
    }
}
