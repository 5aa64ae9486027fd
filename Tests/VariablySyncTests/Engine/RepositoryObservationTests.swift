import Foundation
import Observation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A server that answers pulls slowly, so that a sync is still running when the test acts.
private struct SlowSource: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await Task.sleep(for: .milliseconds(5))
        return try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        try await server.push(changes)
    }
}

private func fileRepository(
    _ remote: some RemoteSource<User>, pageSize: Int = 100
) throws -> (Repository<User>, @Sendable () -> Void) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "variably-observe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
    let repository = try Repository(
        database: database, remote: remote,
        configuration: SyncConfiguration(pageSize: pageSize, retryPolicy: quickRetries))
    return (repository, { try? FileManager.default.removeItem(at: directory) })
}

@Suite("Repository: observing the cache while it syncs")
struct RepositoryObservationTests {
    @Test func aCountFollowsTheSyncPageByPage() async throws {
        let server = try SimulatedServer(records: User.samples(1_000), seed: 21)
        let (repository, cleanUp) = try fileRepository(SlowSource(server: server))
        defer { cleanUp() }
        let predicate = #Predicate<User> { $0.isActive && $0.age > 30 }
        var counts = repository.observeCount(where: predicate).makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let sync = Task { try await repository.sync() }
        var seen: [Int] = []
        let expected = User.samples(1_000).filter { $0.isActive && $0.age > 30 }.count
        while seen.last != expected, let count = try await counts.next() { seen.append(count) }
        let report = try await sync.value
        #expect(report.inserted == 1_000)
        // Several intermediate values while pages landed, always growing, ending at the full count.
        #expect(seen.count > 1)
        #expect(seen == seen.sorted())
        #expect(seen.last == expected)
    }

    @Test func savesDeletesAndDirectWritesReachObservers() async throws {
        let server = try SimulatedServer(records: User.samples(20), seed: 22)
        let (repository, cleanUp) = try fileRepository(server)
        defer { cleanUp() }
        try await repository.sync()
        var record = repository.observe(id: 5).makeAsyncIterator()
        var nicknamed = repository.observe(where: #Predicate { $0.nickname == "watched" }).makeAsyncIterator()
        #expect(try await record.next()??.id == 5)
        #expect(try await nicknamed.next() == [])

        var user = try #require(try await repository.fetch(id: 5))
        user.nickname = "watched"
        let saved = user
        try await repository.save(saved)
        #expect(try await record.next() == saved)
        #expect(try await nicknamed.next() == [saved])

        try await repository.database.write { db in
            try db.execute(sql: #"UPDATE "users" SET "nickname" = 'watched' WHERE "id" = 6"#)
        }
        #expect(try await nicknamed.next()?.map(\.id) == [5, 6])

        try await repository.delete(id: 5)
        #expect(try await record.next() == .some(nil))
    }

    @MainActor
    @Test func aLiveQueryUpdatesItsResults() async throws {
        let server = try SimulatedServer(records: User.samples(300), seed: 23)
        let (repository, cleanUp) = try fileRepository(server, pageSize: 50)
        defer { cleanUp() }
        let query = LiveQuery(repository, where: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.id)])
        for _ in 0..<2_000 where !query.isLoaded { try await Task.sleep(for: .milliseconds(1)) }
        #expect(query.isLoaded)
        #expect(query.results.isEmpty)

        let changed = Changed()
        withObservationTracking {
            _ = query.results
        } onChange: {
            changed.mark()
        }
        try await repository.sync()
        let expected = User.samples(300).filter { $0.age > 30 }
        for _ in 0..<5_000 where query.results != expected { try await Task.sleep(for: .milliseconds(1)) }
        #expect(query.results == expected)
        #expect(changed.isMarked)
        #expect(query.error == nil)
    }

    @Test func cancellingASyncStopsItAndKeepsTheCacheConsistent() async throws {
        let server = try SimulatedServer(records: User.samples(5_000), seed: 24)
        let (repository, cleanUp) = try fileRepository(SlowSource(server: server))
        defer { cleanUp() }
        var counts = repository.observeCount().makeAsyncIterator()
        #expect(try await counts.next() == 0)
        let sync = Task { try await repository.sync() }
        // Let a few pages land, then cancel.
        while let count = try await counts.next(), count < 300 {}
        sync.cancel()
        await #expect(throws: CancellationError.self) { try await sync.value }
        // Whole pages only, with their cursor: the next sync resumes after them.
        let cached = try await repository.count()
        #expect(cached % 100 == 0)
        #expect(cached < 5_000)
        let resumed = try await repository.sync()
        #expect(resumed.inserted == 5_000 - cached)
        #expect(try await repository.count() == 5_000)
    }
}

/// Set by an observation's `onChange`, which runs on whatever thread made the change.
private final class Changed: @unchecked Sendable {
    // `@unchecked Sendable`: `marked` is only touched while holding `lock`.
    private let lock = NSLock()
    private var marked = false
    var isMarked: Bool { lock.withLock { marked } }
    func mark() { lock.withLock { marked = true } }
}
