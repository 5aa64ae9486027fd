import Foundation
import Testing
import VariablySQLite
@testable import VariablySync

/// The named steps that create and upgrade the engine's own tables.
@Suite struct SyncStateSchemaTests {
    @Test func aNewFileRunsEveryStepInOrder() throws {
        let database = try SQLiteDatabase.inMemory()
        try database.write { try SyncStateStore.createOrUpgrade($0) }
        #expect(
            SyncStateSchema.migrator.identifiers == [
                "1 sync state, queue, record versions, acknowledgements",
                "2 parked records: references, state, columns to empty",
                "3 pending changes: retries after a failing server",
                "4 pending changes: the record a create sent",
                "5 feed positions: a table of their own",
                "6 capture pauses",
                "7 server date formats",
                "8 pre-edit rows",
            ])
        let (applied, missing) = try database.read { db in
            let tables = [
                "variably_sync_state", "variably_feed_positions", "variably_pending_changes",
                "variably_record_versions", "variably_acknowledged_changes", "variably_parked_records",
                "variably_capture_paused", "variably_server_date_formats", "variably_pre_edit_rows",
            ]
            return try (SyncStateSchema.migrator.appliedIdentifiers(in: db), tables.filter { try !db.tableExists($0) })
        }
        #expect(applied == Set(SyncStateSchema.migrator.identifiers))
        #expect(missing.isEmpty)
    }

    /// Versions before step 5 kept a feed's cursor in `variably_sync_state` under a fake table name.
    @Test func feedCursorsMoveToTheirOwnTable() throws {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try SyncStateStore.createOrUpgrade(db)
            try db.execute(sql: #"DROP TABLE "variably_feed_positions""#)
            try db.execute(sql: #"DELETE FROM "variably_sync_migrations" WHERE "identifier" LIKE '5 %'"#)
            try db.execute(
                sql: #"""
                    INSERT INTO "variably_sync_state" ("table_name", "cursor", "synced_at", "feed") VALUES
                        ('variably_feed:comments,posts,users', '16', 1700000000, 'the feed'),
                        ('users', '16', 1700000000, NULL),
                        ('variablyXfeed:looks like one', '3', NULL, NULL)
                    """#)
            try SyncStateStore.createOrUpgrade(db)
        }
        let (feed, tables) = try database.read { db in
            try (
                FeedPosition(tables: ["users", "posts", "comments"]).row(db),
                db.fetch(TablePositionRow.self, sql: #"SELECT * FROM "variably_sync_state" ORDER BY "table_name""#)
            )
        }
        #expect(feed?.cursor == "16")
        #expect(feed?.feed == "the feed")
        #expect(feed?.syncedAt == Date(timeIntervalSince1970: 1_700_000_000))
        // A table whose name `LIKE 'variably_feed:%'` would match stays a table.
        #expect(tables.map(\.tableName) == ["users", "variablyXfeed:looks like one"])
    }

    @Test func aFeedPositionIsSavedAndReadAsATypedRow() throws {
        let database = try SQLiteDatabase.inMemory()
        let position = FeedPosition(tables: ["posts", "users"])
        try database.write { db in
            try SyncStateStore.createOrUpgrade(db)
            try position.save(cursor: "7", feed: "a feed", db)
            try position.save(cursor: "9", feed: "a feed", db)
        }
        let row = try database.read { try position.row($0) }
        #expect(row?.tables == "posts,users")
        #expect(row?.cursor == "9")
        let cursor = try database.read { try position.cursor($0) }
        #expect(cursor == SyncCursor(rawValue: "9"))
    }
}
