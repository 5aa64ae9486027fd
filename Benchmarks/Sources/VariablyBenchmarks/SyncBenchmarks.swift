import Foundation
import GRDB
import VariablySQLite
import VariablySync
import VariablySyncTesting

extension BenchUser: Identifiable {}

extension GRDBCodableUser {
    init(_ user: SynthesizedUser) {
        (id, userName, email, age, isActive, score, createdAt, tags) =
            (user.id, user.userName, user.email, user.age, user.isActive, user.score, user.createdAt, user.tags)
    }
}

/// Runs async work to completion from synchronous benchmark code.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// `@unchecked Sendable`: written once by the task, read once after the semaphore says it is done.
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// Sync groups: the naive pipeline (Foundation `JSONDecoder` with synthesized Codable, then one GRDB
/// Codable `insert` per record, one transaction per page) is the baseline.
func syncGroups(users: [BenchUser]) throws -> [Group] {
    let pageSize = 1_000
    let server = try SimulatedServer(records: users, seed: 1)

    let naive = Variant(name: "naive: JSONDecoder + GRDB Codable insert per record") {
        let file = try TemporaryDatabase()
        let queue = try DatabaseQueue(path: file.path)
        try queue.write { try $0.execute(sql: RawDatabase.createTable) }
        var cursor: SyncCursor?
        var stored = 0
        while true {
            let after = cursor
            let page = try runBlocking { try await server.pull(after: after, limit: pageSize) }
            do {
                let decoded = try JSONDecoder().decode([SynthesizedUser].self, from: page.records)
                try queue.write { db in for user in decoded { try GRDBCodableUser(user).insert(db) } }
                stored += decoded.count
                cursor = page.nextCursor
            }
            if !page.hasMore { return stored }
        }
    }
    let repository = Variant(name: "Repository.sync(), pages of 1,000") {
        let file = try TemporaryDatabase()
        let database = try SQLiteDatabase(path: file.path)
        let repository = try Repository<BenchUser>(
            database: database, remote: server, configuration: SyncConfiguration(pageSize: pageSize))
        let report = try runBlocking { try await repository.sync() }
        guard report.inserted == users.count else { throw BenchmarkError("synced \(report.inserted) of \(users.count)") }
        return report.pulled
    }
    return [
        Group(
            name: "Sync into an empty file", variants: [naive, repository],
            targets: ["Repository.sync(), pages of 1,000": 5])
    ]
}

/// An incremental sync of 1% of the users, after a full one; returns (records pulled, seconds).
func measureIncrementalSync(users: [BenchUser]) throws -> (Int, Double) {
    let server = try SimulatedServer(records: users, seed: 2)
    let file = try TemporaryDatabase()
    let repository = try Repository<BenchUser>(database: try SQLiteDatabase(path: file.path), remote: server)
    _ = try runBlocking { try await repository.sync() }
    _ = try runBlocking {
        try await server.simulateOtherClients(edits: users.count / 100) { user, _ in user.score += 1 }
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let report = try runBlocking { try await repository.sync() }
    return (report.pulled, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
