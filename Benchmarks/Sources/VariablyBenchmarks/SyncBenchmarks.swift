import Foundation
import GRDB
import VariablyCodable
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

/// Sync groups. The baseline is the C floor's insert of the same users, already decoded and laid out
/// for C (one reused prepared statement, a transaction per page, VariablySQLite's settings and
/// checkpoints); Swift calling the C API for the same insert, and the naive pipeline (Foundation
/// `JSONDecoder` with synthesized Codable, then one GRDB Codable `insert` per record, a transaction per
/// page) are the other references. Every variant reads the same pages, built and encoded by the simulated server
/// in advance (`PreEncodedSource`), so that the server's own work is not timed as the client's.
func syncGroups(users: [BenchUser]) throws -> [Group] {
    let pageSize = 1_000
    let source = try PreEncodedSource(serving: try SimulatedServer(records: users, seed: 1), pageSize: pageSize)
    let decodedPages = try source.ordered.map { try JSONDecoder().decode([SynthesizedUser].self, from: $0.records) }
        .map {
            $0.map {
                BenchUser(
                    id: $0.id, userName: $0.userName, email: $0.email, age: $0.age, isActive: $0.isActive,
                    score: $0.score, createdAt: $0.createdAt, tags: $0.tags)
            }
        }

    let floorUsers = FloorRows(decodedPages.joined())
    let rawC = Variant(
        name: "Swift calling the C API: insert of the decoded users, one reused statement, a transaction per page"
    ) {
        let file = try TemporaryDatabase()
        let database = try RawDatabase(path: file.path)
        try database.execute(RawDatabase.createTable)
        return try database.insert(pages: decodedPages)
    }
    let naive = Variant(name: "naive: JSONDecoder + GRDB Codable insert per record") {
        let file = try TemporaryDatabase()
        let queue = try DatabaseQueue(path: file.path)
        try queue.write { try $0.execute(sql: RawDatabase.createTable) }
        var stored = 0
        for page in source.ordered {
            let decoded = try JSONDecoder().decode([SynthesizedUser].self, from: page.records)
            try queue.write { db in for user in decoded { try GRDBCodableUser(user).insert(db) } }
            stored += decoded.count
        }
        return stored
    }
    let decodeThenInsert = Variant(name: "KeySetJSONDecoder, then Swift calling the C API, one thread") {
        let file = try TemporaryDatabase()
        let database = try RawDatabase(path: file.path)
        try database.execute(RawDatabase.createTable)
        let decoder = KeySetJSONDecoder(source: .remote)
        var stored = 0
        for page in source.ordered {
            stored += try database.insert(pages: [try decoder.decode([BenchUser].self, from: page.records)])
        }
        return stored
    }
    func sync(appTrigger: Bool = false, checkpoints: CheckpointPolicy? = nil) throws -> Int {
        try syncIntoEmptyFile(
            from: source, expecting: users.count, pageSize: pageSize, appTrigger: appTrigger, checkpoints: checkpoints)
    }
    let repository = "Repository.sync(), pages of 1,000"
    let oneCore = "the same sync, confined to one core"
    let withTriggers = "the same sync into a table with a trigger of the app's own (capture triggers stay on)"
    let onCommit = "the same sync, checkpoints on commit (SQLite's default)"
    return [
        Group(
            name: "Sync into an empty file",
            variants: CFloor.writeVariants(floorUsers, pageSize: pageSize) + [
                rawC, naive, decodeThenInsert,
                Variant(name: oneCore) { try onOneCore { try sync() } },
                Variant(name: withTriggers) { try sync(appTrigger: true) },
                Variant(name: onCommit) { try sync(checkpoints: .onCommit(afterPages: 1_000)) },
                Variant(name: repository) { try sync() },
            ],
            targets: [repository: 0.75],
            comparisons: [
                (onCommit, CFloor.onCommitName, 0.75), (repository, rawC.name, nil), (repository, naive.name, 8),
                (repository, oneCore, nil), (repository, withTriggers, nil), (repository, onCommit, nil),
            ])
    ]
}

/// A full sync of `source` into a new file, pages of `pageSize`; returns the records pulled. With
/// `appTrigger`, the table also has a trigger of the app's own (one that never fires during a pull): the
/// capture triggers then stay on while the pull writes, as they were for every pull before. With
/// `checkpoints`, the file is checkpointed that way instead of the default (in the background).
private func syncIntoEmptyFile(
    from source: PreEncodedSource, expecting expected: Int, pageSize: Int, appTrigger: Bool,
    checkpoints: CheckpointPolicy?
) throws -> Int {
    let file = try TemporaryDatabase()
    var configuration = VariablySQLite.Configuration()
    if let checkpoints { configuration.checkpoints = checkpoints }
    // The database closes before the variant returns: the timing includes the checkpoints still
    // running and the last connection's final one.
    let database = try SQLiteDatabase(path: file.path, configuration: configuration)
    let repository = try Repository<BenchUser>(
        database: database, remote: source, configuration: SyncConfiguration(pageSize: pageSize))
    if appTrigger {
        try database.write {
            try $0.execute(sql: "CREATE TRIGGER app_audit AFTER DELETE ON users BEGIN SELECT 1; END")
        }
    }
    let report = try runBlocking { try await repository.sync() }
    guard report.inserted == expected else {
        throw BenchmarkError("synced \(report.inserted) of \(expected)")
    }
    return report.pulled
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
