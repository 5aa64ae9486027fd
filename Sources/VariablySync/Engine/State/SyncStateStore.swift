import Foundation
import VariablySQLite

/// The repository's own tables, next to the model's: the cursor of the last applied page per table,
/// and the queue of local changes. Written in the same transactions as the model's rows, which is
/// what makes pages resumable and local edits durable.
struct SyncStateStore: Sendable {
    /// The model table these rows belong to; one database can hold several repositories.
    let table: String

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS "variably_sync_state" (
            "table_name" TEXT PRIMARY KEY NOT NULL,
            "cursor" TEXT,
            "synced_at" REAL,
            "feed" TEXT
        );
        CREATE TABLE IF NOT EXISTS "variably_pending_changes" (
            "sequence" INTEGER PRIMARY KEY AUTOINCREMENT,
            "table_name" TEXT NOT NULL,
            "record_id" TEXT NOT NULL,
            "operation" TEXT NOT NULL CHECK ("operation" IN ('upsert', 'delete')),
            "idempotency_key" TEXT NOT NULL UNIQUE,
            "base_cursor" TEXT,
            "created_at" REAL NOT NULL,
            "sent" INTEGER NOT NULL DEFAULT 0,
            "superseded_keys" TEXT NOT NULL DEFAULT '[]',
            "is_new" INTEGER NOT NULL DEFAULT 0,
            "changed_columns" TEXT,
            "failure" TEXT,
            "transaction_group" INTEGER,
            UNIQUE ("table_name", "record_id")
        );
        CREATE TABLE IF NOT EXISTS "variably_record_versions" (
            "table_name" TEXT NOT NULL,
            "record_id" TEXT NOT NULL,
            "version" TEXT NOT NULL,
            PRIMARY KEY ("table_name", "record_id")
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS "variably_held_records" (
            "table_name" TEXT NOT NULL,
            "record_id" TEXT NOT NULL,
            "record" BLOB NOT NULL,
            "version" TEXT,
            PRIMARY KEY ("table_name", "record_id")
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS "variably_acknowledged_changes" (
            "table_name" TEXT NOT NULL,
            "record_id" TEXT NOT NULL,
            "version" TEXT NOT NULL,
            PRIMARY KEY ("table_name", "record_id")
        );
        """

    /// The engine's own schema, as named steps recorded in `variably_sync_migrations` (apart from the
    /// app's `variably_migrations`). Never change a step once it has shipped: add one.
    static let migrator: Migrator = {
        var migrator = Migrator(logTable: "variably_sync_migrations")
        // Files written before the engine kept a log of its steps have some of these tables and
        // columns already: the first step brings any of them to one shape.
        migrator.register("1 sync state, queue, record versions, acknowledgements") { db in
            try upgradeUnloggedTables(db)
        }
        migrator.register("2 parked records: references, state, columns to empty") { db in
            try db.execute(sql: #"ALTER TABLE "variably_held_records" RENAME TO "variably_parked_records""#)
            // `parents`: the record's reference columns and values (a JSON object), what it waits
            // for; `state`: waiting for a parent, its parent deleted on the server (a restricting
            // reference), or undecodable by the model; `emptied`: the columns its parent's deletion
            // empties (an `ON DELETE SET NULL` reference); `problem`: why it cannot be applied.
            try db.execute(
                sql: #"""
                    ALTER TABLE "variably_parked_records" ADD COLUMN "parents" TEXT;
                    ALTER TABLE "variably_parked_records" ADD COLUMN "state" TEXT NOT NULL DEFAULT 'waiting'
                        CHECK ("state" IN ('waiting', 'parentDeleted', 'undecodable'));
                    ALTER TABLE "variably_parked_records" ADD COLUMN "emptied" TEXT;
                    ALTER TABLE "variably_parked_records" ADD COLUMN "problem" TEXT;
                    ALTER TABLE "variably_parked_records" ADD COLUMN "parked_at" REAL;
                    """#)
        }
        migrator.register("3 pending changes: retries after a failing server") { db in
            // `retry_at`: when a change the server kept failing (5xx after every retry) is sent again;
            // `attempts`: the syncs it failed in, for the backoff; `last_error`: the last failure.
            try db.execute(
                sql: #"""
                    ALTER TABLE "variably_pending_changes" ADD COLUMN "retry_at" REAL;
                    ALTER TABLE "variably_pending_changes" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE "variably_pending_changes" ADD COLUMN "last_error" TEXT;
                    """#)
        }
        migrator.register("4 pending changes: the record a create sent") { db in
            // `created_record`: the JSON a create was sent with, kept while its answer is unknown, so that
            // a deletion of the record before the answer can find the server's copy.
            try db.execute(sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "created_record" BLOB"#)
        }
        return migrator
    }()

    /// Creates the tables, or brings them up to date.
    static func createOrUpgrade(_ db: Database) throws {
        try migrator.migrate(db)
        db.runAtWriteBoundaries(stampTransactionGroupSQL)
    }

    /// The first step: creates the tables, and adds the columns that versions before the log introduced
    /// to older files.
    private static func upgradeUnloggedTables(_ db: Database) throws {
        try db.execute(sql: createSQL)
        let columns = try db.fetch(sql: #"SELECT "name" FROM pragma_table_info('variably_pending_changes')"#)
            .compactMap { if case .text(let name) = $0[0] { name } else { nil } }
        let stateColumns = try db.fetch(sql: #"SELECT "name" FROM pragma_table_info('variably_sync_state')"#)
            .compactMap { if case .text(let name) = $0[0] { name } else { nil } }
        if !stateColumns.contains("feed") {
            try db.execute(sql: #"ALTER TABLE "variably_sync_state" ADD COLUMN "feed" TEXT"#)
        }
        if !columns.contains("sent") {
            try db.execute(sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "sent" INTEGER NOT NULL DEFAULT 0"#)
        }
        if !columns.contains("superseded_keys") {
            try db.execute(
                sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "superseded_keys" TEXT NOT NULL DEFAULT '[]'"#)
        }
        if !columns.contains("is_new") {
            try db.execute(
                sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "is_new" INTEGER NOT NULL DEFAULT 0"#)
        }
        if !columns.contains("changed_columns") {
            try db.execute(sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "changed_columns" TEXT"#)
        }
        if !columns.contains("failure") {
            try db.execute(sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "failure" TEXT"#)
        }
        if !columns.contains("transaction_group") {
            // Changes queued by an older version form one group, the oldest.
            try db.execute(sql: #"ALTER TABLE "variably_pending_changes" ADD COLUMN "transaction_group" INTEGER"#)
            try db.execute(sql: #"UPDATE "variably_pending_changes" SET "transaction_group" = 1"#)
        }
        try db.execute(
            sql: #"""
                CREATE INDEX IF NOT EXISTS "variably_pending_changes_by_group"
                ON "variably_pending_changes" ("transaction_group")
                """#)
    }

    func cursor(_ db: Database) throws -> SyncCursor? {
        let value = try db.fetchValue(
            sql: #"SELECT "cursor" FROM "variably_sync_state" WHERE "table_name" = ?"#, arguments: [table])
        guard case .text(let text)? = value else { return nil }
        return SyncCursor(rawValue: text)
    }

    /// The ``RemoteSource/feedIdentifier`` of the source the table was last caught up with; `nil`
    /// before the first complete pull (and in files written before feeds were recorded).
    func feed(_ db: Database) throws -> String? {
        let value = try db.fetchValue(
            sql: #"SELECT "feed" FROM "variably_sync_state" WHERE "table_name" = ?"#, arguments: [table])
        guard case .text(let text)? = value else { return nil }
        return text
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
        let changes = try changes(where: #""failure" IS NOT NULL"#, db)
        let failures = try db.fetch(
            sql: #"""
                SELECT "failure" FROM "variably_pending_changes"
                WHERE "table_name" = ? AND "failure" IS NOT NULL
                ORDER BY coalesce("transaction_group", 9223372036854775807), "sequence"
                """#,
            arguments: [table]
        ).map { if case .text(let text) = $0[0] { text } else { "" } }
        return Array(zip(changes, failures))
    }

    /// The queued change of the record with `recordID` (its JSON text), failed or not.
    func change(of recordID: String, _ db: Database) throws -> PendingChange? {
        try changes(where: #""record_id" = ?"#, arguments: [.text(recordID)], db).first
    }

    private func changes(where condition: String, arguments: [SQLValue] = [], _ db: Database) throws -> [PendingChange]
    {
        let rows = try db.fetch(
            sql: #"""
                SELECT "sequence", "record_id", "operation", "idempotency_key", "base_cursor", "superseded_keys",
                    "is_new", "changed_columns", "sent", "created_record"
                FROM "variably_pending_changes" WHERE "table_name" = ? AND \#(condition)
                ORDER BY coalesce("transaction_group", 9223372036854775807), "sequence"
                """#,
            arguments: StatementArguments(([SQLValue.text(table)] + arguments).map { $0 as any SQLValueConvertible }))
        return rows.compactMap { row in
            guard case .integer(let sequence) = row[0], case .text(let recordID) = row[1],
                case .text(let operation) = row[2], let operation = PendingChange.Operation(rawValue: operation),
                case .text(let key) = row[3]
            else { return nil }
            let base: SyncCursor? = if case .text(let text) = row[4] { SyncCursor(rawValue: text) } else { nil }
            var superseded: [String] = []
            if case .text(let json) = row[5] {
                superseded = (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
            }
            var changedColumns: [String]?
            if case .text(let json) = row[7] {
                changedColumns = try? JSONDecoder().decode([String].self, from: Data(json.utf8))
            }
            var change = PendingChange(
                sequence: sequence, recordID: recordID, operation: operation, idempotencyKey: key, baseCursor: base,
                supersededKeys: superseded, isNew: row[6] == .integer(1), changedColumns: changedColumns)
            change.wasSent = row[8] == .integer(1)
            if case .blob(let record) = row[9] { change.createdRecord = record }
            return change
        }
    }

    /// Keeps a refused change queued but held: it is not pushed again until the app retries it or
    /// edits the record again. `failure` is the server's answer, as the report gives it.
    func markFailed(_ change: PendingChange, failure: String, _ db: Database) throws {
        try db.execute(
            sql: #"UPDATE "variably_pending_changes" SET "failure" = ?, "sent" = 0 WHERE "idempotency_key" = ?"#,
            arguments: [failure, change.idempotencyKey])
    }

    /// Makes a held change pushable again, under a new key.
    func clearFailure(of recordID: String, _ db: Database) throws {
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET "failure" = NULL, "idempotency_key" = lower(hex(randomblob(16)))
                WHERE "table_name" = ? AND "record_id" = ? AND "failure" IS NOT NULL
                """#,
            arguments: [table, recordID])
    }

