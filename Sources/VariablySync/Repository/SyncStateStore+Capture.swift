import Foundation
import VariablySQLite

// MARK: - Capturing writes into the queue

/// Every write to a synced table is queued for the next push by SQLite triggers, whoever makes it:
/// ``Repository/save(_:)``, a direct `database.write { try $0.upsert(user) }`, raw SQL, another
/// process. The repository pauses them while it writes what the server sent (pulled pages, settled
/// conflicts, stale records of a resync), inside the same transaction, so that the server's own data
/// is never pushed back.
///
/// A pause is a row in `variably_capture_paused`, inserted and deleted within the transaction that
/// applies server data: no other connection ever sees it, and a rollback removes it with the rest
/// (https://www.sqlite.org/lang_createtrigger.html).
extension SyncStateStore {
    /// Bump when the trigger bodies change: older triggers of the table are replaced.
    static let captureVersion = 1

    /// Creates the capture triggers of the table, replacing those of older versions.
    func installCapture(primaryKeyColumn: String, _ db: Database) throws {
        try db.execute(
            sql: #"""
                CREATE TABLE IF NOT EXISTS "variably_capture_paused" ("table_name" TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID
                """#)
        let prefix = "variably_capture_v\(Self.captureVersion)_\(table)_"
        let stale = try db.fetch(
            sql: #"SELECT "name" FROM "sqlite_master" WHERE "type" = 'trigger' AND "tbl_name" = ? AND "name" LIKE 'variably_capture_v%'"#,
            arguments: [table]
        ).compactMap { row -> String? in
            guard case .text(let name) = row[0], !name.hasPrefix(prefix) else { return nil }
            return name
        }
        for name in stale { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SQL.quote(name))") }

        let quotedTable = SQL.quote(table)
        let tableLiteral = SQL.literal(.text(table))
        let active = #"NOT EXISTS (SELECT 1 FROM "variably_capture_paused" WHERE "table_name" = \#(tableLiteral))"#
        let triggers: [(suffix: String, event: String, condition: String, row: String, operation: String)] = [
            ("insert", "INSERT", active, "NEW", "upsert"),
            ("update", "UPDATE", active, "NEW", "upsert"),
            // A changed primary key removes the record under its old key.
            ("rekey", "UPDATE", "\(active) AND OLD.\(primaryKeyColumn) IS NOT NEW.\(primaryKeyColumn)", "OLD", "delete"),
            ("delete", "DELETE", active, "OLD", "delete"),
        ]
        for trigger in triggers {
            try db.execute(
                sql: """
                    CREATE TRIGGER IF NOT EXISTS \(SQL.quote(prefix + trigger.suffix))
                    AFTER \(trigger.event) ON \(quotedTable) WHEN \(trigger.condition)
                    BEGIN \(enqueueSQL(recordID: "json_quote(\(trigger.row).\(primaryKeyColumn))", operation: trigger.operation)); END
                    """)
        }
    }

    /// Runs `body` (inside a write transaction) without queueing its writes to the table.
    func withCapturePaused<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: #"INSERT OR IGNORE INTO "variably_capture_paused" ("table_name") VALUES (?)"#, arguments: [table])
        let result = try body()
        try db.execute(sql: #"DELETE FROM "variably_capture_paused" WHERE "table_name" = ?"#, arguments: [table])
        return result
    }

    /// Queues a change of `recordID` (an SQL expression giving the id's JSON text), based on the cursor,
    /// or on the version of the record's own last accepted change when that came after the cursor
    /// (pushed, not yet pulled back). A record already queued keeps its place and its base, and takes the
    /// new operation with a new idempotency key (the queued content is read when pushing). If the
    /// replaced key was sent, it is remembered in `superseded_keys`: the server may have applied it
    /// without the client hearing back (https://www.sqlite.org/json1.html#jins for `json_insert`).
    private func enqueueSQL(recordID: String, operation: String) -> String {
        let table = SQL.literal(.text(table))
        return """
            INSERT INTO "variably_pending_changes"
                ("table_name", "record_id", "operation", "idempotency_key", "base_cursor", "created_at")
            VALUES (\(table), \(recordID), '\(operation)', lower(hex(randomblob(16))), coalesce(
                (SELECT "version" FROM "variably_acknowledged_changes" WHERE "table_name" = \(table) AND "record_id" = \(recordID)),
                (SELECT "cursor" FROM "variably_sync_state" WHERE "table_name" = \(table))),
                (julianday('now') - 2440587.5) * 86400.0)
            ON CONFLICT ("table_name", "record_id") DO UPDATE SET
                "operation" = excluded."operation", "idempotency_key" = excluded."idempotency_key",
                "superseded_keys" = CASE WHEN "sent" = 1
                    THEN json_insert("superseded_keys", '$[#]', "idempotency_key") ELSE "superseded_keys" END,
                "sent" = 0
            """
    }
}
