import Foundation
import VariablySQLite

/// The repository's own tables, next to the model's: the cursor of the last applied page per table,
/// and the queue of local changes. Written in the same transactions as the model's rows, which is
/// what makes pages resumable and local edits durable. The tables, their row types and the named
/// steps that create them are in ``SyncStateSchema``.
struct SyncStateStore: Sendable {
    /// The model table these rows belong to; one database can hold several repositories.
    let table: String

    /// Creates the tables, or brings them up to date by the named steps of ``SyncStateSchema``.
    /// The table's parked server records.
    var parked: ParkedRecords { ParkedRecords(table: table) }
    /// The table's rows as they were before their first queued edit.
    var preEditRows: PreEditRows { PreEditRows(table: table) }
    /// The forms the server writes the table's dates in.
    var serverDates: ServerDateFormatStore { ServerDateFormatStore(table: table) }

    static func createOrUpgrade(_ db: Database) throws {
        try SyncStateSchema.createOrUpgrade(db)
        db.runAtWriteBoundaries(stampTransactionGroupSQL)
    }

    /// The table's row of `variably_sync_state`, if it has one.
    func position(_ db: Database) throws -> TablePositionRow? {
        try db.fetch(
            TablePositionRow.self,
            sql: #"""
                SELECT "table_name", "cursor", "synced_at", "feed" FROM "variably_sync_state" WHERE "table_name" = ?
                """#,
            arguments: [table]
        ).first
    }

    func cursor(_ db: Database) throws -> SyncCursor? {
        try position(db)?.cursor.map(SyncCursor.init(rawValue:))
    }

    /// The ``RemoteSource/feedIdentifier`` of the source the table was last caught up with; `nil`
    /// before the first complete pull (and in files written before feeds were recorded).
    func feed(_ db: Database) throws -> String? {
        try position(db)?.feed
    }

    func setFeed(_ feed: String, _ db: Database) throws {
        try db.execute(
            sql: #"""
                INSERT INTO "variably_sync_state" ("table_name", "feed") VALUES (?, ?)
                ON CONFLICT ("table_name") DO UPDATE SET "feed" = excluded."feed"
                """#,
            arguments: [table, feed])
    }

    /// Keeps the versions of pulled records as the server sent them (`prefix` and the version's JSON
    /// text), the base of their next local change; `nil` forgets a record's (deleted, or sent none).
    func setVersions(_ versions: [(key: SQLValue, version: String?)], prefix: String, _ db: Database) throws {
        let set = try db.cachedStatement(
            sql: #"""
                INSERT OR REPLACE INTO "variably_record_versions" ("table_name", "record_id", "version")
                VALUES (?, json_quote(?), ?)
                """#)
        let remove = try db.cachedStatement(
            sql: #"DELETE FROM "variably_record_versions" WHERE "table_name" = ? AND "record_id" = json_quote(?)"#)
        for (key, version) in versions {
            if let version {
                try set.execute([table, key, prefix + version])
            } else {
                try remove.execute([table, key])
            }
        }
    }

    /// This table's record versions, as pulled (`variably_record_versions`) or as accepted for a push
    /// the pull has not caught up with (`variably_acknowledged_changes`), by record id.
    ///
    /// - Complexity: O(v) in the table's versions.
    func recordVersions(acknowledged: Bool = false, _ db: Database) throws -> [StoredRecordID: String] {
        let source = acknowledged ? "variably_acknowledged_changes" : "variably_record_versions"
        let rows = try db.fetch(
            RecordVersionRow.self,
            sql: #"SELECT "table_name", "record_id", "version" FROM "# + SQL.quote(source)
                + #" WHERE "table_name" = ?"#,
            arguments: [table])
        return Dictionary(rows.map { ($0.recordID, $0.version) }, uniquingKeysWith: { $1 })
    }

    /// Forgets the accepted versions: the pull has caught up past them, so the cursor is the base again.
    func forgetAcknowledgements(_ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_acknowledged_changes" WHERE "table_name" = ?"#, arguments: [table])
    }

    func setCursor(_ cursor: SyncCursor, _ db: Database) throws {
        // https://www.sqlite.org/lang_upsert.html
        try db.execute(
            sql: #"""
                INSERT INTO "variably_sync_state" ("table_name", "cursor", "synced_at") VALUES (?, ?, ?)
                ON CONFLICT ("table_name") DO UPDATE SET "cursor" = excluded."cursor", "synced_at" = excluded."synced_at"
                """#,
            arguments: [table, cursor.rawValue, Date().timeIntervalSince1970])
    }

    /// The queued changes to push, in the order of the transactions that made them: those the server
    /// refused wait for the app (see ``failed(_:)``).
    ///
    /// - Parameter group: The last transaction group to read; `nil` reads them all.
    func pending(throughGroup group: Int64? = nil, _ db: Database) throws -> [PendingChange] {
        // A change the server kept failing waits for its retry time; the others go.
        let due = #""failure" IS NULL AND coalesce("retry_at", 0) <= (julianday('now') - 2440587.5) * 86400.0"#
        guard let group else { return try changes(where: due, db) }
        return try changes(
            where: due + #" AND coalesce("transaction_group", 9223372036854775807) <= ?"#,
            arguments: [.integer(group)], db)
    }

    /// The queued changes the server refused, with its answer, oldest first.
    func failed(_ db: Database) throws -> [(change: PendingChange, failure: String)] {
        try queuedRows(where: #""failure" IS NOT NULL"#, db).compactMap { row in
            row.pendingChange.map { ($0, row.failure ?? "") }
        }
    }

    /// The queued change of the record with `recordID`, failed or not.
    func change(of recordID: StoredRecordID, _ db: Database) throws -> PendingChange? {
        try changes(where: #""record_id" = ?"#, arguments: [recordID.sqlValue], db).first
    }

    private func changes(where condition: String, arguments: [SQLValue] = [], _ db: Database) throws -> [PendingChange]
    {
        try queuedRows(where: condition, arguments: arguments, db).compactMap(\.pendingChange)
    }

    /// This table's rows of the queue that meet `condition`, in push order: by transaction group (the
    /// changes of a transaction not ended yet last), then as queued.
    ///
    /// - Complexity: O(q log q) in the table's queued changes.
    func queuedRows(where condition: String, arguments: [SQLValue] = [], _ db: Database) throws -> [QueuedChangeRow] {
        try db.fetch(
            QueuedChangeRow.self,
            sql: #"""
                SELECT \#(QueuedChangeRow.selection)
                FROM "variably_pending_changes" WHERE "table_name" = ? AND \#(condition)
                ORDER BY coalesce("transaction_group", 9223372036854775807), "sequence"
                """#,
            arguments: StatementArguments(([SQLValue.text(table)] + arguments).map { $0 as any SQLValueConvertible }))
    }

    /// Keeps a refused change queued but held: it is not pushed again until the app retries it or
    /// edits the record again. `failure` is the server's answer, as the report gives it.
    func markFailed(_ change: PendingChange, failure: String, _ db: Database) throws {
        try db.execute(
            sql: #"UPDATE "variably_pending_changes" SET "failure" = ?, "sent" = 0 WHERE "idempotency_key" = ?"#,
            arguments: [failure, change.idempotencyKey])
    }

    /// Makes a change the app retries pushable with the next sync: a failed one under a new key, and
    /// one retrying after repeated `5xx` answers at once, its backoff ended (under its key: the server
    /// may have applied it).
    func clearFailure(of recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET
                    "idempotency_key" = CASE WHEN "failure" IS NOT NULL
                        THEN lower(hex(randomblob(16))) ELSE "idempotency_key" END,
                    "failure" = NULL, "retry_at" = NULL, "attempts" = 0
                WHERE "table_name" = ? AND "record_id" = ? AND ("failure" IS NOT NULL OR "retry_at" IS NOT NULL)
                """#,
            arguments: [table, recordID])
    }

