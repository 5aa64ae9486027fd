import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// A source whose first push is applied by its simulated server and then fails, as an answer lost
/// after the server's commit would.
struct LosingFirstAnswerRemote: RemoteSource {
    typealias Model = User
    let server: SimulatedServer<User>
    let lost = Once()

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        let results = try await server.push(changes)
        if await lost.first() {
            throw RemoteSourceError.transient("the answer was lost after the server applied the push")
        }
        return results
    }

    var feedIdentifier: String { "losing first answer" }
}

/// On a server that ignores idempotency keys, a write sent again after its answer was lost meets its
/// own first write: that is no conflict, and nothing is lost or reported as "server won".
@Suite struct LostAnswerTests {
    @Test func anEditSentAgainAfterItsAnswerWasLostIsNotAConflictWithItself() async throws {
        let server = try SimulatedServer(
            records: User.samples(3), seed: 4, faults: SimulatedFaults(ignoresIdempotencyKeys: true))
        let repository = try Repository(
            database: .inMemory(), remote: LosingFirstAnswerRemote(server: server),
            configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await repository.sync()
        var account = try #require(try await repository.fetch(id: User.sample(1).id))
        account.nickname = "edited here"
        try await repository.save(account)

        let report = try await repository.sync()
        #expect(report.retries == 1)
        #expect(report.conflicts.isEmpty)
        #expect(report.pushed == 1)
        #expect(await server.statistics.conflicts == 1)  // the server did see one, with the write's own values
        #expect(await server.record(id: account.id)?.nickname == "edited here")
        #expect(try await repository.fetch(id: account.id)?.nickname == "edited here")
        #expect(try await repository.unsentChanges().isEmpty)
    }

    /// Another client's write in between, to the same field, is still a real conflict.
    @Test func anotherClientsWriteInBetweenIsStillAConflict() async throws {
        let server = try SimulatedServer(
            records: User.samples(3), seed: 4, faults: SimulatedFaults(ignoresIdempotencyKeys: true))
        let repository = try Repository(
            database: .inMemory(), remote: server, configuration: SyncConfiguration(retryPolicy: quickRetries))
        try await repository.sync()
        var account = try #require(try await repository.fetch(id: User.sample(1).id))
        try await server.update(id: account.id) { $0.nickname = "written there" }
        account.nickname = "edited here"
        try await repository.save(account)

        let report = try await repository.sync()
        #expect(report.conflicts.map(\.id) == [account.id])
        #expect(try await repository.fetch(id: account.id)?.nickname == "written there")
    }
}
