import Foundation
import VariablyCodable
import VariablySQLite

// MARK: - Capturing writes into the queue

/// Every write to a synced table is queued for the next push by SQLite triggers, whoever makes it:
/// ``Repository/save(_:)``, a direct `database.write { try $0.upsert(user) }`, raw SQL, another
/// process. The repository pauses them while it writes what the server sent (pulled pages, settled
/// conflicts, stale records of a resync), inside the same transaction, so that the server's own data
/// is never pushed back.
///
/// A pause is a row (`'*'`, every synced table) in `variably_capture_paused`, inserted and deleted within the transaction that
/// applies server data: no other connection ever sees it, and a rollback removes it with the rest
/// (https://www.sqlite.org/lang_createtrigger.html).
extension SyncStateStore {
    /// Bump when the trigger bodies change: older triggers of the table are replaced.
    static let captureVersion = 6

    /// Where a deletion finds the version the client last saw of the record it deletes.
    struct DeletionVersion: Equatable, Sendable {
        /// The column of the version, quoted for SQL.
        let quotedColumn: String
        /// The text a deletion's base starts with (``RecordVersionedSource/deletionBasePrefix``).
        let prefix: String
    }

    /// Creates the capture triggers of the table, replacing those of older versions and those made for
    /// another `deletionVersion`. The pause table is the schema's (``SyncStateSchema``).
    ///
    /// - Parameters:
    ///   - columns: The table's column names, unquoted: an update records which of them changed.
    ///   - keepsPreEditRows: Whether the first queued edit of a record with no version kept keeps the row
    ///     as it was (a source with record versions: see `SyncStateStore+PreEditRows`).
    ///   - basesChangesOnCursor: Whether a change of a record with no version kept is based on the
    ///     table's cursor (``RecordVersionedSource/basesChangesOnCursor``); otherwise it has no base.
    func installCapture(
        primaryKeyColumn: String, columns: [String], deletionVersion: DeletionVersion?, keepsPreEditRows: Bool = false,
        basesChangesOnCursor: Bool = true, _ db: Database
    ) throws {
        // The variant names the deletion version's column and prefix, whether pre-edit rows are kept and
        // whether changes are based on the cursor, so that a repository opened with another source
        // replaces the triggers.
        let variant =
            (deletionVersion.map { StableDigest.hex(of: $0.quotedColumn + "\u{0}" + $0.prefix) } ?? "0")
            + (keepsPreEditRows ? "p" : "") + (basesChangesOnCursor ? "" : "v")
        let prefix = "variably_capture_v\(Self.captureVersion)_\(variant)_\(table)_"
        let stale = try db.fetch(
            sql:
                #"SELECT "name" FROM "sqlite_master" WHERE "type" = 'trigger' AND "tbl_name" = ? AND "name" LIKE 'variably_capture_v%'"#,
            arguments: [table]
        ).compactMap { row -> String? in
            guard let name = row.text("name"), !name.hasPrefix(prefix) else { return nil }
            return name
        }
        for name in stale { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQL.quote(name))") }

        let quotedTable = SQL.quote(table)
        let tableLiteral = SQL.literal(.text(table))
        let active = #"NOT EXISTS (SELECT 1 FROM "variably_capture_paused" WHERE "table_name" = '*')"#
        // The names of the columns an update changed, as a JSON array (https://www.sqlite.org/json1.html#jgrouparray).
        let changed =
            "(SELECT json_group_array(\"name\") FROM ("
            + columns.map {
                "SELECT \(SQL.literal(.text($0))) AS \"name\" WHERE OLD.\(SQL.quote($0)) IS NOT NEW.\(SQL.quote($0))"
            }
            .joined(separator: " UNION ALL ") + "))"
        let triggers: [(suffix: String, event: String, condition: String, row: String, change: Change)] = [
            ("insert", "INSERT", active, "NEW", .insert),
            ("update", "UPDATE", active, "NEW", .update(changedColumns: changed)),
            // A changed primary key removes the record under its old key.
            ("rekey", "UPDATE", "\(active) AND OLD.\(primaryKeyColumn) IS NOT NEW.\(primaryKeyColumn)", "OLD", .delete),
            ("delete", "DELETE", active, "OLD", .delete),
        ]
        for trigger in triggers {
            let recordID = "json_quote(\(trigger.row).\(primaryKeyColumn))"
            var body = ""
            if keepsPreEditRows, trigger.change != .insert {
                // The row as it was: `OLD` for an update too (under its new key, should the key change).
                body = preEditRows.keepPreEditRowSQL(recordID: recordID, row: "OLD", columns: columns) + "; "
            }
            body += enqueueSQL(
                recordID: recordID, change: trigger.change,
                deletion: trigger.change == .delete ? deletionVersion.map { ($0, trigger.row) } : nil,
                basesChangesOnCursor: basesChangesOnCursor)
            if trigger.change == .delete {
                // A record created here and deleted before any push of it was sent: the server never
                // heard of it, so there is nothing to push.
                body += """
                    ; DELETE FROM "variably_pending_changes" WHERE "table_name" = \(tableLiteral) AND "record_id" = \(recordID)
                    AND "is_new" = 1 AND "sent" = 0 AND "superseded_keys" = '[]'
                    """
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER IF NOT EXISTS \(SQL.quote(prefix + trigger.suffix))
                    AFTER \(trigger.event) ON \(quotedTable) WHEN \(trigger.condition)
                    BEGIN \(body); END
                    """)
        }
    }

    /// Runs `body` (inside a write transaction) without queueing its writes: to this table, and to the
    /// tables that reference it, whose rows its foreign keys' actions change (a server's deletion of a
    /// parent cascades to the children here as it did there, and is not pushed back). Pauses nest: an
    /// inner one leaves the outer one's pause in place. When the capture triggers are the only triggers
    /// its writes could start, they are turned off for `body`, so that server data costs no trigger per
    /// row; the pause row keeps them silent otherwise.
    func withCapturePaused<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: #"INSERT OR IGNORE INTO "variably_capture_paused" ("table_name") VALUES ('*')"#)
        let isOutermost = db.changesCount > 0
        let result = try db.withoutOwnTriggers(on: table, ownTriggerPrefix: "variably_capture_", body)
        if isOutermost { try db.execute(sql: #"DELETE FROM "variably_capture_paused" WHERE "table_name" = '*'"#) }
        return result
    }

    /// Queues a change of `recordID` (an SQL expression giving the id's JSON text), based on the cursor,
    /// or on the version of the record's own last accepted change when that came after the cursor
    /// (pushed, not yet pulled back). A record already queued keeps its place and its base, and takes the
    /// new operation with a new idempotency key (the queued content is read when pushing). If the
    /// replaced key was sent, it is remembered in `superseded_keys`: the server may have applied it
    /// without the client hearing back (https://www.sqlite.org/json1.html#jins for `json_insert`).
    ///
    /// A deletion of a row (`OLD`) whose version `deletion` names is based on that version unless a
    /// later accepted one exists; it also replaces the base of a queued upsert that had no version.
    /// What a captured write queues.
    enum Change: Equatable {
        /// A row inserted here: new to the server unless a change of it is queued already.
        case insert
        /// A row updated here; `changedColumns` is the SQL that lists the changed columns as a JSON array.
        case update(changedColumns: String)
        case delete
    }

    private func enqueueSQL(
        recordID: String, change: Change, deletion: (version: DeletionVersion, row: String)?, basesChangesOnCursor: Bool
    ) -> String {
        let operation = change == .delete ? "delete" : "upsert"
        let isNew = change == .insert ? "1" : "0"
        let changedColumns: String
        let mergedColumns: String
        if case .update(let columns) = change {
            changedColumns = columns
            // Accumulated until the push that carries them is accepted; a whole-record change stays whole.
            mergedColumns = """
                CASE WHEN "changed_columns" IS NULL OR "is_new" = 1 THEN NULL ELSE (SELECT json_group_array(DISTINCT "value") FROM (
                    SELECT "value" FROM json_each("changed_columns") UNION SELECT "value" FROM json_each(excluded."changed_columns")))
                END
                """
        } else {
            changedColumns = "NULL"
            mergedColumns = "NULL"
        }
        let table = SQL.literal(.text(table))
        let base = deletion.map { "\(deletionBaseSQL($0.version, row: $0.row)), " } ?? ""
        // The table's cursor, last, for a source that compares positions; `NULL` for one that reads
        // record versions only.
        let cursor =
            basesChangesOnCursor
            ? #"(SELECT "cursor" FROM "variably_sync_state" WHERE "table_name" = \#(table))"# : "NULL"
        let rebase =
            deletion.map { deletion in
                """
                "base_cursor" = CASE WHEN "base_cursor" IS NULL OR substr("base_cursor", 1, \(deletion.version.prefix.utf8.count)) \
                IS NOT \(SQL.literal(.text(deletion.version.prefix))) THEN excluded."base_cursor" ELSE "base_cursor" END,
                """
            } ?? ""
        return """
            INSERT INTO "variably_pending_changes"
                ("table_name", "record_id", "operation", "idempotency_key", "base_cursor", "created_at", "is_new",
                 "changed_columns")
            VALUES (\(table), \(recordID), '\(operation)', lower(hex(randomblob(16))), coalesce(
                (SELECT "version" FROM "variably_acknowledged_changes" WHERE "table_name" = \(table) AND "record_id" = \(recordID)),
                (SELECT "version" FROM "variably_record_versions" WHERE "table_name" = \(table) AND "record_id" = \(recordID)),
                \(base)\(cursor)),
                (julianday('now') - 2440587.5) * 86400.0, \(isNew), \(changedColumns))
            ON CONFLICT ("table_name", "record_id") DO UPDATE SET
                \(rebase)"operation" = excluded."operation", "idempotency_key" = excluded."idempotency_key",
                "changed_columns" = \(mergedColumns), "failure" = NULL, "retry_at" = NULL, "attempts" = 0,
                "superseded_keys" = CASE WHEN "sent" = 1
                    THEN json_insert("superseded_keys", '$[#]', "idempotency_key") ELSE "superseded_keys" END,
                "sent" = 0, "transaction_group" = NULL
            """
    }

    /// The base of a deletion of `row` (`OLD`): the prefix and the row's version as JSON text, or `NULL`
    /// when the row has none (https://www.sqlite.org/json1.html#jquote).
    private func deletionBaseSQL(_ version: DeletionVersion, row: String) -> String {
        "CASE WHEN \(row).\(version.quotedColumn) IS NULL THEN NULL "
            + "ELSE \(SQL.literal(.text(version.prefix))) || json_quote(\(row).\(version.quotedColumn)) END"
    }
}
