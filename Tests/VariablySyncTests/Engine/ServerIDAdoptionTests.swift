import Foundation
import Testing
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A source that fails every push with `500` while `failing` is set, and otherwise hands it to a
/// numbering `LoggingRemote`.
struct FailingPushesRemote: RemoteSource {
    typealias Model = Remark
    let inner: LoggingRemote<Remark>
    let failing: Switch

    /// A flag a test turns.
    actor Switch {
        var isOn = true
        func turnOff() { isOn = false }
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await inner.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        if await failing.isOn { throw RemoteSourceError.httpStatus(500, body: "down") }
        return try await inner.push(changes)
    }

    var feedIdentifier: String { inner.feedIdentifier }
}

/// The server's copy of a record created here may be cached before the create is answered (pulled
/// while the create waited): adopting the server's id keeps every reference to that copy.
@Suite struct ServerIDAdoptionTests {
    @Test func aCachedServerCopyGivesWayWithoutEmptyingItsReplies() async throws {
        let database = try SQLiteDatabase.inMemory()
        let log = PushLog()
        let writerServer = try SimulatedServer(records: [Writer(id: 1, name: "ada")], seed: 1)
        let essayServer = try SimulatedServer(records: [Essay(id: 10, writerID: 1, title: "first")], seed: 2)
        let remarkServer = try SimulatedServer(records: [Remark](), seed: 3)
        let failing = FailingPushesRemote.Switch()
        let retries = RetryPolicy(maxAttempts: 2, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 4)
        let writers = try Repository(
            database: database, remote: LoggingRemote(writerServer, log: log, table: "writers"),
            configuration: SyncConfiguration(retryPolicy: retries))
        let essays = try Repository(
            database: database, remote: LoggingRemote(essayServer, log: log, table: "essays"),
            configuration: SyncConfiguration(retryPolicy: retries))
        let remarks = try Repository(
            database: database,
            remote: FailingPushesRemote(
                inner: LoggingRemote(remarkServer, log: log, table: "remarks", numbering: .init(from: 500)), failing: failing),
            configuration: SyncConfiguration(retryPolicy: retries))
        let store = SyncStore(remarks, essays, writers)
        try await store.sync()

        // Created here; its push fails, and meanwhile the server has it (as 500) with a reply from
        // another client, which this sync pulls.
        _ = try await remarks.create { Remark(id: $0, essayID: 10, text: "mine") }
        _ = try await remarkServer.upsert(Remark(id: 500, essayID: 10, text: "mine"))
        _ = try await remarkServer.upsert(Remark(id: 501, essayID: 10, replyTo: 500, text: "a reply"))
        let first = try await store.sync()
        #expect(first.for(Remark.self)?.deferred.count == 1)
        #expect(try await remarks.fetch(id: 501)?.replyTo == 500)

        // The create goes, is numbered 500, and takes the cached copy's place: the reply keeps it.
        await failing.turnOff()
        try await database.write { try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "retry_at" = 0"#) }
        try await store.sync()
        #expect(try await remarks.fetch().map(\.id).sorted() == [500, 501])
        #expect(try await remarks.fetch(id: 501)?.replyTo == 500)
        #expect(try await remarks.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(database)
    }

    /// The cached server copy was edited here while the create waited: when the copy gives way to the
    /// created row, the edit is carried over and pushed, not lost with the copy.
    @Test func anEditOfTheCachedServerCopyIsKeptWhenItGivesWay() async throws {
        let database = try SQLiteDatabase.inMemory()
        let log = PushLog()
        let writerServer = try SimulatedServer(records: [Writer(id: 1, name: "ada")], seed: 1)
        let essayServer = try SimulatedServer(records: [Essay(id: 10, writerID: 1, title: "first")], seed: 2)
        let remarkServer = try SimulatedServer(records: [Remark](), seed: 3)
        let failing = FailingPushesRemote.Switch()
        let retries = RetryPolicy(maxAttempts: 2, initialDelay: .microseconds(10), maxDelay: .microseconds(50), seed: 4)
        let writers = try Repository(database: database, remote: LoggingRemote(writerServer, log: log, table: "writers"))
        let essays = try Repository(database: database, remote: LoggingRemote(essayServer, log: log, table: "essays"))
        let remarks = try Repository(
            database: database,
            remote: FailingPushesRemote(
                inner: LoggingRemote(remarkServer, log: log, table: "remarks", numbering: .init(from: 500)), failing: failing),
            configuration: SyncConfiguration(retryPolicy: retries))
        let store = SyncStore(remarks, essays, writers)
        try await store.sync()

        _ = try await remarks.create { Remark(id: $0, essayID: 10, text: "mine") }
        _ = try await remarkServer.upsert(Remark(id: 500, essayID: 10, text: "mine"))
        try await store.sync()
        // Two rows for one record here: the created one, and the server's copy, which is edited.
        var copy = try #require(try await remarks.fetch(id: 500))
        copy.text = "edited on the copy"
        try await remarks.save(copy)

        await failing.turnOff()
        try await database.write { try $0.execute(sql: #"UPDATE "variably_pending_changes" SET "retry_at" = 0"#) }
        let report = try await store.sync()
        #expect(report.for(Remark.self)?.conflicts.isEmpty == true)
        #expect(try await remarks.fetch().map(\.id) == [500])
        #expect(try await remarks.fetch(id: 500)?.text == "edited on the copy")
        #expect(await remarkServer.record(id: 500)?.text == "edited on the copy")
        #expect(try await remarks.pendingChangeCount() == 0)
        try await expectNoBrokenReferences(database)
    }
}
