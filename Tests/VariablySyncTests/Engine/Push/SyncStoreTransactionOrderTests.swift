import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Queued changes reach the server in the order of the local transactions that made them: a store
/// never sends a save before an earlier transaction's deletion, and a record edited again goes with its
/// last transaction.
@Suite struct SyncStoreTransactionOrderTests {
    /// A deletion, then a create in a later transaction: the deletion goes first, though saves go
    /// before deletions within one transaction. A save before them shares the deletion's round.
    @Test func aLaterTransactionsSaveWaitsForAnEarlierDeletion() async throws {
        let fixture = try await SyncStoreTests.Fixture()
        try await fixture.users.save(User(id: 3, userName: "grace"))
        try await fixture.comments.delete(id: 100)
        try await fixture.database.write { db in
            try db.upsert(User(id: 2, userName: "ada"))
            try db.upsert(Post(id: 20, authorID: 2, title: "second"))
        }
        let report = try await fixture.store.sync()
        #expect(
            await fixture.log.entries == [
                "users save 3", "comments delete 100", "users save 2", "posts save 20",
            ])
        #expect(report.for(User.self)?.pushed == 2)
        #expect(report.for(Comment.self)?.pushed == 1)
        #expect(try await fixture.users.pendingChangeCount() + fixture.comments.pendingChangeCount() == 0)
        #expect(await fixture.commentServer.record(id: 100) == nil)
        #expect(await fixture.postServer.record(id: 20)?.authorID == 2)
    }

    /// docs/relationships.md, "Transactions and push order".
    @Test func theTransactionsPageExample() async throws {
        let fixture = try await SyncStoreTests.Fixture()
        let (users, database, store) = (fixture.users, fixture.database, fixture.store)
        let bob = User(id: 8, userName: "bob")
        try await users.save(bob)
        try await store.sync()

        try await users.delete(id: bob.id)  // transaction 1: a deletion
        try await database.write { db in  // transaction 2: saves
            try db.upsert(User(id: 7, userName: "bob"))
            try db.upsert(Post(id: 70, authorID: 7, title: "hello again"))
        }
        try await store.sync()  // round 1: delete user bob; round 2: save user 7, then post 70
        #expect(
            await fixture.log.entries == ["users save 8", "users delete 8", "users save 7", "posts save 70"])
    }

    /// Saves and deletions that never cross go in one round, as before: one push per table and
    /// operation, whatever the number of transactions.
    @Test func transactionsThatNeverCrossShareOneRound() async throws {
        let fixture = try await SyncStoreTests.Fixture()
        for id in Int64(2)...5 { try await fixture.users.save(User(id: id, userName: "w\(id)")) }
        try await fixture.posts.save(Post(id: 20, authorID: 2, title: "second"))
        try await fixture.comments.delete(id: 100)
        let before = await fixture.userServer.statistics.pushes
        try await fixture.store.sync()
        #expect(await fixture.userServer.statistics.pushes == before + 1)
        #expect(
            await fixture.log.entries == [
                "users save 2", "users save 3", "users save 4", "users save 5", "posts save 20",
                "comments delete 100",
            ])
    }

    /// A record queued, then others, then the first edited again: it goes with its last transaction,
    /// whose content it carries, alone as in a store.
    @Test func aRecordEditedAgainGoesWithItsLastTransaction() async throws {
        let fixture = try await SyncStoreTests.Fixture()
        try await fixture.users.save(User(id: 2, userName: "first name"))
        try await fixture.users.save(User(id: 3, userName: "grace"))
        try await fixture.users.save(User(id: 2, userName: "second name"))
        try await fixture.users.sync()
        #expect(await fixture.log.entries == ["users save 3", "users save 2"])
        #expect(await fixture.userServer.record(id: 2)?.userName == "second name")
    }

    /// Changes another connection queued between two of the repository's transactions (raw SQL, no
    /// repository open on it) form a group of their own, between those two.
    @Test func anotherConnectionsWritesKeepTheirPlace() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.sqlite").path
        let log = PushLog()
        let users = User.samples(3)
        let server = try SimulatedServer(records: users, seed: 4)
        let database = try SQLiteDatabase(path: path)
        let repository = try Repository(
            database: database, remote: LoggingRemote(server, log: log, table: "users"),
            configuration: makeConfiguration())
        try await repository.sync()

        var first = users[0]
        first.email = "first@example.com"
        try await repository.save(first)
        let other = try SQLiteDatabase(path: path)
        try await other.write {
            try $0.execute(sql: #"DELETE FROM "users" WHERE "id" = ?"#, arguments: [users[1].id])
        }
        let new = User.sample(7)
        try await repository.save(new)
        first.email = "again@example.com"
        try await repository.save(first)
        try await repository.sync()
        let entries = await log.entries
        #expect(
            entries == [
                "users delete \(users[1].id)", "users save \(new.id)", "users save \(users[0].id)",
            ])
        #expect(await server.record(id: users[1].id) == nil)
        #expect(await server.record(id: users[0].id)?.email == "again@example.com")
    }

    /// A file whose queue an earlier version wrote (no transaction groups): opened now, its changes are
    /// one group, the oldest, and push as before.
    @Test func aQueueWrittenBeforeTransactionGroupsIsOneGroup() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.sqlite").path
        let server = try SimulatedServer(records: User.samples(2), seed: 5)
        do {
            let repository = try Repository(
                database: try SQLiteDatabase(path: path), remote: server, configuration: makeConfiguration())
            try await repository.sync()
            try await repository.save(User.sample(4))
            // Outside of `write`, whose last statement stamps the groups of the column removed here.
            try repository.database.writeWithoutTransaction { db in
                try db.execute(sql: #"DROP INDEX "variably_pending_changes_by_group""#)
                try db.execute(sql: #"ALTER TABLE "variably_pending_changes" DROP COLUMN "transaction_group""#)
                // Older versions kept no log of the engine's schema steps: the first one runs again.
                try db.execute(sql: #"DELETE FROM "variably_sync_migrations" WHERE "identifier" LIKE '1 %'"#)
            }
        }
        let database = try SQLiteDatabase(path: path)
        let repository = try Repository(database: database, remote: server, configuration: makeConfiguration())
        let groups = try await database.read { db in
            try db.fetch(sql: #"SELECT "transaction_group" FROM "variably_pending_changes""#).map { $0[0] }
        }
        #expect(groups == [.integer(1)])
        try await repository.save(User.sample(5))
        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(await server.record(id: User.sample(4).id) != nil)
    }

    /// Capture triggers of an earlier version are replaced when a repository opens, not kept beside the
    /// new ones: each write queues once, stamped with its group.
    @Test func olderCaptureTriggersAreReplaced() async throws {
        let database = try SQLiteDatabase.inMemory()
        let server = try SimulatedServer(records: User.samples(2), seed: 6)
        _ = try Repository(database: database, remote: server, configuration: makeConfiguration())
        try await database.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER "variably_capture_v1_0_users_insert" AFTER INSERT ON "users"
                    BEGIN INSERT INTO "variably_pending_changes" ("table_name", "record_id", "operation",
                        "idempotency_key", "created_at") VALUES ('stale', NEW."id", 'upsert', hex(randomblob(16)), 0); END
                    """)
        }
        let repository = try Repository(database: database, remote: server, configuration: makeConfiguration())
        try await repository.save(User.sample(3))
        let triggers = try await database.read { db in
            try db.fetch(
                sql:
                    #"SELECT "name" FROM "sqlite_master" WHERE "type" = 'trigger' AND "name" LIKE 'variably_capture_v1_%'"#
            )
        }
        #expect(triggers.isEmpty)
        let queued = try await database.read { db in
            try db.fetch(sql: #"SELECT "table_name", "transaction_group" IS NOT NULL FROM "variably_pending_changes""#)
                .map { [$0[0], $0[1]] }
        }
        #expect(queued == [[.text("users"), .integer(1)]])
    }
}
