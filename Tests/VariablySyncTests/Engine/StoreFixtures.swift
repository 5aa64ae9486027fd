import Foundation
import UserSyncModels
import VariablyCodable
import VariablySQLite
import VariablySync
import VariablySyncTesting
import Testing

/// Every push that reached a server, in order, across the store's sources: `"<table> <operation> <id>"`.
actor PushLog {
    private(set) var entries: [String] = []

    func append(_ entries: [String]) { self.entries += entries }
}

/// A source that logs each push to a shared ``PushLog``, then hands it to its simulated server; with
/// `numbering`, the server assigns ids to new records from that value up, as a database sequence does,
/// and answers each create with the stored record.
struct LoggingRemote<Model: VariablyCodable & Identifiable & Sendable>: RemoteSource where Model.ID == Int64 {
    let server: SimulatedServer<Model>
    let log: PushLog
    let table: String
    let numbering: Numbering?
    /// Runs before each pull: a server-side write between two tables' pulls.
    let beforePull: (@Sendable () async throws -> Void)?

    /// The ids a server assigns, and the JSON of the records it received, by the id it assigned.
    actor Numbering {
        private var next: Int64
        private(set) var received: [Int64: Data] = [:]

        init(from first: Int64) { next = first }

        /// `json` (an object) stored under the next id: the stored record's JSON and its id.
        func assign(_ json: Data) throws -> (record: Data, id: Int64) {
            guard var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            let id = next
            next += 1
            received[id] = json
            object["id"] = id
            return (try JSONSerialization.data(withJSONObject: object), id)
        }
    }

    init(
        _ server: SimulatedServer<Model>, log: PushLog, table: String, numbering: Numbering? = nil,
        beforePull: (@Sendable () async throws -> Void)? = nil
    ) {
        (self.server, self.log, self.table, self.numbering, self.beforePull) = (
            server, log, table, numbering, beforePull
        )
    }

    func pull(after cursor: SyncCursor?, limit: Int) async throws -> RemotePage<Int64> {
        try await beforePull?()
        return try await server.pull(after: cursor, limit: limit)
    }

    func push(_ changes: [RemoteChange<Int64>]) async throws -> [PushResult<Int64>] {
        await log.append(changes.map { "\(table) \($0.operation == .delete ? "delete" : "save") \($0.id)" })
        guard let numbering else { return try await server.push(changes) }
        var results: [PushResult<Int64>] = []
        for change in changes {
            guard change.isNew, case .upsert(let json) = change.operation else {
                results += try await server.push([change])
                continue
            }
            let (data, id) = try await numbering.assign(json)
            let applied = try await server.push([
                RemoteChange(idempotencyKey: change.idempotencyKey, id: id, operation: .upsert(data), baseVersion: nil)
            ])
            results.append(
                PushResult(
                    idempotencyKey: change.idempotencyKey, id: change.id, outcome: applied[0].outcome,
                    serverRecord: data))
        }
        return results
    }

    var feedIdentifier: String { table }

    func currentRecord(id: Int64) async throws -> Data? { try await server.currentRecord(id: id) }
}

/// Expects every foreign key of `database` to hold (`PRAGMA foreign_key_check` empty).
func expectNoBrokenReferences(_ database: SQLiteDatabase, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
{
    let broken = try await database.read { try $0.fetch(sql: "PRAGMA foreign_key_check").count }
    #expect(broken == 0, "rows reference records that are not in the cache", sourceLocation: sourceLocation)
}