    /// Removes the queued change of a record, whatever its state: the app decided.
    func discard(recordID: StoredRecordID, _ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_pending_changes" WHERE "table_name" = ? AND "record_id" = ?"#,
            arguments: [table, recordID])
        try preEditRows.dropPreEditRow(of: recordID, db)
    }

    /// Marks changes as sent, before the push that carries them: from then on the server may have
    /// applied them even if no answer comes back.
    func markSent(_ changes: [RemoteChange<some Codable & Sendable>], _ db: Database) throws {
        for change in changes {
            if change.isNew, case .upsert(let record) = change.operation {
                // Every record a create in doubt is sent with is kept: the server may hold any of them.
                let stored = try db.fetchValue(
                    sql: #"SELECT "created_record" FROM "variably_pending_changes" WHERE "idempotency_key" = ?"#,
                    arguments: [change.idempotencyKey])
                let kept: Data? = if case .blob(let data)? = stored { data } else { nil }
                try db.execute(
                    sql:
                        #"UPDATE "variably_pending_changes" SET "sent" = 1, "created_record" = ? WHERE "idempotency_key" = ?"#,
                    arguments: [
                        SQLValue.blob(PendingChange.storing(record, besides: kept)),
                        SQLValue.text(change.idempotencyKey),
                    ])
            } else {
                try db.execute(
                    sql: #"UPDATE "variably_pending_changes" SET "sent" = 1 WHERE "idempotency_key" = ?"#,
                    arguments: [change.idempotencyKey])
            }
        }
    }

    func pendingCount(_ db: Database) throws -> Int {
        let value = try db.fetchValue(
            sql: #"SELECT count(*) FROM "variably_pending_changes" WHERE "table_name" = ?"#, arguments: [table])
        guard case .integer(let count)? = value else { return 0 }
        return Int(count)
    }

    /// The primary keys of the records with a queued change.
    ///
    /// - Complexity: O(q) in the queued changes, whatever the table holds.
    func pendingPrimaryKeys(_ db: Database) throws -> Set<SQLValue> {
        let rows = try db.fetch(
            sql: #"SELECT "record_id" FROM "variably_pending_changes" WHERE "table_name" = ?"#, arguments: [table])
        return Set(rows.compactMap { $0.text("record_id").flatMap { StoredRecordID(rawValue: $0).key } })
    }

    /// Removes a pushed change. If the record was edited again meanwhile (the key changed), the newer
    /// change stays queued, rebased on `version` so that it does not conflict with its own predecessor.
    /// An accepted `version` is remembered until the pull catches up, as the base of the next edit.
    func complete(_ change: PendingChange, version: RecordVersion?, _ db: Database) throws {
        if let version {
            try db.execute(
                sql: #"""
                    INSERT OR REPLACE INTO "variably_acknowledged_changes" ("table_name", "record_id", "version")
                    VALUES (?, ?, ?)
                    """#,
                arguments: [table, change.recordID, version.rawValue])
        }
        try db.execute(
            sql: #"DELETE FROM "variably_pending_changes" WHERE "idempotency_key" = ?"#,
            arguments: [change.idempotencyKey])
        let isReplaced = db.changesCount == 0
        if isReplaced, let version {
            try db.execute(
                sql: #"""
                    UPDATE "variably_pending_changes" SET "base_cursor" = ?
                    WHERE "table_name" = ? AND "record_id" = ?
                    """#,
                arguments: [version.rawValue, table, change.recordID])
        }
        // The newer change of a record still without a version keeps comparing with the row pulled.
        if !isReplaced || version != nil { try preEditRows.dropPreEditRow(of: change.recordID, db) }
    }

    /// Keeps a conflicting change queued, based on the server's `version` now, under a new key.
    func rebase(_ change: PendingChange, operation: PendingChange.Operation, on version: RecordVersion, _ db: Database)
        throws
    {
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET "base_cursor" = ?, "operation" = ?, "idempotency_key" = ?, "sent" = 0
                WHERE "idempotency_key" = ?
                """#,
            arguments: [version.rawValue, operation.rawValue, UUID().uuidString, change.idempotencyKey])
        try preEditRows.dropPreEditRow(of: change.recordID, db)
    }
}
