import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

@Suite struct MigratorTests {
    private static func migrator(failingAt failing: String? = nil) -> Migrator {
        struct StepFailed: Error {}
        var migrator = Migrator()
        migrator.register("v1 users") { db in try db.migrate(User.self) }
        migrator.register("v2 seed") { db in
            try db.insert(User.samples(2))
            if failing == "v2 seed" { throw StepFailed() }
        }
        migrator.register("v3 rename") { db in
            try db.execute(sql: "UPDATE users SET nickname = 'migrated' WHERE nickname IS NULL")
        }
        return migrator
    }

    @Test func appliesEachStepOnceInOrder() throws {
        let db = try SQLiteDatabase.inMemory()
        try Self.migrator().migrate(db)
        try Self.migrator().migrate(db)
        let applied = try db.read { try Self.migrator().appliedIdentifiers(in: $0) }
        #expect(applied == ["v1 users", "v2 seed", "v3 rename"])
        let users = try db.read { try $0.fetchAll(User.self) }
        #expect(users.count == 2)
        #expect(users[0].nickname == "migrated")
    }

    @Test func aFailingStepIsRolledBackAndStopsTheMigration() throws {
        let db = try SQLiteDatabase.inMemory()
        #expect(throws: (any Error).self) { try Self.migrator(failingAt: "v2 seed").migrate(db) }
        #expect(try db.read { try Self.migrator().appliedIdentifiers(in: $0) } == ["v1 users"])
        #expect(try db.read { try $0.count(User.self) } == 0)
        try Self.migrator().migrate(db)
        #expect(try db.read { try $0.count(User.self) } == 2)
    }

    @Test func migratesInsideAWriteTransaction() throws {
        let db = try SQLiteDatabase.inMemory()
        try db.write { try Self.migrator().migrate($0) }
        #expect(try db.read { try $0.count(User.self) } == 2)
    }

    @Test func unknownStepsMeanANewerDatabase() throws {
        let db = try SQLiteDatabase.inMemory()
        try Self.migrator().migrate(db)
        var older = Migrator()
        older.register("v1 users") { db in try db.migrate(User.self) }
        #expect(throws: MigrationError.unknownMigrations(["v2 seed", "v3 rename"])) { try older.migrate(db) }
    }
}
