import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A simulated server under a feed name of the test's choosing.
private struct NamedFeed: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    let feedIdentifier: String

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        try await server.push(changes)
    }
}

@Suite("Repository: the cursor belongs to one feed")
struct RepositoryFeedTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).sqlite").path
    }

    @Test func aCacheSyncedWithAnotherFeedStartsOverAndKeepsLocalEdits() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let staging = try SimulatedServer(records: User.samples(40), seed: 1)
        let first = try Repository(
            database: SQLiteDatabase(path: path), remote: NamedFeed(server: staging, feedIdentifier: "staging"),
            configuration: SyncConfiguration(pageSize: 7, retryPolicy: quickRetries))
        try await first.sync()
        #expect(try await first.count() == 40)
        var edited = try #require(try await first.fetch(id: 3))
        edited.nickname = "kept across the switch"
        let database = first.database
        try await first.save(edited)

        // Production has the records 20..<60 only, edited differently.
        let production = try SimulatedServer(records: Array(User.samples(60)[20...]), seed: 2)
        let second = try Repository(
            database: database, remote: NamedFeed(server: production, feedIdentifier: "production"),
            configuration: SyncConfiguration(pageSize: 7, retryPolicy: quickRetries))
        let report = try await second.sync()
        #expect(report.resynced)
        #expect("\(report)".contains("another feed"))
        // The pending edit was pushed to the feed the repository now talks to, then the cache mirrors it.
        #expect(report.pushed == 1)
        #expect(await production.record(id: 3)?.nickname == "kept across the switch")
        let ids = Set(try await second.fetch().map(\.id))
        #expect(ids == Set((20..<60).map { User.sample($0).id } + [3]))

        // The feed is recorded: the next sync continues from its cursor.
        let again = try await second.sync()
        #expect(!again.resynced)
        #expect(again.pulled == 0)
    }

    @Test func theSameFeedContinuesFromItsCursorAndAnUnnamedOneKeepsTheTypeName() async throws {
        let server = try SimulatedServer(records: User.samples(30), seed: 3)
        let repository = try Repository(
            database: .inMemory(), remote: server,
            configuration: SyncConfiguration(pageSize: 10, retryPolicy: quickRetries))
        #expect(server.feedIdentifier.hasPrefix("VariablySyncTesting.SimulatedServer<"))
        let first = try await repository.sync()
        #expect(!first.resynced && first.pulled == 30)
        let second = try await repository.sync()
        #expect(!second.resynced && second.pulled == 0)
    }

    @Test func anHTTPSourceIsNamedByItsBaseURLAndPullPath() throws {
        let remote = HTTPRemoteSource<User>(baseURL: URL(string: "https://api.example.com/v1")!)
        #expect(remote.feedIdentifier == "https://api.example.com/v1 changes")
    }

    @Test func aFileFromBeforeFeedsWereRecordedAdoptsTheFeedItSyncsWith() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try SimulatedServer(records: User.samples(25), seed: 4)
        let first = try Repository(
            database: SQLiteDatabase(path: path), remote: server,
            configuration: SyncConfiguration(pageSize: 10, retryPolicy: quickRetries))
        try await first.sync()
        // The state table as older versions wrote it: no feed column.
        try await first.database.write { db in
            try db.execute(sql: #"ALTER TABLE "variably_sync_state" DROP COLUMN "feed""#)
            // Older versions kept no log of the engine's schema steps: the first one runs again.
            try db.execute(sql: #"DELETE FROM "variably_sync_migrations" WHERE "identifier" LIKE '1 %'"#)
        }
        let reopened = try Repository(
            database: SQLiteDatabase(path: path), remote: server,
            configuration: SyncConfiguration(pageSize: 10, retryPolicy: quickRetries))
        let report = try await reopened.sync()
        #expect(!report.resynced)
        #expect(report.pulled == 0)
        let feed = try await reopened.database.read { db in
            try db.fetchValue(sql: #"SELECT "feed" FROM "variably_sync_state""#)
        }
        #expect(feed == .text(server.feedIdentifier))
    }
}
