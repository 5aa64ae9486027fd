import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A source whose server answers every push of the records in `failing` with `500`, and passes the
/// rest to its simulated server.
struct FailingRecordsRemote: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    let failing: FailingIDs

    /// The ids the server fails, changeable while a test runs.
    actor FailingIDs {
        var ids: Set<Int64>
        init(_ ids: Set<Int64>) { self.ids = ids }
        func set(_ ids: Set<Int64>) { self.ids = ids }
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let failing = await failing.ids
        if changes.contains(where: { failing.contains($0.id) }) {
            throw RemoteSourceError.httpStatus(500, body: "internal server error")
        }
        return try await server.push(changes)
    }

    var feedIdentifier: String { "failing records" }
}

/// A change the server keeps failing waits with its error while the others and the pull go on, and one
/// user lists every change that has not reached the server, with where it stands.
@Suite struct UnsentChangesTests {
    private func repository(failing: Set<Int64>) async throws -> (
        Repository<User>, SimulatedServer<User>, FailingRecordsRemote.FailingIDs
    ) {
        let server = try SimulatedServer(records: User.samples(3), seed: 7)
        let ids = FailingRecordsRemote.FailingIDs(failing)
        let repository = try Repository(
            database: .inMemory(), remote: FailingRecordsRemote(server: server, failing: ids),
            configuration: SyncConfiguration(
                pushBatchSize: 1,
                retryPolicy: RetryPolicy(
                    maxAttempts: 3, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 3)))
        try await repository.sync()
        return (repository, server, ids)
    }

    @Test func aChangeTheServerKeepsFailingWaitsWhileTheRestAndThePullGoOn() async throws {
        let (repository, server, failing) = try await repository(failing: [User.sample(1).id])
        var first = User.sample(1)
        first.nickname = "fails on the server"
        var second = User.sample(2)
        second.nickname = "accepted"
        try await repository.save(first)
        try await repository.save(second)
        _ = try await server.upsert(User.sample(40))

        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(report.retrying.map(\.id) == [first.id])
        #expect(report.retrying.first?.reason.contains("500") == true)
        #expect(report.pulled == 2)  // the pull went on: the server's new record, and the accepted edit
        #expect(try await repository.fetch(id: User.sample(40).id) != nil)
        #expect(await server.record(id: second.id)?.nickname == "accepted")

        let unsent = try await repository.unsentChanges()
        #expect(unsent.count == 1)
        guard case .retrying(let error, let after)? = unsent.first?.status else {
            Issue.record("expected a change waiting to be retried, got \(unsent)")
            return
        }
        #expect(error.contains("500"))
        #expect(after > Date())
        // Before its retry time, a sync leaves it waiting; the server fixed and the time come, it goes.
        #expect(try await repository.sync().retrying.isEmpty)
        #expect(await server.record(id: first.id)?.nickname != "fails on the server")
        await failing.set([])
        try await repository.database.write {
            try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "retry_at" = 0"#)
        }
        let again = try await repository.sync()
        #expect(again.pushed == 1)
        #expect(await server.record(id: first.id)?.nickname == "fails on the server")
        #expect(try await repository.unsentChanges().isEmpty)
    }

    /// The app decides when a retrying change goes: `retry(failedChangeOf:)` ends its backoff, and so
    /// does a new save of the record; before either, it waits up to 15 minutes.
    @Test(arguments: [false, true])
    func theAppEndsABackoffByRetryingOrSavingAgain(savesAgain: Bool) async throws {
        let (repository, server, failing) = try await repository(failing: [User.sample(1).id])
        var first = User.sample(1)
        first.nickname = "fails on the server"
        try await repository.save(first)
        #expect(try await repository.sync().retrying.map(\.id) == [first.id])
        await failing.set([])
        // Still in its backoff: a sync leaves it.
        #expect(try await repository.sync().pushed == 0)

        if savesAgain {
            first.nickname = "saved again"
            try await repository.save(first)
        } else {
            try await repository.retry(failedChangeOf: first.id)
        }
        let unsent = try await repository.unsentChanges()
        #expect(unsent.count == 1)
        if case .retrying? = unsent.first?.status { Issue.record("still retrying after the app's decision: \(unsent)") }
        let report = try await repository.sync()
        #expect(report.pushed == 1)
        #expect(await server.record(id: first.id)?.nickname == first.nickname)
        #expect(try await repository.unsentChanges().isEmpty)
    }

    @Test func unsentChangesTellWhereEachStandsAndAreObservable() async throws {
        let (repository, _, _) = try await repository(failing: [])
        var edited = User.sample(2)
        edited.nickname = "queued"
        let updates = repository.observeUnsentChanges()
        var iterator = updates.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        try await repository.save(edited)
        let next = try await iterator.next()
        #expect(next?.map(\.status) == [.queued])
        #expect(next?.first?.id(as: Int64.self) == edited.id)
        #expect(next?.first?.table == "users")
        #expect(next?.first?.description.contains("save queued") == true)
        try await repository.sync()
        // Sent (awaiting its answer), then accepted: the list empties.
        var seen: [[UnsentChange.Status]] = []
        while let value = try await iterator.next() {
            seen.append(value.map(\.status))
            if value.isEmpty || seen.count > 3 { break }
        }
        #expect(seen.last == [])
        #expect(seen.dropLast().allSatisfy { $0 == [.awaitingAnswer] })
    }
}
