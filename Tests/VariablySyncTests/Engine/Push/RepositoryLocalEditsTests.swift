import Foundation
import Testing
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// Runs a closure inside the first pull after a push: the moment a sync has pushed and not yet pulled.
private actor PausingAfterPush: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    private var hasPushed = false
    private var hook: (@Sendable () async throws -> Void)?

    init(_ server: SimulatedServer<User>) {
        self.server = server
    }

    func runAfterNextPush(_ hook: @escaping @Sendable () async throws -> Void) {
        hasPushed = false
        self.hook = hook
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        if hasPushed, let hook {
            self.hook = nil
            try await hook()
        }
        return try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let results = try await server.push(changes)
        hasPushed = true
        return results
    }
}

/// Applies the first push on the server, then fails for good, as a crash right after sending would.
private actor CrashingAfterFirstPush: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    private var crashed = false

    init(_ server: SimulatedServer<User>) {
        self.server = server
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let results = try await server.push(changes)
        if !crashed {
            crashed = true
            throw RemoteSourceError.unavailable("the app stopped before the answer arrived")
        }
        return results
    }
}

/// Loses the response of the first push after the server applied it, as a dropped connection would.
private actor LosingFirstResponse: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    private var lost = false
    private(set) var pushedKeys: [String] = []

    init(_ server: SimulatedServer<User>) {
        self.server = server
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        pushedKeys += changes.map(\.idempotencyKey)
        let results = try await server.push(changes)
        if !lost {
            lost = true
            throw RemoteSourceError.transient("response lost")
        }
        return results
    }
}

