import Foundation
import VariablySQLite
import VariablySync
import VariablySyncTesting

/// The same full sync from the in-process simulated server (the baseline) and over loopback HTTP
/// through `HTTPRemoteSource` (a local server answering the same pages, prepared in advance); then
/// the same pages gzipped against identity, which measures libcurl's decoding.
func httpGroups(users: [BenchUser]) throws -> [Group] {
    let pageSize = 1_000
    let server = try SimulatedServer(records: users, seed: 4)
    let loopback = try LoopbackServer(serving: server, pageSize: pageSize)
    let gzipped = try LoopbackServer(serving: server, pageSize: pageSize, gzip: true)
    let count = users.count

    func sync(from remote: some RemoteSource<BenchUser>) throws -> Int {
        let file = try TemporaryDatabase()
        let repository = try Repository<BenchUser>(
            database: try SQLiteDatabase(path: file.path), remote: remote,
            configuration: SyncConfiguration(pageSize: pageSize))
        let report = try runBlocking { try await repository.sync() }
        guard report.inserted == count else { throw BenchmarkError("synced \(report.inserted) of \(count)") }
        return report.pulled
    }
    let http = HTTPRemoteSource<BenchUser>(baseURL: loopback.baseURL)
    return [
        Group(
            name: "Sync over loopback HTTP",
            variants: [
                Variant(name: "Repository.sync(), in-process simulated server") { try sync(from: server) },
                Variant(name: "Repository.sync(), HTTPRemoteSource over 127.0.0.1") { try sync(from: http) },
            ],
            targets: ["Repository.sync(), HTTPRemoteSource over 127.0.0.1": 0.7]),
        Group(
            name: "Sync over loopback HTTP, gzip",
            variants: [
                Variant(name: "HTTPRemoteSource over 127.0.0.1, identity") { try sync(from: http) },
                Variant(name: "HTTPRemoteSource over 127.0.0.1, gzip -6 pages") {
                    try sync(from: HTTPRemoteSource<BenchUser>(baseURL: gzipped.baseURL))
                },
            ],
            targets: ["HTTPRemoteSource over 127.0.0.1, gzip -6 pages": 0.85]),
    ]
}