    /// Removes the queued change of a record, whatever its state: the app decided.
    func discard(recordID: String, _ db: Database) throws {
        try db.execute(
            sql: #"DELETE FROM "variably_pending_changes" WHERE "table_name" = ? AND "record_id" = ?"#,
            arguments: [table, recordID])
    }

    /// Marks changes as sent, before the push that carries them: from then on the server may have
    /// applied them even if no answer comes back.
    func markSent(_ changes: [RemoteChange<some Codable & Sendable>], _ db: Database) throws {
        for change in changes {
            if change.isNew, case .upsert(let record) = change.operation {
                try db.execute(
                    sql:
                        #"UPDATE "variably_pending_changes" SET "sent" = 1, "created_record" = ? WHERE "idempotency_key" = ?"#,
                    arguments: [SQLValue.blob(record), SQLValue.text(change.idempotencyKey)])
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
        return Set(
            rows.compactMap { if case .text(let id) = $0[0] { Self.primaryKey(fromQueueText: id) } else { nil } })
    }

    /// A queued record id (the primary key's JSON text, as `json_quote` writes it) as the key's SQL value.
    static func primaryKey(fromQueueText text: String) -> SQLValue? {
        if text.hasPrefix("\"") {
            return (try? JSONDecoder().decode(String.self, from: Data(text.utf8))).map(SQLValue.text)
        }
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(SQLValue.real)
    }

    /// Removes a pushed change. If the record was edited again meanwhile (the key changed), the newer
    /// change stays queued, rebased on `version` so that it does not conflict with its own predecessor.
    /// An accepted `version` is remembered until the pull catches up, as the base of the next edit.
    func complete(_ change: PendingChange, version: SyncCursor?, _ db: Database) throws {
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
        if db.changesCount == 0, let version {
            try db.execute(
                sql: #"""
                    UPDATE "variably_pending_changes" SET "base_cursor" = ?
                    WHERE "table_name" = ? AND "record_id" = ?
                    """#,
                arguments: [version.rawValue, table, change.recordID])
        }
    }

    /// Keeps a conflicting change queued, based on the server's `version` now, under a new key.
    func rebase(_ change: PendingChange, operation: PendingChange.Operation, on version: SyncCursor, _ db: Database)
        throws
    {
        try db.execute(
            sql: #"""
                UPDATE "variably_pending_changes" SET "base_cursor" = ?, "operation" = ?, "idempotency_key" = ?, "sent" = 0
                WHERE "idempotency_key" = ?
                """#,
            arguments: [version.rawValue, operation.rawValue, UUID().uuidString, change.idempotencyKey])
    }
}
