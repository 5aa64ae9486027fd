import Foundation
import Testing
import VariablySQLite

@Suite struct DatabaseTriggersTests {
    /// Creates `items`, a `log` table and a trigger named `name` that logs each insert into `items`.
    private func makeItems(trigger name: String, _ db: Database) throws {
        try db.execute(sql: #"CREATE TABLE "items" ("id" INTEGER PRIMARY KEY, "name" TEXT)"#)
        try db.execute(sql: #"CREATE TABLE "log" ("trigger" TEXT, "id" INTEGER)"#)
        try addLogger(named: name, db)
    }

    private func addLogger(named name: String, _ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TRIGGER "\(name)" AFTER INSERT ON "items"
                BEGIN INSERT INTO "log" VALUES ('\(name)', NEW."id"); END
                """)
    }

    private func insert(_ id: Int, _ db: Database) throws {
        try db.execute(sql: #"INSERT INTO "items" VALUES (?, 'x')"#, arguments: [id])
    }

    /// The log as `"trigger id"`, sorted.
    private func logged(_ db: Database) throws -> [String] {
        try db.fetch(sql: #"SELECT "trigger", "id" FROM "log""#).map { row in
            guard case .text(let name) = row[0], case .integer(let id) = row[1] else { return "?" }
            return "\(name) \(id)"
        }.sorted()
    }

    @Test func ownTriggersSkipTheBodysWritesAndFireAgainAfterIt() throws {
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(1, db) }
            try insert(2, db)
            #expect(try logged(db) == ["own_log 2"])
        }
    }

    @Test func anotherTriggerOnTheTableKeepsEveryTriggerOn() throws {
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try addLogger(named: "app_log", db)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(1, db) }
            #expect(try logged(db) == ["app_log 1", "own_log 1"])
        }
    }

    @Test func aTemporaryTriggerStillFiresInsideTheBody() throws {
        // A connection's own TEMP triggers are left on (SQLite 3.35.0 and later; before, nothing is
        // turned off).
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER "session_log" AFTER INSERT ON "main"."items"
                    BEGIN INSERT INTO "log" VALUES ('session_log', NEW."id"); END
                    """)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(1, db) }
            #expect(try logged(db) == ["session_log 1"])
        }
    }

    @Test func aForeignKeyToTheTableKeepsEveryTriggerOnWhenAnotherTriggerCouldFire() throws {
        // A cascade from the table could reach the other table's trigger, which is not the caller's.
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try db.execute(
                sql:
                    #"CREATE TABLE "parts" ("id" INTEGER PRIMARY KEY, "item" INTEGER REFERENCES "ITEMS" ("id") ON DELETE CASCADE)"#
            )
            try db.execute(sql: #"CREATE TRIGGER "app_parts" AFTER DELETE ON "parts" BEGIN SELECT 1; END"#)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(1, db) }
            #expect(try logged(db) == ["own_log 1"])
        }
    }

    /// With only the caller's triggers in the schema, a parent table's writes skip them too, and its
    /// foreign keys' actions still run: a deletion cascades to the children.
    @Test func aParentTableSkipsOwnTriggersAndItsCascadesStillRun() throws {
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try db.execute(
                sql:
                    #"CREATE TABLE "parts" ("id" INTEGER PRIMARY KEY, "item" INTEGER REFERENCES "ITEMS" ("id") ON DELETE CASCADE)"#
            )
            try db.execute(
                sql:
                    #"CREATE TRIGGER "own_parts" AFTER DELETE ON "parts" BEGIN INSERT INTO "log" VALUES ('own_parts', OLD."id"); END"#
            )
            try insert(1, db)
            try db.execute(sql: #"INSERT INTO "parts" VALUES (10, 1)"#)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") {
                try insert(2, db)
                try db.execute(sql: #"DELETE FROM "items" WHERE "id" = 1"#)
            }
            #expect(try logged(db) == ["own_log 1"])
            #expect(try db.fetchValue(sql: #"SELECT count(*) FROM "parts""#) == .integer(0))
        }
    }

    @Test func aTriggerCreatedAfterAnEarlierCallIsSeen() throws {
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(1, db) }
            try addLogger(named: "app_log", db)
            try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") { try insert(2, db) }
            #expect(try logged(db) == ["app_log 2", "own_log 2"])
        }
    }

    @Test func aThrowingBodyLeavesTriggersOn() throws {
        struct Stop: Error {}
        try SQLiteDatabase.inMemory().write { db in
            try makeItems(trigger: "own_log", db)
            #expect(throws: Stop.self) {
                try db.withoutOwnTriggers(on: "items", ownTriggerPrefix: "own_") {
                    try insert(1, db)
                    throw Stop()
                }
            }
            try insert(2, db)
            #expect(try logged(db) == ["own_log 2"])
        }
    }
}