@Suite struct RepositoryLocalEditsTests {
    private func syncedRepository(
        count: Int = 100, conflicts: ConflictPolicy<User> = .serverWins,
        validate: (@Sendable (User) -> String?)? = nil
    ) async throws -> (SimulatedServer<User>, Repository<User>) {
        let server = try SimulatedServer(records: User.samples(count), seed: 21, validate: validate)
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(conflicts: conflicts))
        try await repository.sync()
        return (server, repository)
    }

    @Test func savedEditsArePushedOnTheNextSync() async throws {
        let (server, repository) = try await syncedRepository()
        var user = try await #require(try repository.fetch(id: 7))
        user.nickname = "seven"
        try await repository.save(user)
        try await repository.save(User.sample(999))
        await #expect(try repository.fetch(id: 7)?.nickname == "seven")
        await #expect(try repository.pendingChangeCount() == 2)

        let report = try await repository.sync()
        #expect(report.pushed == 2)
        #expect(report.conflicts.isEmpty)
        await #expect(try repository.pendingChangeCount() == 0)
        #expect(await server.record(id: 7)?.nickname == "seven")
        #expect(await server.record(id: 1_000) == User.sample(999))
    }

    @Test func deletionsArePushed() async throws {
        let (server, repository) = try await syncedRepository()
        try await repository.delete(id: 3)
        await #expect(try repository.fetch(id: 3) == nil)
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(await server.record(id: 3) == nil)
        await #expect(try repository.count() == 99)
    }

    @Test func repeatedEditsOfOneRecordArePushedOnce() async throws {
        let (server, repository) = try await syncedRepository()
        for age in 40..<45 {
            var user = User.sample(0)
            user.age = age
            try await repository.save(user)
        }
        await #expect(try repository.pendingChangeCount() == 1)
        let before = await server.latestCursor
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(await server.record(id: 1)?.age == 44)
        #expect(await server.latestCursor == SyncCursor(rawValue: String(Int(before.rawValue)! + 1)))
    }

    @Test func pendingChangesSurviveReopeningTheDatabase() async throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.sqlite").path
        let server = try SimulatedServer(records: User.samples(50), seed: 22)
        do {
            let repository = try Repository(
                database: try SQLiteDatabase(path: path), remote: server, configuration: makeConfiguration())
            try await repository.sync()
            var user = User.sample(9)
            user.email = "ten@example.org"
            try await repository.save(user)
            try await repository.delete(id: 20)
        }
        let reopened = try Repository(
            database: try SQLiteDatabase(path: path), remote: server, configuration: makeConfiguration())
        await #expect(try reopened.pendingChangeCount() == 2)
        await #expect(try reopened.fetch(id: 10)?.email == "ten@example.org")
        await #expect(try reopened.cursor() == "50")
        let report = try await reopened.sync()
        #expect(report.pushed == 2)
        #expect(await server.record(id: 10)?.email == "ten@example.org")
        #expect(await server.record(id: 20) == nil)
    }

    @Test func retriedPushIsAppliedOnceThanksToItsIdempotencyKey() async throws {
        let server = try SimulatedServer(records: User.samples(20), seed: 23)
        let remote = LosingFirstResponse(server)
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        try await repository.sync()
        var user = User.sample(4)
        user.score = 1
        try await repository.save(user)
        let report = try await repository.sync()
        #expect(report.retries == 1)
        #expect(report.pushed == 1)
        let keys = await remote.pushedKeys
        #expect(keys.count == 2 && keys[0] == keys[1])
        #expect(await server.statistics.replayedChanges == 1)
        #expect(await server.latestCursor == "21")
    }

    @Test func anEditOfAChangeWhoseAnswerNeverCameIsNotAConflictWithItself() async throws {
        let server = try SimulatedServer(records: User.samples(20), seed: 25)
        let repository = try Repository(
            database: .inMemory(), remote: CrashingAfterFirstPush(server), configuration: makeConfiguration())
        try await repository.sync()
        var user = User.sample(5)
        user.nickname = "first"
        try await repository.save(user)
        await #expect(throws: RemoteSourceError.self) { try await repository.sync() }
        #expect(await server.record(id: 6)?.nickname == "first", "the server applied the first change")
        user.nickname = "second"
        try await repository.save(user)  // replaces the queued change whose outcome never came

        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty, "the server's version is the client's own first change")
        #expect(report.pushed == 1)
        #expect(await server.record(id: 6)?.nickname == "second")
        await #expect(try repository.fetch(id: 6)?.nickname == "second")
    }

    @Test func anEditSavedBetweenAPushAndItsPullIsNotAConflictWithItself() async throws {
        let server = try SimulatedServer(records: User.samples(30), seed: 26)
        let remote = PausingAfterPush(server)
        let repository = try Repository(database: .inMemory(), remote: remote, configuration: makeConfiguration())
        try await repository.sync()
        var user = User.sample(2)
        user.nickname = "first"
        try await repository.save(user)
        var edited = user
        edited.nickname = "second"
        let second = edited
        await remote.runAfterNextPush { try await repository.save(second) }
        try await repository.sync()
        let report = try await repository.sync()
        #expect(report.conflicts.isEmpty, "\(report.conflicts)")
        #expect(report.pushed == 1)
        #expect(await server.record(id: 3)?.nickname == "second")
        await #expect(try repository.fetch(id: 3)?.nickname == "second")
    }

    @Test func rejectedChangesAreReportedAndHeldUntilTheAppDecides() async throws {
        let (server, repository) = try await syncedRepository { user in
            user.email.contains("@") ? nil : "email must contain @"
        }
        var user = User.sample(2)
        user.email = "nowhere"
        try await repository.save(user)
        let report = try await repository.sync()
        #expect(report.failed.map(\.reason) == ["email must contain @"])
        #expect(report.pushed == 0)
        // Kept, held: not pushed again, not lost.
        await #expect(try repository.pendingChangeCount() == 1)
        let failed = try await repository.failedChanges()
        #expect(failed.map(\.id) == [user.id])
        #expect(failed.first?.operation == .save)
        #expect(failed.first?.reason == "email must contain @")
        let quiet = try await repository.sync()
        #expect(quiet.failed.isEmpty)
        #expect(await server.record(id: 3)?.email == "user2@example.com")
        await #expect(try repository.fetch(id: user.id)?.email == "nowhere")

        // A new edit retries it by itself.
        user.email = "fixed@example.com"
        try await repository.save(user)
        let fixed = try await repository.sync()
        #expect(fixed.pushed == 1)
        #expect(await server.record(id: user.id)?.email == "fixed@example.com")
        await #expect(try repository.pendingChangeCount() == 0)
    }

    @Test func aRefusedChangeIsRetriedRevertedOrDiscardedOnlyWhenTheAppSaysSo() async throws {
        let (server, repository) = try await syncedRepository { user in
            user.email.contains("@") ? nil : "email must contain @"
        }
        var first = User.sample(1)
        first.email = "one"
        var second = User.sample(2)
        second.email = "two"
        var third = User.sample(3)
        third.email = "three"
        try await repository.save([first, second, third])
        #expect(try await repository.sync().failed.count == 3)

        // Retry: sent again as it is, refused again, still held.
        try await repository.retry(failedChangeOf: first.id)
        #expect(try await repository.sync().failed.map(\.id) == [first.id])
        // Revert: the server's copy comes back, the change is gone.
        try await repository.revert(failedChangeOf: second.id)
        await #expect(try repository.fetch(id: second.id)?.email == server.record(id: second.id)?.email)
        // Discard: the change is gone, and the cache holds the server's copy, not the refused edit.
        try await repository.discard(failedChangeOf: third.id)
        await #expect(try repository.fetch(id: third.id)?.email == server.record(id: third.id)?.email)
        await #expect(try repository.fetch(id: third.id)?.email != "three")
        #expect(try await repository.failedChanges().map(\.id) == [first.id])
        await #expect(try repository.pendingChangeCount() == 1)
    }

    @Test func pagesPulledDuringAnEditLeaveTheLocalVersionAlone() async throws {
        let server = try SimulatedServer(
            records: User.samples(1_000), seed: 24, faults: SimulatedFaults(latency: .milliseconds(5)))
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: makeConfiguration(conflicts: .clientWins))
        let progress = repository.progressUpdates()
        let sync = Task { try await repository.sync() }
        for await event in progress {
            if case .pageApplied = event { break }
        }
        var local = User.sample(949)  // id 950, in the tenth page
        local.nickname = "edited while syncing"
        try await repository.save(local)
        let report = try await sync.value
        #expect(report.keptLocal == 1)
        #expect(report.inserted == 999)
        await #expect(try repository.fetch(id: 950)?.nickname == "edited while syncing")
        await #expect(try repository.pendingChangeCount() == 1)

        // The edit was based on cursor 100, before the server's version of record 950 reached the cache:
        // a conflict, which this repository's policy settles for the client.
        let next = try await repository.sync()
        #expect(next.conflicts.map(\.resolution) == [.keptLocal])
        #expect(next.pushed == 1)
        #expect(await server.record(id: 950)?.nickname == "edited while syncing")
    }

    // MARK: - Conflicts

    /// The local side edits `nickname` (updatedAt +100 s), another client edits `age` (updatedAt `serverDelta`).
    private func conflict(
        policy: ConflictPolicy<User>, serverDelta: TimeInterval = 50
    ) async throws -> (SyncReport<User.ID>, User?, User?) {
        let (server, repository) = try await syncedRepository(conflicts: policy)
        var local = try await #require(try repository.fetch(id: 1))
        let base = local.updatedAt
        local.nickname = "local"
        local.updatedAt = base + 100
        try await repository.save(local)
        try await server.update(id: 1) {
            $0.age = 99
            $0.updatedAt = base + serverDelta
        }
        let report = try await repository.sync()
        #expect(report.conflicts.count == 1)
        await #expect(try repository.pendingChangeCount() == 0)
        let cachedUser = try await repository.fetch(id: 1)
        let serverUser = await server.record(id: 1)
        #expect(cachedUser == serverUser, "after the sync, cache and server agree")
        return (report, cachedUser, serverUser)
    }

    @Test func serverWinsTakesTheServerVersion() async throws {
        let (report, user, _) = try await conflict(policy: .serverWins)
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        #expect(user?.age == 99)
        #expect(user?.nickname == "nick0" || user?.nickname == nil)
    }

    @Test func clientWinsPushesTheLocalVersionAgain() async throws {
        let (report, user, _) = try await conflict(policy: .clientWins)
        #expect(report.conflicts.map(\.resolution) == [.keptLocal])
        #expect(report.pushed == 1)
        #expect(user?.nickname == "local")
        #expect(user?.age == User.sample(0).age)
    }

    @Test(arguments: [(50.0, "local"), (200.0, "server")])
    func newestWinsComparesTheDeclaredTimestamp(serverDelta: Double, winner: String) async throws {
        let (report, user, _) = try await conflict(policy: .newestWins(by: \.updatedAt), serverDelta: serverDelta)
        #expect(report.conflicts.first?.policy == "newestWins(\\User.updatedAt)")
        if winner == "local" {
            #expect(report.conflicts.map(\.resolution) == [.keptLocal])
            #expect(user?.nickname == "local")
        } else {
            #expect(report.conflicts.map(\.resolution) == [.keptServer])
            #expect(user?.age == 99)
        }
    }

    @Test func customMergeCombinesBothSides() async throws {
        let merge = ConflictPolicy<User>.custom(name: "mergeFields") { conflict in
            guard var merged = conflict.server, let local = conflict.local else { return .keepServer }
            merged.nickname = local.nickname
            merged.updatedAt = max(local.updatedAt, merged.updatedAt)
            return .merged(merged)
        }
        let (report, user, _) = try await conflict(policy: merge)
        #expect(report.conflicts.map(\.resolution) == [.merged])
        #expect(report.conflicts.first?.policy == "mergeFields")
        #expect(user?.nickname == "local")
        #expect(user?.age == 99)
    }

    @Test func localDeletionAgainstAServerEditFollowsThePolicy() async throws {
        let (server, repository) = try await syncedRepository(conflicts: .newestWins(by: \.updatedAt))
        try await repository.delete(id: 8)
        try await server.update(id: 8) { $0.age = 70 }
        let report = try await repository.sync()
        #expect(report.conflicts.map(\.resolution) == [.keptServer])
        await #expect(try repository.fetch(id: 8)?.age == 70)
    }
}
