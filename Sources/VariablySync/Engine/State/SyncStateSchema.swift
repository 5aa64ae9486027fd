import Foundation
import VariablySQLite

/// The sync engine's own tables, created and upgraded by named steps recorded in
/// `variably_sync_migrations` (apart from the app's `variably_migrations`):
///
/// - `variably_sync_state` (``TablePositionRow``): each model table's cursor and the feed it came from;
/// - `variably_feed_positions` (``FeedPositionRow``): the cursor of a change feed of several tables;
/// - `variably_pending_changes` (``QueuedChangeRow``): the outbox, one queued change per record;
/// - `variably_record_versions` and `variably_acknowledged_changes` (``RecordVersionRow``): the versions
///   of pulled records, and of pushed changes until the pull catches up;
/// - `variably_parked_records` (``ParkedRecordRow``): server records the pull could not apply yet;
/// - `variably_pre_edit_rows`: the pulled row of a record with no version kept, as it was before its
///   first queued edit (see `SyncStateStore+PreEditRows`);
/// - `variably_capture_paused`: the pause of the capture triggers, inside a transaction that applies
///   server data;
/// - `variably_server_date_formats` (``ServerDateFormatsRow``): the form the server writes each date
///   field in, so that pushed dates are written the same way.
///
/// Never change a step once it has shipped: add one. A file written by an earlier version runs the
/// steps it lacks, in order.
enum SyncStateSchema {
    /// The steps, in order.
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
        migrator.register("5 feed positions: a table of their own") { db in
            try moveFeedPositions(db)
        }
        migrator.register("6 capture pauses") { db in
            // Versions before this step created the table when they installed a table's triggers.
            try db.execute(
                sql: #"""
                    CREATE TABLE IF NOT EXISTS "variably_capture_paused" ("table_name" TEXT PRIMARY KEY NOT NULL)
                    WITHOUT ROWID
                    """#)
        }
        migrator.register("7 server date formats") { db in
            try db.execute(
                sql: #"""
                    CREATE TABLE "variably_server_date_formats" (
                        "table_name" TEXT PRIMARY KEY NOT NULL,
                        "formats" TEXT NOT NULL
                    )
                    """#)
        }
        migrator.register("8 pre-edit rows") { db in
            try createPreEditRows(db)
        }
        return migrator
    }()

    /// Creates the tables, or brings them up to date.
    static func createOrUpgrade(_ db: Database) throws {
        try migrator.migrate(db)
    }

    /// Step 8: the columns of a record's row before its first queued edit, one row per column, each value
    /// as the column held it (the `value` column has no type, so SQLite keeps integers, reals, text and
    /// blobs exactly: https://www.sqlite.org/datatype3.html#affinity_name_examples).
    private static func createPreEditRows(_ db: Database) throws {
        try db.execute(
            sql: #"""
                CREATE TABLE "variably_pre_edit_rows" (
                    "table_name" TEXT NOT NULL,
                    "record_id" TEXT NOT NULL,
                    "column_name" TEXT NOT NULL,
                    "value",
                    PRIMARY KEY ("table_name", "record_id", "column_name")
                ) WITHOUT ROWID
                """#)
    }

    /// The prefix under which versions before step 5 kept a feed's cursor in `variably_sync_state`,
    /// as if it were a table: `variably_feed:comments,posts,users`.
    static let oldFeedPrefix = "variably_feed:"

    /// Step 5: the cursors of change feeds move from fake table names in `variably_sync_state` to
    /// `variably_feed_positions`, keyed by their tables.
    private static func moveFeedPositions(_ db: Database) throws {
        try db.execute(
            sql: #"""
                CREATE TABLE "variably_feed_positions" (
                    "tables" TEXT PRIMARY KEY NOT NULL,
                    "cursor" TEXT,
                    "synced_at" REAL,
                    "feed" TEXT
                )
                """#)
        // `substr`, not `LIKE`: `_` is a wildcard of `LIKE` (https://www.sqlite.org/lang_expr.html#like).
        let isFeed = #"substr("table_name", 1, \#(oldFeedPrefix.utf8.count)) = '\#(oldFeedPrefix)'"#
        try db.execute(
            sql: #"""
                INSERT INTO "variably_feed_positions" ("tables", "cursor", "synced_at", "feed")
                SELECT substr("table_name", \#(oldFeedPrefix.utf8.count + 1)), "cursor", "synced_at", "feed"
                FROM "variably_sync_state" WHERE \#(isFeed)
                """#)
        try db.execute(sql: #"DELETE FROM "variably_sync_state" WHERE "# + isFeed)
    }

    /// The tables as the first step makes them.
    private static let firstTablesSQL = """
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

    /// The columns that versions before the log added to older files one by one, with their
    /// definitions: a file without the log may lack any of them.
    private static let unloggedColumns: [(table: String, column: String, definition: String)] = [
        ("variably_sync_state", "feed", "TEXT"),
        ("variably_pending_changes", "sent", "INTEGER NOT NULL DEFAULT 0"),
        ("variably_pending_changes", "superseded_keys", "TEXT NOT NULL DEFAULT '[]'"),
        ("variably_pending_changes", "is_new", "INTEGER NOT NULL DEFAULT 0"),
        ("variably_pending_changes", "changed_columns", "TEXT"),
        ("variably_pending_changes", "failure", "TEXT"),
        ("variably_pending_changes", "transaction_group", "INTEGER"),
    ]

    /// The first step: creates the tables, and adds the columns that versions before the log
    /// introduced to older files. (The file has no record of which of them it has: the first step
    /// alone looks.)
    private static func upgradeUnloggedTables(_ db: Database) throws {
        try db.execute(sql: firstTablesSQL)
        for (table, column, definition) in unloggedColumns {
            let present = try db.fetchValue(
                sql: #"SELECT 1 FROM pragma_table_info(?) WHERE "name" = ?"#, arguments: [table, column])
            guard present == nil else { continue }
            try db.execute(sql: "ALTER TABLE \(SQL.quote(table)) ADD COLUMN \(SQL.quote(column)) \(definition)")
            if column == "transaction_group" {
                // Changes queued by an older version form one group, the oldest.
                try db.execute(sql: #"UPDATE "variably_pending_changes" SET "transaction_group" = 1"#)
            }
        }
        try db.execute(
            sql: #"""
                CREATE INDEX IF NOT EXISTS "variably_pending_changes_by_group"
                ON "variably_pending_changes" ("transaction_group")
                """#)
    }
}
