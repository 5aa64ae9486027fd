import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

/// What the writer's change tracking must leave alone: it sees every deleted row, and it keeps
/// SQLite's own bookkeeping working.
@Suite struct ChangeTrackerTests {
    /// A DROP deletes the object's row from the schema table: the tracking's hold on deletions must
    /// not keep it (it did, silently, for every index, trigger, view and table).
    @Test func dropStatementsRemoveTheirObjects() throws {
        let database = try SQLiteDatabase.inMemory()
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "kept" ("a" INTEGER);
                    CREATE TABLE "dropped" ("a" INTEGER, "b" INTEGER);
                    CREATE INDEX "dropped_b" ON "dropped" ("b");
                    CREATE TRIGGER "dropped_trigger" AFTER INSERT ON "dropped" BEGIN SELECT 1; END;
                    CREATE VIEW "dropped_view" AS SELECT "a" FROM "kept";
                    """)
        }
        try database.write { db in
            try db.execute(sql: #"DROP INDEX "dropped_b""#)
            try db.execute(sql: #"DROP TRIGGER "dropped_trigger""#)
            try db.execute(sql: #"DROP VIEW "dropped_view""#)
        }
        let afterFirst = try database.read { db in
            try db.fetch(sql: #"SELECT "name" FROM "sqlite_master" ORDER BY "name""#).map { $0[0] }
        }
        #expect(afterFirst == [.text("dropped"), .text("kept")])
        try database.write { db in try db.execute(sql: #"DROP TABLE "dropped""#) }
        let afterSecond = try database.read { db in
            try db.fetch(sql: #"SELECT "name" FROM "sqlite_master""#).map { $0[0] }
        }
        #expect(afterSecond == [.text("kept")])
    }

    /// `DELETE` without `WHERE` is still seen row by row (no truncate optimization): an observer of a
    /// count hears it.
    @Test func deletingEveryRowIsObserved() async throws {
        let (path, cleanUp) = try TestDatabase.temporaryPath()
        defer { cleanUp() }
        let database = try SQLiteDatabase(path: path)
        try await database.write { db in
            try db.migrate(User.self)
            try db.insert(User.samples(3))
        }
        var counts = database.observeCount(User.self).makeAsyncIterator()
        #expect(try await counts.next() == 3)
        try await database.write { db in try db.execute(sql: #"DELETE FROM "users""#) }
        #expect(try await counts.next() == 0)
    }
}
