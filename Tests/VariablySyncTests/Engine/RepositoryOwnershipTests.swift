import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Counts pushes per idempotency key in front of a simulated server.
private actor CountingSource: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    private(set) var pushedKeys: [String] = []

    init(_ server: SimulatedServer<User>) {
        self.server = server
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await Task.sleep(for: .microseconds(200))
        return try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        pushedKeys += changes.map(\.idempotencyKey)
        return try await server.push(changes)
    }
}

/// A server that always answers "more to come" with the same cursor.
private struct StuckSource: RemoteSource {
    typealias Model = User

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        let record = try JSONEncoder(source: .remote).encode([User.sample(1)])
        return RemotePage(records: record, deletedIDs: [], nextCursor: SyncCursor(rawValue: "7"), hasMore: true)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { [] }
}

/// A server that accepts pushes without answering for them.
private struct SilentPushSource: RemoteSource {
    typealias Model = User

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        RemotePage(records: Data("[]".utf8), deletedIDs: [], nextCursor: SyncCursor(rawValue: "1"), hasMore: false)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] { [] }
}

@Suite("Repository: one sync at a time, and no local write lost")
struct RepositoryOwnershipTests {
    @Test func concurrentSyncsAndResyncsPushEachChangeOnce() async throws {
        let server = try SimulatedServer(records: User.samples(300), seed: 11)
        let source = CountingSource(server)
        let repository = try Repository(
            database: .inMemory(), remote: source,
            configuration: SyncConfiguration(pageSize: 50, retryPolicy: quickRetries))
        try await repository.sync()
        for id in 1...40 {
            var user = try await #require(try repository.fetch(id: Int64(id)))
            user.nickname = "edited \(id)"
            try await repository.save(user)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    if index.isMultiple(of: 3) { try await repository.resync() } else { try await repository.sync() }
                }
            }
            try await group.waitForAll()
        }
        let keys = await source.pushedKeys
        #expect(keys.count == 40)
        #expect(Set(keys).count == keys.count)
        await #expect(try repository.pendingChangeCount() == 0)
        #expect(await server.record(id: 7)?.nickname == "edited 7")
        await #expect(try repository.count() == 300)
    }

    @Test func directWritesAreQueuedAndPushedNotOverwritten() async throws {
        let server = try SimulatedServer(records: User.samples(20), seed: 12)
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(
            database: database, remote: server, configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await repository.sync()
        await #expect(try repository.pendingChangeCount() == 0)

        var user = User.sample(2)  // id 3
        user.nickname = "written directly"
        let edited = user
        try await database.write { db in
            try db.upsert(edited)
            try db.execute(sql: #"UPDATE "users" SET "age" = 77 WHERE "id" = 4"#)
            _ = try db.delete(User.self, id: 5)
        }
        await #expect(try repository.pendingChangeCount() == 3)

        try await server.update(id: 9) { $0.age = 1 }
        let report = try await repository.sync()
        #expect(report.pushed == 3)
        await #expect(try repository.fetch(id: 3)?.nickname == "written directly")
        await #expect(try repository.fetch(id: 4)?.age == 77)
        await #expect(try repository.fetch(id: 5) == nil)
        #expect(await server.record(id: 3)?.nickname == "written directly")
        #expect(await server.record(id: 4)?.age == 77)
        #expect(await server.record(id: 5) == nil)
        // What the pull wrote was not queued back.
        await #expect(try repository.fetch(id: 9)?.age == 1)
        await #expect(try repository.pendingChangeCount() == 0)
    }

    @Test func aCursorThatNeverAdvancesStopsTheSync() async throws {
        let repository = try Repository(
            database: .inMemory(), remote: StuckSource(), configuration: SyncConfiguration(retryPolicy: quickRetries))
        await #expect {
            try await repository.sync()
        } throws: { error in
            guard case SyncError.cursorDidNotAdvance(let cursor) = error else { return false }
            return cursor == SyncCursor(rawValue: "7")
        }
        // What was applied before stopping stays, once.
        await #expect(try repository.count() == 1)
    }

    @Test func aPushAnsweredWithoutResultsIsAnInvalidResponse() async throws {
        let database = try SQLiteDatabase.inMemory()
        let repository = try Repository(
            database: database, remote: SilentPushSource(), configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await repository.save(User.sample(1))
        await #expect {
            try await repository.sync()
        } throws: { error in
            guard case SyncError.invalidResponse(let reason) = error else { return false }
            return reason.contains("1 change(s)") && reason.contains("0 result(s)")
        }
        await #expect(try repository.pendingChangeCount() == 1)
    }
}
